package train

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/rewardserver"
)

// TestRemoteRewardMatchesStack: rewardserver.Client gives the scores of the
// in-process stack it wraps, a failing gold is reward.ErrGold, and an
// online run trains through it.
func TestRemoteRewardMatchesStack(t *testing.T) {
	st := rlStack(t)
	srv, err := rewardserver.New(rewardserver.Config{Reward: st.Reward, Name: "arctic"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	rr := rewardserver.NewClient(hs.URL)
	if err := rr.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := rlData(t)
	ex := d.Holdout[0]
	s := reward.Sample{DBID: ex.DBID, Question: ex.Question, GoldSQL: ex.SQL}
	comps := []string{ex.SQL, "SELECT 1", "SELECT nope FROM nowhere", "no sql at all"}
	want, err := st.ScoreGroup(context.Background(), s, comps)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rr.ScoreGroup(context.Background(), s, comps)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].Value != want[i].Value || got[i].Class != want[i].Class {
			t.Errorf("completion %d: remote %v %s, stack %v %s", i, got[i].Value, got[i].Class, want[i].Value, want[i].Class)
		}
	}
	if got[0].Class != "correct" {
		t.Errorf("the gold scores %s", got[0].Class)
	}
	bad := s
	bad.GoldSQL = "SELECT nope FROM nowhere"
	if _, err := rr.ScoreGroup(context.Background(), bad, comps); !errors.Is(err, reward.ErrGold) {
		t.Errorf("a failing gold: %v (want ErrGold)", err)
	}
	o := rlOptions(t, AlgoKTO, t.TempDir(), rr)
	o.Steps = 2
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
}

// TestRLRefusesBadInput: each bad input fails before any checkpoint is
// written, with a message that names the problem.
func TestRLRefusesBadInput(t *testing.T) {
	init := rlInit(t)
	down := httptest.NewServer(nil)
	downURL := down.URL
	down.Close()
	cases := []struct {
		name string
		edit func(d *Data, o *RLOptions)
		want string
	}{
		{"empty holdout", func(d *Data, o *RLOptions) { d.Holdout = nil }, "no holdout questions: -sft-fraction 1 leaves none; use -rl-on train"},
		{"other prompt format", func(d *Data, o *RLOptions) { d.Format = policy.Format{Kind: policy.FormatCompact} }, "the policy expects prompts"},
		{"reward server down", func(d *Data, o *RLOptions) { o.RewardSource = rewardserver.NewClient(downURL) }, "is not answering"},
		{"no init", func(d *Data, o *RLOptions) { o.Init = "" }, "starts from an SFT checkpoint"},
		{"init not a checkpoint", func(d *Data, o *RLOptions) { o.Init = t.TempDir() }, "init"},
		{"offline ppo", func(d *Data, o *RLOptions) { o.Algo, o.Online, o.OfflineFile = AlgoPPO, false, "x.jsonl" }, "online only"},
		{"offline without file", func(d *Data, o *RLOptions) { o.Online = false }, "rollouts file"},
		{"dpo with one sample", func(d *Data, o *RLOptions) { o.Algo, o.K = AlgoDPO, 1 }, "want >= 2"},
		{"unknown algo", func(d *Data, o *RLOptions) { o.Algo = "sft" }, "unknown RL algorithm"},
		{"bad rl-on", func(d *Data, o *RLOptions) { o.On = "dev" }, `RL on "dev"`},
		{"rename text and families", func(d *Data, o *RLOptions) { o.Rename, o.RenameText, o.RenameFamilies = 0.9, true, true }, "not both"},
		{"families without renaming", func(d *Data, o *RLOptions) { o.RenameFamilies = true }, "need a rename probability"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := rlData(t)
			out := t.TempDir()
			o := rlOptions(t, AlgoKTO, out, prefixReward{})
			o.Init = init
			c.edit(d, &o)
			_, err := RL(context.Background(), d, o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if es, _ := os.ReadDir(out); len(es) > 0 {
				t.Errorf("%d entries written to the run directory", len(es))
			}
		})
	}
}
