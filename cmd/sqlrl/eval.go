package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/translate"
)

// defaultData is the benchmark bundled with the repository.
const defaultData = "datasets/bird-dev-sample"

func init() {
	register(&command{
		name:    "eval",
		summary: "score predictions by executing them (BIRD EX, Spider exec match, Soft-F1, VES, pass@K)",
		usage:   "[flags] (--pred FILE | --gold-as-pred)",
		help: `Executes every prediction and its gold SQL read-only and compares the results
as BIRD's evaluation.py (--mode bird) or the Spider test-suite evaluator
(--mode spider) does. The gold is a benchmark directory (--data) or a gold file
(--gold with --db-root); predictions may be BIRD's JSON, sqlrl's JSONL or one
SQL per line.

examples:
  sqlrl eval --gold-as-pred
  sqlrl eval --data datasets/bird-dev-sample --pred predict_dev.json --json report.json`,
		flags: evalFlags,
	})
}

// evalCmd is sqlrl eval's flags.
type evalCmd struct {
	data, gold, dbRoot, questions, pred, mode, jsonOut, verdicts, ks string
	engine, pgDSN, goldDialect                                       string
	split                                                            *splitFlags
	goldAsPred, suite, keepDistinct, softF1, noCache, quiet, trPred  bool
	timeout                                                          time.Duration
	workers, ves, maxRows, maxBytes                                  int
}

func evalFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	e := &evalCmd{}
	fs.StringVar(&e.data, "data", defaultData, "benchmark `dir` (BIRD or Spider layout)")
	e.split = addSplitFlags(fs)
	fs.StringVar(&e.gold, "gold", "", "gold `file` of SQL<TAB>db_id lines, instead of --data")
	fs.StringVar(&e.dbRoot, "db-root", "", "`dir` holding <db>/<db>.sqlite (default: the benchmark's)")
	fs.StringVar(&e.questions, "questions", "", "question `file` (BIRD/Spider JSON) giving difficulties for --gold")
	fs.StringVar(&e.pred, "pred", "", "predictions `file`")
	fs.BoolVar(&e.goldAsPred, "gold-as-pred", false, "use the gold SQL as the predictions (sanity check: must score 100)")
	fs.StringVar(&e.mode, "mode", "", "metric: bird or spider (default: from the benchmark's layout)")
	fs.DurationVar(&e.timeout, "timeout", 0, "time limit: for the pred+gold pair (bird, default 30s) or per query (spider, default 60s)")
	fs.IntVar(&e.workers, "workers", 0, "parallel workers (default: number of CPUs)")
	fs.StringVar(&e.jsonOut, "json", "", "write the full report (summary and per-question verdicts) as JSON to `file` (- for stdout)")
	fs.StringVar(&e.verdicts, "verdicts", "", "write per-question verdicts as JSONL to `file`")
	fs.IntVar(&e.ves, "ves", 0, "time each correct pair `N` times and report VES and R-VES (BIRD uses 100)")
	fs.StringVar(&e.ks, "k", "1,5,8", "pass@k values to report when predictions carry candidates")
	fs.BoolVar(&e.suite, "suite", false, "spider: match on every .sqlite file in the db's directory (test-suite evaluation)")
	fs.BoolVar(&e.keepDistinct, "keep-distinct", false, "spider: do not remove DISTINCT before execution")
	fs.BoolVar(&e.softF1, "soft-f1", false, "bird: also compute mini-dev's Soft-F1 (runs every prediction to its last row instead of stopping wrong ones early)")
	fs.BoolVar(&e.noCache, "no-cache", false, "execute identical predictions again instead of reusing their result")
	fs.IntVar(&e.maxRows, "max-rows", 0, "fail a query that returns more than `N` rows (0: no cap; the official scripts have none)")
	fs.IntVar(&e.maxBytes, "max-bytes", sqlexec.DefaultMaxResultBytes, "fail a query whose rows hold more than `N` bytes of memory (0: no cap)")
	fs.BoolVar(&e.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&e.engine, "engine", "sqlite", "execution engine: sqlite, or postgres (databases copied by 'sqlrl db copy'; gold SQL translated, or from SQL_postgres / --gold-dialect-file)")
	fs.StringVar(&e.pgDSN, "pg-dsn", os.Getenv(pgDSNEnv), "postgres: `DSN` of a read-only role (default $"+pgDSNEnv+")")
	fs.StringVar(&e.goldDialect, "gold-dialect-file", "", "postgres: JSONL `file` of {\"question_id\", \"SQL\"}: PostgreSQL gold SQL used instead of the translation")
	fs.BoolVar(&e.trPred, "translate-pred", false, "postgres: the predictions are SQLite SQL; translate them as the gold is")
	return e.run
}

