package askserver

import (
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/internal/pgtest"
)

// TestPostgresBrowser: the schema browser, example questions and
// /api/run on the bundled superhero copied into PostgreSQL (skipped
// without $SQLRL_PG_DSN), with a comment on one column as its
// description.
func TestPostgresBrowser(t *testing.T) {
	d := pgtest.CopySample(t)
	pgtest.Exec(t, d.Admin, `COMMENT ON COLUMN superhero.superhero.height_cm IS 'height in centimetres'`, `COMMENT ON TABLE superhero.colour IS 'colours of eyes, hair and skin'`)
	_, ts := newAnalystTest(t, &fakeGen{}, func(c *Config) {
		c.Databases = map[string]DatabaseConfig{
			"superhero": {Postgres: d.ReadOnly, Schema: "superhero"},
			"club":      {Postgres: d.ReadOnly, Schema: "student_club"},
		}
	})
	var sj SchemaJSON
	if code := getJSON(t, ts, "/api/databases/superhero/schema", &sj); code != 200 || sj.Engine != "postgres" || len(sj.Tables) != 10 {
		t.Fatalf("%d %+v", code, sj)
	}
	found := 0
	for _, tj := range sj.Tables {
		if tj.Name == "colour" && (tj.Description != "colours of eyes, hair and skin" || tj.Rows == nil || *tj.Rows != 35) {
			t.Errorf("colour: %+v", tj)
		}
		for _, c := range tj.Columns {
			switch {
			case tj.Name == "superhero" && c.Name == "height_cm":
				found++
				if c.Description != "height in centimetres" || len(c.Examples) != 3 {
					t.Errorf("height_cm: %+v", c)
				}
			case tj.Name == "superhero" && c.Name == "id":
				found++
				if !c.PrimaryKey || c.References != "" {
					t.Errorf("superhero.id: %+v", c)
				}
			case tj.Name == "superhero" && c.Name == "eye_colour_id":
				found++
				if c.PrimaryKey || c.References != "colour.id" {
					t.Errorf("eye_colour_id: %+v", c)
				}
			case tj.Name == "superhero" && c.Name == "superhero_name":
				found++
				if strings.Join(c.Examples, "|") == "" || c.Description != "" {
					t.Errorf("superhero_name: %+v", c)
				}
			}
		}
	}
	if found != 4 || len(sj.Notes) != 0 {
		t.Errorf("columns found %d, notes %q", found, sj.Notes)
	}
	var club SchemaJSON
	if getJSON(t, ts, "/api/databases/club/schema", &club); !strings.Contains(strings.Join(club.Notes, ";"), "descriptions not available") {
		t.Errorf("no comments, notes %q", club.Notes)
	}
	// the question generator reads SQLite only for now: none, and a note
	// that says what to do
	for _, db := range []string{"superhero", "club"} {
		var ex ExamplesJSON
		if code := getJSON(t, ts, "/api/databases/"+db+"/examples", &ex); code != 200 || len(ex.Examples) != 0 || !strings.Contains(ex.Note, "databases."+db+".examples") {
			t.Errorf("%s examples: %d %+v", db, code, ex)
		}
	}
	_, out := call(t, ts, "POST", "/api/run", analystKey, map[string]any{"db": "club", "sql": "SELECT substr(event_date, 1, 7) AS month, COUNT(*) FROM event GROUP BY month ORDER BY month"})
	if ch, _ := out["chart"].(map[string]any); ch == nil || ch["kind"] != "line" {
		t.Errorf("run on PostgreSQL: %v", out)
	}
}
