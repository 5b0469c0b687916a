package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// DBChecker is the part of an engine that can tell, without running a
// query, whether a database is one it will open (sqlexec.SQLite has it).
// Declared here, where it is used, so that an engine without it still
// serves the evaluator.
type DBChecker interface {
	Check(db string) error
}

// CheckDatabases checks every database the questions reference before any
// is scored. A missing, truncated or non-SQLite file would otherwise fail
// every gold on it, scoring its questions as errors and printing an EX
// that means nothing; the error names the first question on each database
// and the checker's message names the file.
func CheckDatabases(ctx context.Context, c DBChecker, questions string, examples []dataset.Example) error {
	seen := map[string]bool{}
	var errs []error
	for _, ex := range examples {
		if seen[ex.DBID] {
			continue
		}
		seen[ex.DBID] = true
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.Check(ex.DBID); err != nil {
			errs = append(errs, fmt.Errorf("%s: record %d (question_id %d, db_id %q): %w", questions, ex.Index, ex.QuestionID, ex.DBID, err))
		}
	}
	return errors.Join(errs...)
}

// goldNoDatabase is the error that stops Run when a gold query could not
// open its database: a check before the run missed it (the file changed, or
// the engine has no Check), and every score after it would be made up.
func goldNoDatabase(ex *dataset.Example, o *Outcome) error {
	if o.Class != ClassGoldError {
		return nil
	}
	// Spider mode's gold_error carries no GoldClass, only the engine's
	// message, which starts with the class.
	noDB := string(sqlexec.ClassNoDatabase)
	if o.GoldClass != noDB && !(o.GoldClass == "" && strings.HasPrefix(o.Error, noDB+": ")) {
		return nil
	}
	return fmt.Errorf("eval: question %d (index %d) on database %q: the gold query could not open its database: %s", ex.QuestionID, ex.Index, ex.DBID, o.Error)
}
