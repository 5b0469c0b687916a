package dbgen

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// sampleDB is a database of the bundled BIRD sample (its databases and
// descriptions only; never its questions).
func sampleDB(name string) string {
	return filepath.Join("..", "datasets", "bird-dev-sample", "dev_databases", name, name+".sqlite")
}

func introspect(t *testing.T, path string, o IntrospectOptions) *Database {
	t.Helper()
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{})
	t.Cleanup(func() { eng.Close() })
	d, err := Introspect(context.Background(), eng, path, o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fixture builds a database in a temporary folder from a SQL script.
func fixture(t *testing.T, name, script string) string { return testkit.SQLiteFile(t, name, script) }

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
