package translate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/jsonl"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// Querier runs one SQL statement in schema db. *sqlexec.Postgres is one; it
// is an interface so that a caller holding any engine of the copied
// databases (the reward server, a test) can translate without opening
// another.
type Querier interface {
	Query(ctx context.Context, db, sql string) (*sqlexec.Result, error)
}

// Catalog translates SQLite SQL for the PostgreSQL copies of the benchmark
// databases: ToPostgres needs each schema's exact table and column names
// and column types, which Catalog reads from information_schema once per
// schema and keeps. It is safe for concurrent use.
type Catalog struct {
	q    Querier
	mu   sync.Mutex
	opts map[string]*Options
}

// NewCatalog reads schemas through q (as the read-only role: it only reads
// information_schema).
func NewCatalog(q Querier) *Catalog {
	return &Catalog{q: q, opts: map[string]*Options{}}
}

// Options returns what the translator needs to know about schema db. A
// missing schema gives empty options, not an error: a query on it then
// fails on PostgreSQL as it does on SQLite when the database file is
// missing, and is scored the same way.
func (c *Catalog) Options(ctx context.Context, db string) (*Options, error) {
	c.mu.Lock()
	opts, ok := c.opts[db]
	c.mu.Unlock()
	if ok {
		return opts, nil
	}
	opts, err := readOptions(ctx, c.q, db)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.opts[db]; ok { // a concurrent caller read it first
		return prev, nil
	}
	c.opts[db] = opts
	return opts, nil
}

func readOptions(ctx context.Context, q Querier, db string) (*Options, error) {
	opts := &Options{Types: map[string]string{}}
	res, err := q.Query(ctx, db, `SELECT table_name::text, NULL::text FROM information_schema.tables WHERE table_schema = current_schema()
		UNION ALL SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = current_schema()`)
	if sqlexec.ClassOf(err) == sqlexec.ClassNoDatabase {
		return opts, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the names of schema %q: %w", db, err)
	}
	for _, r := range res.Rows {
		name := r[0].S
		opts.Names = append(opts.Names, name)
		if r[1].Kind == sqlexec.KindNull {
			continue
		}
		if typ, seen := opts.Types[name]; seen && typ != r[1].S {
			opts.Types[name] = "" // same name, different types
			continue
		}
		opts.Types[name] = r[1].S
	}
	return opts, nil
}

// ToPostgres translates SQLite SQL meant for database db (ToPostgres with
// db's names and types). Only reading the catalog can fail.
func (c *Catalog) ToPostgres(ctx context.Context, db, sql string) (string, error) {
	opts, err := c.Options(ctx, db)
	if err != nil {
		return "", err
	}
	return ToPostgres(sql, *opts).SQL, nil
}

// GoldOverrides are hand-written PostgreSQL gold SQL, which wins over the
// translation of the SQLite gold: the translator does not cover every
// SQLite construct (docs/postgres.md), and a person can write the few it
// misses.
type GoldOverrides struct {
	// ByQuestionID: from a gold dialect file (ReadGoldDialectFile), keyed by
	// the example's QuestionID. Wins over ByIndex.
	ByQuestionID map[int]string
	// ByIndex: the "SQL_postgres" fields of the question file
	// (ReadSQLPostgres), keyed by the example's Index (record position).
	ByIndex map[int]string
}

// Gold rewrites every example's gold SQL (ex.SQL) for PostgreSQL, before
// anything runs: an override when there is one, else the SQLite gold
// translated with its database's catalog.
func (c *Catalog) Gold(ctx context.Context, exs []dataset.Example, over GoldOverrides) error {
	for i := range exs {
		ex := &exs[i]
		if s, ok := over.ByQuestionID[ex.QuestionID]; ok {
			ex.SQL = s
			continue
		}
		if s, ok := over.ByIndex[ex.Index]; ok {
			ex.SQL = s
			continue
		}
		var err error
		if ex.SQL, err = c.ToPostgres(ctx, ex.DBID, ex.SQL); err != nil {
			return err
		}
	}
	return nil
}

// Predictions translates SQLite-dialect predictions and their candidates in
// place (preds[i] answers exs[i], as dataset.Align returns them; nil entries
// are skipped), for models that write SQLite SQL scored on PostgreSQL.
func (c *Catalog) Predictions(ctx context.Context, exs []dataset.Example, preds []*dataset.Prediction) error {
	for i, p := range preds {
		if p == nil {
			continue
		}
		var err error
		if p.SQL, err = c.ToPostgres(ctx, exs[i].DBID, p.SQL); err != nil {
			return err
		}
		for k, s := range p.Candidates {
			if p.Candidates[k], err = c.ToPostgres(ctx, exs[i].DBID, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadSQLPostgres reads the optional "SQL_postgres" field of each record of
// a BIRD/Spider question file (a JSON array), keyed by record index: a
// benchmark can ship PostgreSQL golds beside the SQLite ones, and the
// dataset loaders ignore the field.
func ReadSQLPostgres(path string) (map[int]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read per-dialect gold: %w", err)
	}
	var recs []struct {
		SQLPostgres *string `json:"SQL_postgres"`
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("read per-dialect gold: %s: %w", path, err)
	}
	out := map[int]string{}
	for i, r := range recs {
		if r.SQLPostgres != nil {
			out[i] = *r.SQLPostgres
		}
	}
	return out, nil
}

// ReadGoldDialectFile reads PostgreSQL gold SQL overrides, JSON Lines
// {"question_id": N, "SQL": "..."} (question_id is Spider's 0-based index),
// keyed by question id: golds kept apart from the benchmark's files. A
// question given twice is an error, since which one wins would be a guess.
func ReadGoldDialectFile(path string) (map[int]string, error) {
	out := map[int]string{}
	err := jsonl.ReadFile(path, func(_ int, line []byte) error {
		var r struct {
			QuestionID *int    `json:"question_id"`
			SQL        *string `json:"SQL"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if r.QuestionID == nil || r.SQL == nil {
			return errors.New("want {\"question_id\": N, \"SQL\": \"...\"}")
		}
		if _, dup := out[*r.QuestionID]; dup {
			return fmt.Errorf("question_id %d given twice", *r.QuestionID)
		}
		out[*r.QuestionID] = *r.SQL
		return nil
	})
	if err != nil {
		if le := (*jsonl.LineError)(nil); !errors.As(err, &le) {
			err = fmt.Errorf("read gold dialect file: %w", err) // the file could not be read
		}
		return nil, err
	}
	return out, nil
}
