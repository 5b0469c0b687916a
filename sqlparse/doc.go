// Package sqlparse holds the SQL text utilities the evaluators share: a lossless
// lexer for SQLite-dialect SQL, Spider's query hardness classification and the
// normalisations the Spider test-suite evaluator applies before executing queries.
//
// Everything here is deliberately schema-free and dependency-free: the evaluators
// call it on gold and predicted SQL for every sample, so it must be fast, must
// never panic on model output, and must reproduce the reference Python tools
// (Spider's evaluation.py / process_sql.py and test-suite-sql-eval's
// exec_eval.py) exactly on the gold sets, because reported numbers are only
// comparable to published ones if the bucketing and normalisation match.
package sqlparse
