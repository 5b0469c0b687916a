package train

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// evenReward marks every sample of a question whose text has an even
// length correct and every sample of the others wrong, so that a run has
// solved and unsolved prompts in places the test can tell.
type evenReward struct{}

func (evenReward) ScoreGroup(_ context.Context, s reward.Sample, cs []string) ([]reward.Score, error) {
	out := make([]reward.Score, len(cs))
	for i := range out {
		if len(s.Question)%2 == 0 {
			out[i] = reward.Score{Value: 1, Class: "correct"}
		} else {
			out[i] = reward.Score{Class: "wrong"}
		}
	}
	return out, nil
}

// TestRLGoldUnsolved: with GoldUnsolved, each step adds the gold of
// exactly the prompts none of whose samples was correct (read back from
// the rollouts file), the first step's loss is the loss without it plus
// the weight times the golds' NLL the log reports, the trained weights
// differ, and a negative weight or an offline run is refused.
func TestRLGoldUnsolved(t *testing.T) {
	d := rlData(t)
	base := rlOptions(t, AlgoKTO, t.TempDir(), evenReward{})
	base.Steps, base.Prompts = 4, 3
	if _, err := RL(context.Background(), d, base); err != nil {
		t.Fatal(err)
	}
	o := base
	o.Out = t.TempDir()
	o.GoldUnsolved = 0.5
	o.RolloutsOut = filepath.Join(t.TempDir(), "rollouts.jsonl")
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
	// step -> prompt (question, variant) -> some sample correct
	solved := map[int64]map[[2]int]bool{}
	f, err := os.Open(o.RolloutsOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r export.Rollout
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if solved[*r.Step] == nil {
			solved[*r.Step] = map[[2]int]bool{}
		}
		k := [2]int{r.QuestionID, r.Variant}
		solved[*r.Step][k] = solved[*r.Step][k] || *r.Correct
	}
	lines := readLogLines(t, o.Out)
	var golds, solvedN int
	for _, l := range lines {
		want := 0
		for _, ok := range solved[l.Step-1] {
			if ok {
				solvedN++
			} else {
				want++
			}
		}
		if got := l.Metrics["gold_prompts"]; got != float64(want) {
			t.Errorf("step %d: %v golds, want %d (the prompts no sample solved)", l.Step, got, want)
		}
		if want > 0 && !(l.Metrics["gold_nll"] > 0) {
			t.Errorf("step %d: gold NLL %v", l.Step, l.Metrics["gold_nll"])
		}
		golds += want
	}
	if golds == 0 || solvedN == 0 {
		t.Fatalf("%d unsolved and %d solved prompts over the run: the test needs both", golds, solvedN)
	}
	without, with := readLogLines(t, base.Out)[0], lines[0]
	if got, want := with.Loss-without.Loss, 0.5*with.Metrics["gold_nll"]; math.Abs(got-want) > 1e-6*(1+want) {
		t.Errorf("step 1: loss with golds - without = %v, want 0.5 x the golds' NLL = %v", got, want)
	}
	if slices.Equal(weightsOf(t, base.Out), weightsOf(t, o.Out)) {
		t.Error("the golds left the trained weights as they were without them")
	}
	for _, bad := range []func(*RLOptions){
		func(o *RLOptions) { o.GoldUnsolved = -1 },
		func(o *RLOptions) { o.Online, o.OfflineFile = false, o.RolloutsOut },
	} {
		b := o
		b.Out = t.TempDir()
		bad(&b)
		if _, err := RL(context.Background(), d, b); err == nil || !strings.Contains(err.Error(), "gold") {
			t.Errorf("%+v: error %v, want a refusal naming the golds", b.GoldUnsolved, err)
		}
	}
}

// TestGoldUnsolvedRenamed: under renaming, an unsolved prompt's gold is
// written in the names its prompt shows (as SFT renames its golds): no
// name of the database that the renamed prompt no longer shows, and
// renamed golds differ from the database's.
func TestGoldUnsolvedRenamed(t *testing.T) {
	ctx := context.Background()
	d := rlData(t)
	pool, err := d.RLPrompts(ctx, RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	o := rlOptions(t, AlgoKTO, t.TempDir(), evenReward{})
	o.Rename, o.GoldUnsolved = 0.9, 1
	o.defaults()
	pol := loadPolicy(t, rlInit(t))
	b := newOnline(d, o, pool, pol)
	if err := b.Start(ctx, pol); err != nil {
		t.Fatal(err)
	}
	ro, err := b.rolloutOf(ctx, 0, b.fits[:min(12, len(b.fits))])
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.Golds) == 0 {
		t.Fatal("no unsolved prompt among 12")
	}
	renamed := 0
	for _, g := range ro.Golds {
		p := pool[g.Prompt]
		if len(p.Question)%2 == 0 {
			t.Errorf("question %d was solved, its gold is in the step", p.QuestionID)
		}
		db, shown := schemaNamesOf(p.Text), schemaNamesOf(g.Text)
		for _, tk := range sqlparse.Tokenize(g.SQL) {
			w := strings.ToLower(strings.Trim(tk.Text, "`\"[]"))
			if (tk.Kind == sqlparse.KindIdentifier || tk.Kind == sqlparse.KindQuotedIdentifier) && db[w] && !shown[w] {
				t.Errorf("question %d: gold %q writes %q, which its prompt no longer shows", p.QuestionID, g.SQL, tk.Text)
			}
		}
		if g.SQL != p.SQL {
			renamed++
		}
	}
	if renamed == 0 {
		t.Errorf("none of %d golds renamed at probability 0.9", len(ro.Golds))
	}
}

// schemaNamesOf is the set of lowercased table and column names a compact
// prompt shows.
func schemaNamesOf(prompt string) map[string]bool {
	tables, _ := policy.CompactSchema(prompt)
	names := map[string]bool{}
	for tb, cols := range tables {
		names[strings.ToLower(tb)] = true
		for _, c := range cols {
			names[strings.ToLower(c)] = true
		}
	}
	return names
}