func (e *evalCmd) run(ctx context.Context, args []string) error {
	switch {
	case len(args) > 0:
		return usagef("unexpected argument %q", args[0])
	case (e.pred == "") == !e.goldAsPred:
		return usagef("give exactly one of --pred FILE or --gold-as-pred")
	case e.gold != "" && e.dbRoot == "":
		return usagef("--gold needs --db-root")
	}
	gb, err := dataset.LoadGold(dataset.GoldSource{Dir: e.data, Split: *e.split.split, Parts: e.split.parts(),
		GoldFile: e.gold, DBRoot: e.dbRoot, Questions: e.questions})
	if err != nil {
		return err
	}
	for _, w := range gb.Warnings {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	lim := sqlexec.Limits{MaxRows: e.maxRows, MaxBytes: e.maxBytes}
	pg, pgTr, err := e.postgres(ctx, lim, gb)
	if err != nil {
		return err
	}
	if pg != nil {
		defer pg.Close()
	}
	preds, err := e.predictions(ctx, gb.Examples, pgTr)
	if err != nil {
		return err
	}
	m, err := eval.ParseMode(e.mode, gb.Layout)
	if err != nil {
		return usagef("--mode %v", err)
	}
	kvals, err := eval.ParseKs(e.ks)
	if err != nil {
		return usagef("--k: %v", err)
	}
	sqlite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: gb.DBRoot, Limits: lim})
	defer sqlite.Close()
	// A broken database file must stop the run before a score is printed.
	if pg == nil {
		if err := eval.CheckDatabases(ctx, sqlite, gb.Questions, gb.Examples); err != nil {
			return err
		}
	}
	var engine sqlexec.Engine = sqlite
	engineDesc := fmt.Sprintf("%s, SQLite %s", sqlexec.Driver, sqlexec.Version)
	if pg != nil {
		engine, engineDesc = pg, "PostgreSQL "+pg.ServerVersion()
	}
	scorer := &eval.Scorer{Engine: engine, Mode: m, Timeout: e.timeout, CachePredictions: !e.noCache, KeepDistinct: e.keepDistinct, SoftF1: e.softF1}
	if e.suite {
		scorer.Suite = eval.SuiteOf(sqlite)
	}
	var bar *progress.Bar
	if !e.quiet {
		bar = progress.New(os.Stderr, "eval", len(gb.Examples))
	}
	rep, err := eval.Run(ctx, scorer, gb.Examples, preds, eval.Options{
		Workers: e.workers, Progress: func(d, _ int) { bar.Set(d) }, VESIterations: e.ves, Ks: kvals, Levels: eval.Levels(m),
	})
	bar.Finish()
	if err != nil {
		return err
	}
	return e.write(rep, len(gb.Examples), m, engineDesc)
}

// postgres opens PostgreSQL with the gold rewritten for it, or nothing
// for SQLite.
func (e *evalCmd) postgres(ctx context.Context, lim sqlexec.Limits, gb *dataset.Benchmark) (*sqlexec.Postgres, *translate.Catalog, error) {
	switch e.engine {
	case "sqlite":
		return nil, nil, nil
	case "postgres", "postgresql", "pg":
	default:
		return nil, nil, usagef("--engine %q: want sqlite or postgres", e.engine)
	}
	if e.suite {
		return nil, nil, usagef("--suite needs --engine sqlite")
	}
	if e.pgDSN == "" {
		return nil, nil, usagef("--engine postgres needs --pg-dsn or $%s", pgDSNEnv)
	}
	// The per-dialect "SQL_postgres" fields are in the benchmark's
	// question file, or with a gold file in --questions.
	questions := gb.Questions
	if e.gold != "" {
		questions = e.questions
	}
	return translate.OpenPostgresGold(ctx, sqlexec.PostgresOptions{DSN: e.pgDSN, Limits: lim}, gb.Examples, questions, e.goldDialect)
}

// predictions are the gold itself or the --pred file's, aligned with exs
// (and translated for PostgreSQL when asked).
func (e *evalCmd) predictions(ctx context.Context, exs []dataset.Example, pgTr *translate.Catalog) ([]*dataset.Prediction, error) {
	if e.goldAsPred {
		preds := make([]*dataset.Prediction, len(exs))
		for i, ex := range exs {
			preds[i] = &dataset.Prediction{Index: i, QuestionID: ex.QuestionID, SQL: ex.SQL}
		}
		return preds, nil
	}
	raw, err := dataset.ReadPredictions(e.pred)
	if err != nil {
		return nil, err
	}
	preds, err := dataset.Align(e.pred, exs, raw)
	if err != nil {
		return nil, err
	}
	if e.trPred && pgTr != nil {
		err = pgTr.Predictions(ctx, exs, preds)
	}
	return preds, err
}

func (e *evalCmd) write(rep *eval.Report, n int, m eval.Mode, engineDesc string) error {
	if e.jsonOut != "-" {
		if err := rep.WriteTable(os.Stdout); err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, "\n%d questions in %v (%s, %s)\n", n, rep.Elapsed.Round(time.Millisecond), m, engineDesc)
	}
	if e.jsonOut != "" {
		if err := writeJSON(e.jsonOut, rep); err != nil {
			return err
		}
	}
	if e.verdicts != "" {
		return eval.WriteVerdicts(e.verdicts, rep.Questions)
	}
	return nil
}

func writeJSON(path string, v any) error {
	var w io.Writer = os.Stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}
