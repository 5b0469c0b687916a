package train

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// TestReplaySeqs: a step's replayed examples are the same whenever the
// step is run (a resumed run replays what the killed one would have),
// another step's are others (how they are renamed: TestReplayFollowsSFT).
func TestReplaySeqs(t *testing.T) {
	ctx := context.Background()
	d := rlData(t)
	o := rlOptions(t, AlgoKTO, t.TempDir(), rlStack(t))
	o.Replay = 6
	o.defaults()
	b := replaying(t, d, o, loadPolicy(t, rlInit(t)), nil)
	s5, err := b.replaySeqs(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := b.replaySeqs(ctx, 5)
	s6, _ := b.replaySeqs(ctx, 6)
	if len(s5) != 6 || len(again) != 6 {
		t.Fatalf("%d and %d replayed examples, want 6", len(s5), len(again))
	}
	same := func(a, b [][]int32) bool {
		return slices.EqualFunc(a, b, func(x, y []int32) bool { return slices.Equal(x, y) })
	}
	toks := func(ss []policy.Sequence) [][]int32 {
		var out [][]int32
		for _, s := range ss {
			out = append(out, s.Tokens)
		}
		return out
	}
	if !same(toks(s5), toks(again)) {
		t.Error("step 5 replayed other examples the second time")
	}
	if same(toks(s5), toks(s6)) {
		t.Error("steps 5 and 6 replayed the same examples")
	}
}

// replaying is an online step builder for policy pol whose replay
// renames as as says SFT renamed.
func replaying(t *testing.T, d *Data, o RLOptions, pol *policy.Policy, as *SFTRenaming) *online {
	t.Helper()
	b := newOnline(d, o, nil, nil)
	b.pol = pol
	var err error
	if b.rp, err = newReplay(d, pol, as); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayGradient: the gradient replay adds is ReplayWeight times the
// SFT loss's on the same sequences, and the NLL it reports is that loss.
func TestReplayGradient(t *testing.T) {
	ctx := context.Background()
	d := rlData(t)
	o := rlOptions(t, AlgoKTO, t.TempDir(), rlStack(t))
	o.Replay, o.ReplayWeight = 5, 0.3
	b := newOnline(d, o, nil, nil)
	pol := loadPolicy(t, rlInit(t))
	b.pol, b.sc = pol, policy.NewLogProbScorer(pol.Model)
	var err error
	if b.rp, err = newReplay(d, pol, nil); err != nil {
		t.Fatal(err)
	}
	m := pol.Model
	m.EnableGrads()
	m.ZeroGrads()
	nll, ntok, err := b.replayStep(ctx, 2)
	if err != nil || ntok == 0 {
		t.Fatalf("replay: %v, %d tokens", err, ntok)
	}
	got := slices.Clone(m.Grads)
	seqs, _ := b.replaySeqs(ctx, 2)
	m.ZeroGrads()
	sftLoss, _, err := completionStep(b.sc, seqs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(nll-sftLoss) > 1e-9*math.Abs(sftLoss) {
		t.Errorf("replay NLL %v, SFT loss %v", nll, sftLoss)
	}
	var norm, diff float64
	for i, g := range m.Grads {
		want := 0.3 * float64(g)
		norm += want * want
		diff += (float64(got[i]) - want) * (float64(got[i]) - want)
	}
	// float32 gradients summed over ntok tokens
	if norm == 0 || math.Sqrt(diff) > 1e-5*math.Sqrt(norm) {
		t.Errorf("replay gradient off by %.3g (norm %.3g)", math.Sqrt(diff), math.Sqrt(norm))
	}
}

// TestRLReplay runs online KTO with replay: at the first step (same
// weights, so the same samples) the loss is the loss without replay plus
// ReplayWeight times the replayed NLL the log reports, the trained weights
// differ from a run without it, two runs give the same losses, and
// replay on prompts without an SFT share, or a negative count, is refused.
func TestRLReplay(t *testing.T) {
	d := rlData(t)
	src := rlStack(t)
	base := rlOptions(t, AlgoKTO, t.TempDir(), src)
	if _, err := RL(context.Background(), d, base); err != nil {
		t.Fatal(err)
	}
	o := rlOptions(t, AlgoKTO, t.TempDir(), src)
	o.Replay, o.ReplayWeight = 4, 0.5
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
	lines := readLogLines(t, o.Out)
	for _, l := range lines {
		if l.Metrics["replay_nll"] <= 0 || l.Metrics["replay_tokens"] <= 0 {
			t.Errorf("step %d: replay metrics %v", l.Step, l.Metrics)
		}
	}
	without := readLogLines(t, base.Out)[0]
	if got, want := lines[0].Loss-without.Loss, 0.5*lines[0].Metrics["replay_nll"]; math.Abs(got-want) > 1e-6*(1+want) {
		t.Errorf("step 1: loss with replay - without = %v, want 0.5 x replayed NLL = %v", got, want)
	}
	if slices.Equal(weightsOf(t, base.Out), weightsOf(t, o.Out)) {
		t.Error("replay left the trained weights as they were without it")
	}
	first := o.Out
	o.Out = t.TempDir()
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
	a, b := readLog(t, first), readLog(t, o.Out)
	for s, l := range a {
		if b[s] != l {
			t.Errorf("step %d: loss %v, then %v", s, l, b[s])
		}
	}
	o.Replay = -1
	if _, err := RL(context.Background(), d, o); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Errorf("replay -1: %v", err)
	}
	o.Replay = 4
	noTrain := *d
	noTrain.Train = nil
	o.Out = t.TempDir()
	if _, err := RL(context.Background(), &noTrain, o); err == nil || !strings.Contains(err.Error(), "SFT share") {
		t.Errorf("replay without an SFT share: %v", err)
	}
}

// TestReplayFollowsSFT: replayed examples are renamed as the SFT run that
// made the start renamed its own: the recipe's (nil) exactly as replay
// always rendered them, none for an SFT that renamed nothing, words
// (question included) for one that renamed words.
func TestReplayFollowsSFT(t *testing.T) {
	ctx := context.Background()
	d := rlData(t)
	o := rlOptions(t, AlgoKTO, t.TempDir(), rlStack(t))
	o.Replay = 6
	o.defaults()
	pol := loadPolicy(t, rlInit(t))
	for _, tc := range []struct {
		name                   string
		as                     *SFTRenaming
		minRenamed, maxRenamed int  // of 20 prompts
		question               bool // some renamed question differs from the example's
	}{
		{"recipe", nil, 15, 20, false},
		{"none", &SFTRenaming{Rename: -1}, 0, 0, false},
		{"words", &SFTRenaming{RenameText: true, RenameEach: 0.5}, 15, 20, true},
		{"half the examples", &SFTRenaming{Rename: 0.5}, 4, 16, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := replaying(t, d, o, pol, tc.as)
			old, err := newReplay(d, pol, nil)
			if err != nil {
				t.Fatal(err)
			}
			renamed, question := 0, false
			for k := range 20 {
				ex := &d.Train[k]
				pr, _, err := b.replayExample(ctx, ex, 3, k)
				if err != nil {
					t.Fatal(err)
				}
				plain, _, err := d.renderFit(ctx, ex, b.rp.rn, 0, nil, b.rp.fit)
				if err != nil {
					t.Fatal(err)
				}
				if pr != plain {
					renamed++
				}
				if !strings.Contains(pr, ex.Question) {
					question = true
				}
				if tc.as == nil {
					// the stream replay used before it followed SFT
					step := int64(3)
					er := rand.New(rand.NewPCG(o.Seed^uint64(step)*0x9e3779b97f4a7c15, 0x7270<<32|uint64(k)))
					want, _, err := d.renderFit(ctx, ex, old.rn, DefaultRenameEach, er, old.fit)
					if err != nil || pr != want {
						t.Fatalf("example %d: the recipe's replay changed (%v)", k, err)
					}
				}
			}
			if renamed < tc.minRenamed || renamed > tc.maxRenamed {
				t.Errorf("%d of 20 replayed prompts renamed, want %d-%d", renamed, tc.minRenamed, tc.maxRenamed)
			}
			if question != tc.question {
				t.Errorf("a renamed question: %v, want %v", question, tc.question)
			}
		})
	}
}

// TestSFTRenamingReplayAs: ReplayAs is unset for the recipe's renaming,
// however it is spelt, and carries any other.
func TestSFTRenamingReplayAs(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    SFTRenaming
		want *SFTRenaming
	}{
		{"zero: train's defaults", SFTRenaming{}, nil},
		{"the recipe spelt out", DefaultSFTConfig().SFTRenaming, nil},
		{"none", SFTRenaming{Rename: -1}, &SFTRenaming{Rename: -1}},
		{"words", SFTRenaming{RenameText: true, RenameEach: 0.5}, &SFTRenaming{RenameText: true, RenameEach: 0.5}},
		{"families", SFTRenaming{RenameFamilies: true}, &SFTRenaming{RenameFamilies: true}},
		{"each name at 0.5", SFTRenaming{RenameEach: 0.5}, &SFTRenaming{RenameEach: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.ReplayAs()
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("%+v.ReplayAs() = %+v, want %+v", tc.s, got, tc.want)
			}
		})
	}
}

