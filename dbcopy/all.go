package dbcopy

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// AllOptions configure CopyAll.
type AllOptions struct {
	// Replace drops and copies again a schema that already exists.
	Replace bool
	// ReadOnlyRole, when set, is created or refreshed and may then read the
	// copied schemas (sqlexec.PostgresReadOnlyRoleSQL).
	ReadOnlyRole string
	// Progress gets a progress bar over all rows; nil shows none.
	Progress io.Writer
	// Out gets a summary line per database; nil discards.
	Out io.Writer
}

// CopyAll connects to dsn, plans every source first (so that progress
// knows the total), then copies them one by one over that one connection,
// and finally sets up the read-only role. It returns the reports of the
// databases copied, also when it fails part way.
func CopyAll(ctx context.Context, dsn string, srcs []Source, o AllOptions) ([]*Report, error) {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	plans := make([]*Plan, len(srcs))
	var total int64
	for i, s := range srcs {
		if plans[i], err = PlanCopy(ctx, s); err != nil {
			return nil, err
		}
		total += plans[i].Rows()
	}
	var bar *progress.Bar
	if o.Progress != nil {
		bar = progress.New(o.Progress, "copy", int(total))
	}
	var reps []*Report
	var done int64
	start := time.Now()
	for _, p := range plans {
		base := done
		rep, err := Copy(ctx, conn, p, Options{Replace: o.Replace, Progress: func(n int64) { bar.Set(int(base + n)) }})
		if err != nil {
			bar.Finish()
			return reps, err
		}
		done += rep.Rows
		reps = append(reps, rep)
	}
	bar.Finish()
	writeSummary(out, reps, done, time.Since(start))
	if o.ReadOnlyRole == "" {
		return reps, nil
	}
	return reps, grantReadOnly(ctx, conn, dsn, o.ReadOnlyRole, reps, out)
}

// writeSummary prints a line per database and, for several, the total.
func writeSummary(out io.Writer, reps []*Report, rows int64, el time.Duration) {
	for _, r := range reps {
		fmt.Fprintf(out, "%s: %d tables, %d rows in %v (%.0f rows/s); %d primary keys, %d foreign keys, %d indexes\n",
			r.DB, r.Tables, r.Rows, r.Elapsed.Round(time.Millisecond), r.RowsPerSecond(), r.PrimaryKeys, r.ForeignKeys, r.Indexes)
		for _, s := range r.Skipped {
			fmt.Fprintf(out, "  skipped %s\n", s)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(out, "  note: %s\n", n)
		}
	}
	if len(reps) > 1 {
		fmt.Fprintf(out, "total: %d databases, %d rows in %v (%.0f rows/s)\n", len(reps), rows, el.Round(time.Millisecond), float64(rows)/el.Seconds())
	}
}

// grantReadOnly creates or refreshes role and lets it read the schemas of
// reps in the connection's database.
func grantReadOnly(ctx context.Context, conn *pgx.Conn, dsn, role string, reps []*Report, out io.Writer) error {
	var database string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&database); err != nil {
		return fmt.Errorf("read-only role: %w", err)
	}
	var schemas []string
	for _, r := range reps {
		schemas = append(schemas, r.Schema)
	}
	stmts, err := sqlexec.PostgresReadOnlyRoleSQL(role, database, schemas)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("read-only role %s: %s: %w", role, strings.SplitN(s, "\n", 2)[0], err)
		}
	}
	fmt.Fprintf(out, "role %s can read schemas %s; evaluate with --pg-dsn '%s'\n", role, strings.Join(schemas, ", "), DSNWithUser(dsn, role))
	return nil
}

// DSNWithUser is dsn logging in as user instead (no password: set one with
// ALTER ROLE, or rely on the server's trust/peer rules, as the test server
// does).
func DSNWithUser(dsn, user string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.User = url.User(user)
		return u.String()
	}
	return dsn + " user=" + user
}
