package eval

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/translate"
)

// Config is an evaluation as `sqlrl eval` runs it: the gold, the
// predictions, the engine and the scoring settings. Flags binds it to a
// command's flags; Evaluate runs it.
type Config struct {
	Gold dataset.GoldSource
	// Pred is the predictions file; GoldAsPred scores the gold itself.
	Pred       string
	GoldAsPred bool
	// Mode is bird, spider or "" (the benchmark's); Ks the pass@k values.
	Mode                                 string
	Ks                                   string
	Timeout                              time.Duration
	Workers                              int
	VES                                  int
	Suite, KeepDistinct, SoftF1, NoCache bool
	MaxRows, MaxBytes                    int
	// Engine is sqlite or postgres; PGDSN, GoldDialect and TranslatePred
	// are PostgreSQL's (translate.OpenPostgresGold).
	Engine, PGDSN, GoldDialect string
	TranslatePred              bool
	// Warn gets the gold's warnings; nil discards. Progress is called
	// after each question.
	Warn     io.Writer
	Progress progress.Func
}

// Flags declares the evaluation's flags on fs, defaulting to c, except the
// benchmark directory and split, which the caller binds to c.Gold.
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Gold.GoldFile, "gold", c.Gold.GoldFile, "gold `file` of SQL<TAB>db_id lines, instead of --data")
	fs.StringVar(&c.Gold.DBRoot, "db-root", c.Gold.DBRoot, "`dir` holding <db>/<db>.sqlite (default: the benchmark's)")
	fs.StringVar(&c.Gold.Questions, "questions", c.Gold.Questions, "question `file` (BIRD/Spider JSON) giving difficulties for --gold")
	fs.StringVar(&c.Pred, "pred", c.Pred, "predictions `file`")
	fs.BoolVar(&c.GoldAsPred, "gold-as-pred", c.GoldAsPred, "use the gold SQL as the predictions (sanity check: must score 100)")
	fs.StringVar(&c.Mode, "mode", c.Mode, "metric: bird or spider (default: from the benchmark's layout)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "time limit: for the pred+gold pair (bird, default 30s) or per query (spider, default 60s)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "parallel workers (default: number of CPUs)")
	fs.IntVar(&c.VES, "ves", c.VES, "time each correct pair `N` times and report VES and R-VES (BIRD uses 100)")
	fs.StringVar(&c.Ks, "k", c.Ks, "pass@k values to report when predictions carry candidates")
	fs.BoolVar(&c.Suite, "suite", c.Suite, "spider: match on every .sqlite file in the db's directory (test-suite evaluation)")
	fs.BoolVar(&c.KeepDistinct, "keep-distinct", c.KeepDistinct, "spider: do not remove DISTINCT before execution")
	fs.BoolVar(&c.SoftF1, "soft-f1", c.SoftF1, "bird: also compute mini-dev's Soft-F1 (runs every prediction to its last row instead of stopping wrong ones early)")
	fs.BoolVar(&c.NoCache, "no-cache", c.NoCache, "execute identical predictions again instead of reusing their result")
	fs.IntVar(&c.MaxRows, "max-rows", c.MaxRows, "fail a query that returns more than `N` rows (0: no cap; the official scripts have none)")
	fs.IntVar(&c.MaxBytes, "max-bytes", c.MaxBytes, "fail a query whose rows hold more than `N` bytes of memory (0: no cap)")
	fs.StringVar(&c.Engine, "engine", c.Engine, "execution engine: sqlite, or postgres (databases copied by 'sqlrl db copy'; gold SQL translated, or from SQL_postgres / --gold-dialect-file)")
	fs.StringVar(&c.PGDSN, "pg-dsn", c.PGDSN, "postgres: `DSN` of a read-only role")
	fs.StringVar(&c.GoldDialect, "gold-dialect-file", c.GoldDialect, "postgres: JSONL `file` of {\"question_id\", \"SQL\"}: PostgreSQL gold SQL used instead of the translation")
	fs.BoolVar(&c.TranslatePred, "translate-pred", c.TranslatePred, "postgres: the predictions are SQLite SQL; translate them as the gold is")
}

// Check refuses settings that do not go together, naming the flags,
// before anything is read.
func (c *Config) Check() error {
	if c.Mode != "" {
		if _, err := ParseMode(c.Mode, ""); err != nil {
			return fmt.Errorf("--mode %v", err)
		}
	}
	if _, err := ParseKs(c.Ks); err != nil {
		return fmt.Errorf("--k: %v", err)
	}
	switch {
	case (c.Pred == "") == !c.GoldAsPred:
		return errors.New("give exactly one of --pred FILE or --gold-as-pred")
	case c.Gold.GoldFile != "" && c.Gold.DBRoot == "":
		return errors.New("--gold needs --db-root")
	case c.Engine != "sqlite" && !c.postgres():
		return fmt.Errorf("--engine %q: want sqlite or postgres", c.Engine)
	case c.postgres() && c.Suite:
		return errors.New("--suite needs --engine sqlite")
	case c.postgres() && c.PGDSN == "":
		return errors.New("--engine postgres needs --pg-dsn")
	}
	return nil
}

