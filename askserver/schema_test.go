package askserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newBrowseTest serves copies of the bundled databases in a temporary
// folder: superhero with its database_description/, "bare" (superhero's
// file alone: no descriptions) and student_club, with the examples given
// for student_club in the config, if any.
func newBrowseTest(t *testing.T, clubExamples []ExampleQuestion) (*Server, *httptest.Server) {
	t.Helper()
	dir := t.TempDir()
	for _, db := range []string{"superhero", "student_club"} {
		if err := os.CopyFS(filepath.Join(dir, db), os.DirFS(filepath.Dir(benchDB(t, db)))); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(benchDB(t, "superhero"))
	if err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare", "bare.sqlite")
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bare, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newAnalystTest(t, &fakeGen{}, func(c *Config) {
		c.Databases = map[string]DatabaseConfig{
			"superhero":    {SQLite: filepath.Join(dir, "superhero", "superhero.sqlite")},
			"student_club": {SQLite: filepath.Join(dir, "student_club", "student_club.sqlite"), Examples: clubExamples},
			"bare":         {SQLite: bare},
		}
	})
	return s, ts
}

func getJSON(t *testing.T, ts *httptest.Server, path string, v any) int {
	t.Helper()
	code, raw := callRaw(t, ts, "GET", path, "", nil)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("GET %s: %d, not JSON: %s", path, code, raw)
	}
	return code
}

func TestSchemaBrowser(t *testing.T) {
	s, ts := newBrowseTest(t, nil)
	column := func(sj SchemaJSON, table, col string) (TableJSON, ColumnJSON) {
		for _, tj := range sj.Tables {
			if tj.Name == table {
				for _, c := range tj.Columns {
					if c.Name == col {
						return tj, c
					}
				}
			}
		}
		t.Fatalf("no column %s.%s in %s", table, col, sj.DB)
		return TableJSON{}, ColumnJSON{}
	}
	tests := []struct {
		db, table, col string
		rows           int64
		pk             bool
		references     string
		description    string // in the column's description
		examples       []string
		note           string // in the notes; "" for none
	}{
		{"superhero", "superhero", "superhero_name", 750, false, "", "the name of the superhero", []string{"3-D Man", "A-Bomb", "Abe Sapien"}, ""},
		{"superhero", "superhero", "id", 750, true, "", "the unique identifier of the superhero", []string{"1", "2", "3"}, ""},
		{"superhero", "superhero", "eye_colour_id", 750, false, "colour.id", "the id of the superhero's eye color", []string{"9", "33", "7"}, ""},
		{"superhero", "colour", "colour", 35, false, "", "the color of the superhero's skin/eye/hair/etc", []string{"No Colour", "Amber", "Auburn"}, ""},
		{"bare", "superhero", "superhero_name", 750, false, "", "", []string{"3-D Man", "A-Bomb", "Abe Sapien"}, "descriptions not available"},
		{"student_club", "event", "notes", 42, false, "", "A free text field", []string{"All active members can vote for new offi..."}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.db+"."+tt.table+"."+tt.col, func(t *testing.T) {
			var sj SchemaJSON
			if code := getJSON(t, ts, "/api/databases/"+tt.db+"/schema", &sj); code != 200 {
				t.Fatalf("%d %+v", code, sj)
			}
			if sj.DB != tt.db || sj.Engine != "sqlite" {
				t.Errorf("db %q engine %q", sj.DB, sj.Engine)
			}
			tj, c := column(sj, tt.table, tt.col)
			if tj.Rows == nil || *tj.Rows != tt.rows {
				t.Errorf("rows %v, want %d", tj.Rows, tt.rows)
			}
			if c.PrimaryKey != tt.pk || c.References != tt.references {
				t.Errorf("primary_key %v references %q, want %v %q", c.PrimaryKey, c.References, tt.pk, tt.references)
			}
			if tt.description == "" && c.Description != "" || !strings.Contains(c.Description, tt.description) {
				t.Errorf("description %q, want %q", c.Description, tt.description)
			}
			if !slices.Equal(c.Examples[:len(tt.examples)], tt.examples) || len(c.Examples) > 3 {
				t.Errorf("examples %q, want %q first, at most 3", c.Examples, tt.examples)
			}
			if got := strings.Join(sj.Notes, "; "); tt.note == "" && got != "" || !strings.Contains(got, tt.note) {
				t.Errorf("notes %q, want %q", got, tt.note)
			}
		})
	}
	var e map[string]any
	if code := getJSON(t, ts, "/api/databases/nope/schema", &e); code != 404 {
		t.Errorf("unknown db: %d %v", code, e)
	}
	// The browser's data is kept per schema load: a reload reads it again.
	first := s.browse.schema.of
	if code, raw := callRaw(t, ts, "POST", "/api/admin/reload", testKey, nil); code != 200 {
		t.Fatalf("reload: %d %s", code, raw)
	}
	var sj SchemaJSON
	if getJSON(t, ts, "/api/databases/superhero/schema", &sj); s.browse.schema.of == first || len(sj.Tables) != 10 {
		t.Errorf("after a reload: cache of the old load kept, or %d tables", len(sj.Tables))
	}
}