// TestReplayAsOf reads the renaming replay follows from the start's run
// directory, as recordSettings wrote it, through a run directory, a
// checkpoint in it and an experiment run's train/ subdirectory.
func TestReplayAsOf(t *testing.T) {
	words := SFTRenaming{RenameText: true, RenameEach: 0.5}
	sftWords := DefaultSFTConfig()
	sftWords.SFTRenaming = words
	rlAfterWords := DefaultRLConfig(AlgoKTO)
	rlAfterWords.ReplayAs = &words
	for _, tc := range []struct {
		name      string
		settings  any // nil: no settings file
		raw       string
		want      *SFTRenaming
		wantFound bool
		wantErr   bool
	}{
		{name: "the recipe's SFT", settings: DefaultSFTConfig(), wantFound: true},
		{name: "SFT renaming words", settings: sftWords, want: &words, wantFound: true},
		{name: "RL after the recipe", settings: DefaultRLConfig(AlgoKTO), wantFound: true},
		{name: "RL after words", settings: rlAfterWords, want: &words, wantFound: true},
		{name: "no settings"},
		{name: "unreadable settings", raw: "{", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			ck := filepath.Join(run, policy.RunTrainDir, "step-000010")
			for _, f := range []string{policy.FileConfig, policy.FileModel} {
				if err := os.MkdirAll(ck, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ck, f), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			trainDir := filepath.Dir(ck)
			if err := os.WriteFile(filepath.Join(trainDir, policy.FileLatest), []byte("step-000010\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.settings != nil {
				if err := recordSettings(trainDir, tc.settings); err != nil {
					t.Fatal(err)
				}
			}
			if tc.raw != "" {
				if err := os.WriteFile(filepath.Join(trainDir, SettingsFile), []byte(tc.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, init := range []string{run, trainDir, ck} {
				got, found, err := ReplayAsOf(init)
				if (err != nil) != tc.wantErr {
					t.Fatalf("ReplayAsOf(%s): error %v, want one: %v", init, err, tc.wantErr)
				}
				if found != tc.wantFound || (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
					t.Errorf("ReplayAsOf(%s) = %+v, %v; want %+v, %v", init, got, found, tc.want, tc.wantFound)
				}
			}
		})
	}
	if _, _, err := ReplayAsOf(t.TempDir()); err == nil {
		t.Error("ReplayAsOf of an empty directory: no error, want one (not a run)")
	}
}