func (c *Config) postgres() bool {
	return c.Engine == "postgres" || c.Engine == "postgresql" || c.Engine == "pg"
}

// Evaluation is what Evaluate scored, and how.
type Evaluation struct {
	*Report
	Mode Mode
	// Engine names the engine and its version; Examples is the number of
	// questions scored.
	Engine   string
	Examples int
}

// WriteText prints the report's table and a line of what was run.
func (e *Evaluation) WriteText(w io.Writer) error {
	if err := e.WriteTable(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d questions in %v (%s, %s)\n", e.Examples, e.Elapsed.Round(time.Millisecond), e.Mode, e.Engine)
	return err
}

// Evaluate loads the gold, opens the engine (for PostgreSQL with the gold
// rewritten for it), reads the predictions and scores them. A broken
// SQLite database file stops it before anything is scored.
func Evaluate(ctx context.Context, c Config) (*Evaluation, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	gb, err := dataset.LoadGold(c.Gold)
	if err != nil {
		return nil, err
	}
	if c.Warn != nil {
		for _, w := range gb.Warnings {
			fmt.Fprintln(c.Warn, "warning:", w)
		}
	}
	lim := sqlexec.Limits{MaxRows: c.MaxRows, MaxBytes: c.MaxBytes}
	var pg *sqlexec.Postgres
	var pgTr *translate.Catalog
	if c.postgres() {
		// The per-dialect "SQL_postgres" fields are in the benchmark's
		// question file, or with a gold file in Questions.
		questions := gb.Questions
		if c.Gold.GoldFile != "" {
			questions = c.Gold.Questions
		}
		if pg, pgTr, err = translate.OpenPostgresGold(ctx, sqlexec.PostgresOptions{DSN: c.PGDSN, Limits: lim}, gb.Examples, questions, c.GoldDialect); err != nil {
			return nil, err
		}
		defer pg.Close()
	}
	preds, err := c.predictions(ctx, gb.Examples, pgTr)
	if err != nil {
		return nil, err
	}
	sqlite := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: gb.DBRoot, Limits: lim})
	defer sqlite.Close()
	if pg == nil {
		if err := CheckDatabases(ctx, sqlite, gb.Questions, gb.Examples); err != nil {
			return nil, err
		}
	}
	return c.score(ctx, gb, preds, sqlite, pg)
}

// score runs the scorer over the predictions on PostgreSQL when pg is
// set, else on sqlite.
func (c *Config) score(ctx context.Context, gb *dataset.Benchmark, preds []*dataset.Prediction, sqlite *sqlexec.SQLite, pg *sqlexec.Postgres) (*Evaluation, error) {
	m, _ := ParseMode(c.Mode, gb.Layout)
	ks, _ := ParseKs(c.Ks)
	ev := &Evaluation{Mode: m, Engine: fmt.Sprintf("%s, SQLite %s", sqlexec.Driver, sqlexec.Version), Examples: len(gb.Examples)}
	var engine sqlexec.Engine = sqlite
	if pg != nil {
		engine, ev.Engine = pg, "PostgreSQL "+pg.ServerVersion()
	}
	scorer := &Scorer{Engine: engine, Mode: m, Timeout: c.Timeout, CachePredictions: !c.NoCache, KeepDistinct: c.KeepDistinct, SoftF1: c.SoftF1}
	if c.Suite {
		scorer.Suite = SuiteOf(sqlite)
	}
	var err error
	ev.Report, err = Run(ctx, scorer, gb.Examples, preds, Options{
		Workers: c.Workers, Progress: c.Progress, VESIterations: c.VES, Ks: ks, Levels: Levels(m),
	})
	return ev, err
}

// predictions are the gold itself or the Pred file's, aligned with exs
// (and translated for PostgreSQL when asked).
func (c *Config) predictions(ctx context.Context, exs []dataset.Example, pgTr *translate.Catalog) ([]*dataset.Prediction, error) {
	if c.GoldAsPred {
		preds := make([]*dataset.Prediction, len(exs))
		for i, ex := range exs {
			preds[i] = &dataset.Prediction{Index: i, QuestionID: ex.QuestionID, SQL: ex.SQL}
		}
		return preds, nil
	}
	raw, err := dataset.ReadPredictions(c.Pred)
	if err != nil {
		return nil, err
	}
	preds, err := dataset.Align(c.Pred, exs, raw)
	if err != nil {
		return nil, err
	}
	if c.TranslatePred && pgTr != nil {
		err = pgTr.Predictions(ctx, exs, preds)
	}
	return preds, err
}