func TestExamples(t *testing.T) {
	club := []ExampleQuestion{{Question: "Which events are in March?", Evidence: "event_date starts with the month"}, {Question: "How many members?"}}
	_, ts := newBrowseTest(t, club)
	for _, db := range []string{"superhero", "bare"} {
		t.Run(db, func(t *testing.T) {
			var ex ExamplesJSON
			if code := getJSON(t, ts, "/api/databases/"+db+"/examples", &ex); code != 200 || ex.Source != "schema" || ex.DB != db {
				t.Fatalf("%d %+v", code, ex)
			}
			if len(ex.Examples) < 4 || len(ex.Examples) > MaxExamples {
				t.Errorf("%d examples, want 4 to %d: %+v", len(ex.Examples), MaxExamples, ex.Examples)
			}
			var qs []string
			for _, e := range ex.Examples {
				qs = append(qs, e.Question)
				if strings.TrimSpace(e.Question) == "" || strings.ContainsAny(e.Question+e.Evidence, "{}") || !strings.HasSuffix(e.Question, "?") && !strings.HasSuffix(e.Question, ".") {
					t.Errorf("example %+v: not a finished question", e)
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(qs)))) != len(qs) {
				t.Errorf("repeated questions: %q", qs)
			}
			// the same questions again (kept per schema load, and seeded)
			var again ExamplesJSON
			if getJSON(t, ts, "/api/databases/"+db+"/examples", &again); !slices.Equal(again.Examples, ex.Examples) {
				t.Errorf("asked again: %+v, want %+v", again.Examples, ex.Examples)
			}
		})
	}
	var ex ExamplesJSON
	if code := getJSON(t, ts, "/api/databases/student_club/examples", &ex); code != 200 || ex.Source != "config" || !slices.Equal(ex.Examples, club) {
		t.Errorf("config examples: %d %+v, want %+v", code, ex, club)
	}
	var e map[string]any
	if code := getJSON(t, ts, "/api/databases/nope/examples", &e); code != 404 {
		t.Errorf("unknown db: %d %v", code, e)
	}
}

// TestPerLoad: one computation per database and schema load, shared by
// those who wait; failures are not kept; a waiter whose computer's
// request ended computes again.
func TestPerLoad(t *testing.T) {
	var c perLoad[int]
	ctx := context.Background()
	load1, load2 := &schemas{}, &schemas{}
	calls := 0
	compute := func(v int, err error) func(context.Context) (int, error) {
		return func(context.Context) (int, error) { calls++; return v, err }
	}
	steps := []struct {
		name    string
		sc      *schemas
		db      string
		v       int
		err     error
		want    int
		wantErr bool
		calls   int
	}{
		{"first", load1, "a", 1, nil, 1, false, 1},
		{"kept", load1, "a", 2, nil, 1, false, 1},
		{"other db", load1, "b", 3, nil, 3, false, 2},
		{"failure", load1, "c", 0, errors.New("x"), 0, true, 3},
		{"failure not kept", load1, "c", 4, nil, 4, false, 4},
		{"reload", load2, "a", 5, nil, 5, false, 5},
	}
	for _, st := range steps {
		v, err := c.get(ctx, st.sc, st.db, compute(st.v, st.err))
		if v != st.want || (err != nil) != st.wantErr || calls != st.calls {
			t.Errorf("%s: %d, %v after %d computations; want %d (error %v) after %d", st.name, v, err, calls, st.want, st.wantErr, st.calls)
		}
	}
	// A computation stopped by its own request's end: the waiter computes.
	started, release := make(chan struct{}), make(chan struct{})
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := c.get(cctx, load2, "slow", func(ctx context.Context) (int, error) {
			close(started)
			<-release
			return 0, ctx.Err()
		})
		done <- err
	}()
	<-started
	waited := make(chan int)
	go func() {
		v, _ := c.get(ctx, load2, "slow", compute(7, nil))
		waited <- v
	}()
	cancel()
	close(release)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled computation: %v", err)
	}
	if v := <-waited; v != 7 {
		t.Errorf("waiter got %d, want its own computation's 7", v)
	}
}
