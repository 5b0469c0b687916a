package consensus

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sqlrl/sqlrl/sqlexec"
)

func testEngine(t *testing.T) sqlexec.Engine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "zoo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := sqlexec.CreateSQLite(filepath.Join(dir, "zoo.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Exec(`CREATE TABLE animal (id INTEGER PRIMARY KEY, species TEXT, legs INTEGER);
INSERT INTO animal VALUES (1, 'lion', 4), (2, 'seal', 0), (3, 'owl', 2), (4, 'bear', 4);`); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: filepath.Dir(dir)})
	t.Cleanup(func() { eng.Close() })
	return eng
}

func TestPick(t *testing.T) {
	eng := testEngine(t)
	const (
		four  = "SELECT species FROM animal WHERE legs = 4"
		four2 = "SELECT species FROM animal WHERE legs > 3 ORDER BY species" // same set of rows
		two   = "SELECT species FROM animal WHERE legs = 2"
		none  = "SELECT species FROM animal WHERE legs = 9"
		bad   = "SELECT specie FROM animal"
		write = "DELETE FROM animal"
	)
	tests := []struct {
		name      string
		cands     []string
		keepEmpty bool
		want      Choice
	}{
		{"majority of results, not of texts", []string{two, four, bad, four2}, false, Choice{Index: 1, Votes: 2, Ran: 3}},
		{"tie goes to the earliest", []string{two, four, bad}, false, Choice{Index: 0, Votes: 1, Ran: 2}},
		{"repeated texts vote", []string{four, two, two, write}, false, Choice{Index: 1, Votes: 2, Ran: 3}},
		{"empty results lose", []string{none, none, none, two}, false, Choice{Index: 3, Votes: 1, Ran: 4}},
		{"unless kept", []string{none, none, none, two}, true, Choice{Index: 0, Votes: 3, Ran: 4}},
		{"empty when nothing else ran", []string{bad, none}, false, Choice{Index: 1, Votes: 1, Ran: 1}},
		{"nothing ran", []string{bad, write, ""}, false, Choice{Index: -1}},
	}
	for _, tc := range tests {
		got, err := Pick(context.Background(), eng, "zoo", tc.cands, Options{KeepEmpty: tc.keepEmpty})
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestCount: each candidate's group, the groups' sizes, and what did not
// run; Pick's choice is Best of the same votes.
func TestCount(t *testing.T) {
	eng := testEngine(t)
	const (
		four  = "SELECT species FROM animal WHERE legs = 4"
		four2 = "SELECT species FROM animal WHERE legs > 3"
		two   = "SELECT species FROM animal WHERE legs = 2"
		none  = "SELECT species FROM animal WHERE legs = 9"
		bad   = "SELECT specie FROM animal"
	)
	tests := []struct {
		name  string
		cands []string
		want  Votes
		best  int
	}{
		{"groups by result", []string{four, two, four2, bad, four},
			Votes{Of: []int{0, 1, 0, -1, 0}, Size: []int{3, 1}, First: []int{0, 1}, Empty: []bool{false, false}, Ran: 4}, 0},
		{"empty result", []string{none, two, none},
			Votes{Of: []int{0, 1, 0}, Size: []int{2, 1}, First: []int{0, 1}, Empty: []bool{true, false}, Ran: 3}, 1},
		{"nothing ran", []string{bad, ""}, Votes{Of: []int{-1, -1}}, -1},
	}
	for _, tc := range tests {
		got, err := Count(context.Background(), eng, "zoo", tc.cands, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
		if b := got.Best(false); b != tc.best {
			t.Errorf("%s: best %d, want %d", tc.name, b, tc.best)
		}
	}
}

// A candidate whose result the caller already has is not executed again:
// here its text would fail, yet it votes with the result given.
func TestCountKnownResults(t *testing.T) {
	eng := testEngine(t)
	const (
		known = "SELECT specie FROM animal"
		two   = "SELECT species FROM animal WHERE legs = 2"
	)
	res := &sqlexec.Result{Columns: []string{"species"}, Rows: [][]sqlexec.Value{{sqlexec.Text("owl")}}}
	got, err := Count(context.Background(), eng, "zoo", []string{known, two}, Options{Results: map[string]*sqlexec.Result{known: res}})
	if err != nil {
		t.Fatal(err)
	}
	want := Votes{Of: []int{0, 0}, Size: []int{2}, First: []int{0}, Empty: []bool{false}, Ran: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestLead: the votes Lead gives for each candidate moved to the front
// are the ones counting the reordered list gives, up to the groups'
// numbering: every candidate in a group of the same size, emptiness and
// first member, nothing run again.
func TestLead(t *testing.T) {
	eng := testEngine(t)
	cands := []string{"SELECT species FROM animal WHERE legs = 4", "SELECT species FROM animal WHERE legs = 2",
		"SELECT species FROM animal WHERE legs > 3", "SELECT specie FROM animal", "SELECT species FROM animal WHERE legs = 9"}
	v, err := Count(context.Background(), eng, "zoo", cands, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cands {
		led := v.Lead(i)
		order := append(append([]string{cands[i]}, cands[:i]...), cands[i+1:]...)
		want, err := Count(context.Background(), eng, "zoo", order, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if led.Ran != want.Ran || len(led.Of) != len(want.Of) {
			t.Fatalf("lead %d: %+v, recount %+v", i, led, want)
		}
		for k := range order {
			g, h := led.Of[k], want.Of[k]
			if (g < 0) != (h < 0) || g >= 0 && (led.Size[g] != want.Size[h] || led.Empty[g] != want.Empty[h] || led.First[g] != want.First[h]) {
				t.Errorf("lead %d, candidate %d: %+v, recount %+v", i, k, led, want)
			}
		}
		if b, c := led.Best(false), want.Best(false); (b < 0) != (c < 0) || b >= 0 && led.First[b] != want.First[c] {
			t.Errorf("lead %d: best group first at %d, recount %d", i, led.First[b], want.First[c])
		}
	}
}
