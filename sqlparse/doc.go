// Package sqlparse reads SQL text without a database: a lossless lexer for
// SQLite-dialect SQL (Tokenize), Spider's query hardness classification
// (SpiderHardness), the normalisations the Spider test-suite evaluator
// applies before executing queries (RemoveDistinct, SpiderPostprocess), a
// query's structure (Analyze returns its Shape: joins, subqueries, clauses),
// and the decoding guide (Guide) that holds a model's SQL, token by token as
// it is written, to one database's tables and columns.
//
// Everything but the Guide is schema-free: it sees only the SQL. The Guide
// is handed a schema as a plain map of tables to columns and reads no
// database either. The evaluators' parts run on gold and predicted SQL for
// every sample, so they must be fast, must never panic on model output,
// and must reproduce the reference Python tools (Spider's evaluation.py /
// process_sql.py and test-suite-sql-eval's exec_eval.py) exactly on the
// gold sets, because reported numbers are only comparable to published
// ones if the bucketing and normalisation match.
package sqlparse
