package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		help: `Executes every prediction and its gold SQL read-only and compares the results exactly as
BIRD's evaluation.py (--mode bird: set equality) or the Spider test-suite evaluator
(--mode spider: bags, ORDER BY as lists, column permutations) does.

The gold side is a benchmark directory (--data, BIRD or Spider layout) or a gold file of
"SQL<TAB>db_id" lines (--gold with --db-root; --questions adds difficulties from a
BIRD/Spider question file). Predictions may be BIRD's JSON ({"0": "SQL\t----- bird -----\tdb"}),
sqlrl's JSONL ({"question_id", "sql", "candidates"}) or one SQL per line (Spider).

examples:
  sqlrl eval --gold-as-pred
  sqlrl eval --data datasets/bird-dev-sample --pred predict_dev.json --json report.json
  sqlrl eval --gold dev_gold.sql --db-root dev_databases --questions dev.json --pred preds.jsonl`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			data := fs.String("data", defaultData, "benchmark `dir` (BIRD or Spider layout)")
			split := addSplitFlags(fs)
			gold := fs.String("gold", "", "gold `file` of SQL<TAB>db_id lines, instead of --data")
			dbRoot := fs.String("db-root", "", "`dir` holding <db>/<db>.sqlite (default: the benchmark's)")
			questions := fs.String("questions", "", "question `file` (BIRD/Spider JSON) giving difficulties for --gold")
			pred := fs.String("pred", "", "predictions `file`")
			goldAsPred := fs.Bool("gold-as-pred", false, "use the gold SQL as the predictions (sanity check: must score 100)")
			mode := fs.String("mode", "", "metric: bird or spider (default: from the benchmark's layout)")
			timeout := fs.Duration("timeout", 0, "time limit: for the pred+gold pair (bird, default 30s) or per query (spider, default 60s)")
			workers := fs.Int("workers", 0, "parallel workers (default: number of CPUs)")
			jsonOut := fs.String("json", "", "write the full report (summary and per-question verdicts) as JSON to `file` (- for stdout)")
			verdicts := fs.String("verdicts", "", "write per-question verdicts as JSONL to `file`")
			ves := fs.Int("ves", 0, "time each correct pair `N` times and report VES and R-VES (BIRD uses 100)")
			ks := fs.String("k", "1,5,8", "pass@k values to report when predictions carry candidates")
			suite := fs.Bool("suite", false, "spider: match on every .sqlite file in the db's directory (test-suite evaluation)")
			keepDistinct := fs.Bool("keep-distinct", false, "spider: do not remove DISTINCT before execution")
			softF1 := fs.Bool("soft-f1", false, "bird: also compute mini-dev's Soft-F1 (runs every prediction to its last row instead of stopping wrong ones early)")
			noCache := fs.Bool("no-cache", false, "execute identical predictions again instead of reusing their result")
			maxRows := fs.Int("max-rows", 0, "fail a query that returns more than `N` rows (0: no cap; the official scripts have none)")
			maxBytes := fs.Int("max-bytes", sqlexec.DefaultMaxResultBytes, "fail a query whose rows hold more than `N` bytes of memory (0: no cap; the default is far above any BIRD or Spider gold)")
			quiet := fs.Bool("quiet", false, "no progress bar")
			engineName := fs.String("engine", "sqlite", "execution engine: sqlite, or postgres (databases copied by 'sqlrl db copy'; gold SQL translated, or from SQL_postgres / --gold-dialect-file)")
			pgDSN := fs.String("pg-dsn", os.Getenv(pgDSNEnv), "postgres: `DSN` of a read-only role (default $"+pgDSNEnv+")")
			goldDialect := fs.String("gold-dialect-file", "", "postgres: JSONL `file` of {\"question_id\", \"SQL\"}: PostgreSQL gold SQL used instead of the translation")
			translatePred := fs.Bool("translate-pred", false, "postgres: the predictions are SQLite SQL; translate them as the gold is")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				if (*pred == "") == !*goldAsPred {
					return usagef("give exactly one of --pred FILE or --gold-as-pred")
				}
				if *gold != "" && *dbRoot == "" {
					return usagef("--gold needs --db-root")
				}
				gb, err := dataset.LoadGold(dataset.GoldSource{Dir: *data, Split: *split.split, Parts: split.parts(),
					GoldFile: *gold, DBRoot: *dbRoot, Questions: *questions})
				if err != nil {
					return err
				}
				for _, w := range gb.Warnings {
					fmt.Fprintln(os.Stderr, "warning:", w)
				}
				examples, layout, root, src := gb.Examples, gb.Layout, gb.DBRoot, gb.Questions
				lim := sqlexec.Limits{MaxRows: *maxRows, MaxBytes: *maxBytes}
				var pg *sqlexec.Postgres
				var pgTr *translate.Catalog
				switch *engineName {
				case "sqlite":
				case "postgres", "postgresql", "pg":
					if *suite {
						return usagef("--suite needs --engine sqlite")
					}
					if pg, pgTr, err = postgresEval(ctx, *pgDSN, lim, examples, questionsFile(src, *gold, *questions), *goldDialect); err != nil {
						return err
					}
					defer pg.Close()
				default:
					return usagef("--engine %q: want sqlite or postgres", *engineName)
				}
				var preds []*dataset.Prediction
				if *goldAsPred {
					preds = make([]*dataset.Prediction, len(examples))
					for i, ex := range examples {
						preds[i] = &dataset.Prediction{Index: i, QuestionID: ex.QuestionID, SQL: ex.SQL}
					}
				} else {
					raw, err := dataset.ReadPredictions(*pred)
					if err != nil {
						return err
					}
					if preds, err = dataset.Align(*pred, examples, raw); err != nil {
						return err
					}
					if *translatePred && pgTr != nil {
						if err := pgTr.Predictions(ctx, examples, preds); err != nil {
							return err
						}
					}
				}
				m := eval.Mode(*mode)
				switch m {
				case "":
					m = eval.ModeBIRD
					if layout == dataset.LayoutSpider {
						m = eval.ModeSpider
					}
				case eval.ModeBIRD, eval.ModeSpider:
				default:
					return usagef("--mode %q: want bird or spider", *mode)
				}
				var kvals []int
				for _, f := range strings.Split(*ks, ",") {
					if f = strings.TrimSpace(f); f == "" {
						continue
					}
					k, err := strconv.Atoi(f)
					if err != nil || k <= 0 {
						return usagef("--k: %q is not a positive integer", f)
					}
					kvals = append(kvals, k)
				}
				sqlite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root, Limits: lim})
				defer sqlite.Close()
				// A broken database file must stop the run before a score is
				// printed; the engine's Check names the file.
				if c, ok := any(sqlite).(eval.DBChecker); ok && pg == nil {
					if err := eval.CheckDatabases(ctx, c, src, examples); err != nil {
						return err
					}
				}
				var engine sqlexec.Engine = sqlite
				engineDesc := fmt.Sprintf("%s, SQLite %s", sqlexec.Driver, sqlexec.Version)
				if pg != nil {
					engine, engineDesc = pg, "PostgreSQL "+pg.ServerVersion()
				}
				scorer := &eval.Scorer{Engine: engine, Mode: m, Timeout: *timeout, CachePredictions: !*noCache, KeepDistinct: *keepDistinct, SoftF1: *softF1}
				if *suite {
					scorer.Suite = suiteOf(sqlite)
				}
				levels := []string{"simple", "moderate", "challenging"}
				if m == eval.ModeSpider {
					levels = []string{"easy", "medium", "hard", "extra"}
				}
				var bar *progress.Bar
				if !*quiet {
					bar = progress.New(os.Stderr, "eval", len(examples))
				}
				rep, err := eval.Run(ctx, scorer, examples, preds, eval.Options{
					Workers: *workers, Progress: func(d, _ int) { bar.Set(d) }, VESIterations: *ves, Ks: kvals, Levels: levels,
				})
				bar.Finish()
				if err != nil {
					return err
				}
				if *jsonOut != "-" {
					if err := rep.WriteTable(os.Stdout); err != nil {
						return err
					}
					fmt.Fprintf(os.Stdout, "\n%d questions in %v (%s, %s)\n", len(examples),
						rep.Elapsed.Round(time.Millisecond), m, engineDesc)
				}
				if *jsonOut != "" {
					if err := writeJSON(*jsonOut, rep); err != nil {
						return err
					}
				}
				if *verdicts != "" {
					if err := writeVerdicts(*verdicts, rep.Questions); err != nil {
						return err
					}
				}
				return nil
			}
		},
	})
}

// suiteOf lists every .sqlite file beside a database's own, as the Spider
// test-suite evaluator does.
func suiteOf(e *sqlexec.SQLite) func(db string) []string {
	return func(db string) []string {
		own := e.Path(db)
		matches, _ := filepath.Glob(filepath.Join(filepath.Dir(own), "*.sqlite*"))
		if len(matches) == 0 {
			return []string{own}
		}
		return matches
	}
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

func writeVerdicts(path string, qs []eval.QuestionResult) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write verdicts: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for i := range qs {
		if err := enc.Encode(&qs[i]); err != nil {
			f.Close()
			return fmt.Errorf("write verdicts %s: %w", path, err)
		}
	}
	return f.Close()
}
