package specialise

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/pgtest"
)

// TestRunPostgres specialises to the bundled sample's superhero copied into
// PostgreSQL, read by a role without SELECT on one table: the snapshot is
// what is generated over and served, the stamp names the source, the
// benchmark names the skipped table, and a second run finds everything
// done.
func TestRunPostgres(t *testing.T) {
	db := pgtest.CopySample(t)
	pgtest.Exec(t, db.Admin, "REVOKE SELECT ON superhero.hero_power FROM "+db.Role)
	dsn := strings.Replace(db.ReadOnly, "@", ":hunter2@", 1) // trust authentication ignores it
	o := quickOptions(t, dsn)
	o.Command += " -db " + dsn
	o.Snapshot.Schema = "superhero"
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var stamp Stamp
	raw, err := os.ReadFile(filepath.Join(o.Out, StampFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &stamp); err != nil {
		t.Fatal(err)
	}
	d := stamp.Databases[0]
	if d.DBID != "superhero" || !strings.HasSuffix(d.Source, "schema superhero") || strings.Contains(d.Source, "hunter2") ||
		!strings.HasPrefix(d.Path, filepath.Join(o.Out, SnapshotDir)+string(filepath.Separator)) || !strings.Contains(d.Path, d.SHA256[:12]) {
		t.Errorf("stamp database %+v: want the snapshot under %s named by its sha256, and its source", d, SnapshotDir)
	}
	serve, err := os.ReadFile(filepath.Join(o.Out, ServeFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(serve), filepath.Base(d.Path)) {
		t.Errorf("serve.json does not serve the snapshot:\n%s", serve)
	}
	gen, err := os.ReadFile(filepath.Join(o.Out, DataDir, "generation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gen), "table hero_power: permission denied") {
		t.Errorf("generation.json does not name the table the role cannot read:\n%s", gen)
	}
	report, err := os.ReadFile(filepath.Join(o.Out, ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(report), "hunter2") || !strings.Contains(string(report), ":xxxxx@") {
		t.Errorf("report.md shows the password or not the DSN:\n%s", report)
	}
	if !res.Generated {
		t.Error("first run: questions not generated")
	}
	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Generated || again.Trained {
		t.Errorf("second run generated %v, trained %v: want both reused", again.Generated, again.Trained)
	}
	if left, _ := filepath.Glob(filepath.Join(o.Out, SnapshotDir, "new-*")); len(left) > 0 {
		t.Errorf("temporary snapshots left: %v", left)
	}
}
