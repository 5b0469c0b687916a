package train

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlparse"
)

var (
	rlInitOnce sync.Once
	rlInitDir  string
	rlInitErr  error
)

// rlData is the tiny bench with its holdout, in the format of rlInit.
func rlData(t *testing.T) *Data {
	d := loadTiny(t)
	if len(d.Holdout) == 0 {
		t.Fatal("tiny bench: no holdout")
	}
	return d
}

// rlInit is a tiny SFT run (a few steps) that RL tests start from.
func rlInit(t *testing.T) string {
	t.Helper()
	d := rlData(t)
	rlInitOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sqlrl-rl-init")
		if err != nil {
			rlInitErr = err
			return
		}
		o := tinyOptions(dir)
		o.MaxSteps = 6
		_, rlInitErr = SFT(context.Background(), d, o)
		rlInitDir = dir
	})
	if rlInitErr != nil {
		t.Fatal(rlInitErr)
	}
	return rlInitDir
}

func rlStack(t *testing.T) *reward.Stack {
	b, err := dataset.Load(tinyBench(t), "train")
	if err != nil {
		t.Fatal(err)
	}
	s, err := reward.NewSQLiteStack(reward.StackOptions{DBRoot: b.DBRoot, Reward: reward.Config{Kind: reward.KindArctic}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rlOptions(t *testing.T, algo, out string, src RewardSource) RLOptions {
	return RLOptions{
		Run: Run{Out: out, Init: rlInit(t), Seed: 3, SaveEvery: 2},
		RLConfig: RLConfig{LoopConfig: LoopConfig{LR: 1e-3, EvalEvery: -1},
			// a step's 4 samples in two micro-batches (and KTO's 4
			// mismatched pairs in 3 + 1), so that every RL test, exact
			// resume included, runs the micro-batched scoring and backward
			Algorithm: Algorithm{Algo: algo, Online: true, Steps: 3, ScoreBatch: 3},
			Sampling:  Sampling{Prompts: 2, K: 2, MaxTokens: 12}},
		RewardSource: src, RewardName: "arctic",
	}
}

func weightsOf(t *testing.T, dir string) []float32 { return loadPolicy(t, dir).Model.Params }

// TestRLOnlineAlgos runs a few online steps of every algorithm: the loss
// is finite, the weights move from the Init checkpoint's, the metrics are
// logged.
func TestRLOnlineAlgos(t *testing.T) {
	d := rlData(t)
	// the real reward plus a part that varies among the samples of this
	// barely trained policy, so that every algorithm has pairs and
	// advantages to learn from
	src := parityReward{rlStack(t)}
	init := weightsOf(t, rlInit(t))
	for _, algo := range Algos {
		t.Run(algo, func(t *testing.T) {
			out := t.TempDir()
			o := rlOptions(t, algo, out, src)
			if algo == AlgoPPO || algo == AlgoGRPO {
				o.Epochs = 2
			}
			res, err := RL(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.State.Step != 3 || math.IsNaN(res.State.Loss) || math.IsInf(res.State.Loss, 0) {
				t.Fatalf("state %+v", res.State)
			}
			if slices.Equal(init, weightsOf(t, out)) {
				t.Error("the weights did not move")
			}
			// the run records its settings, defaults filled in
			var rec RLConfig
			if b, err := os.ReadFile(filepath.Join(out, SettingsFile)); err != nil || json.Unmarshal(b, &rec) != nil ||
				rec.Algo != algo || rec.Steps != 3 || rec.K != 2 || rec.Beta != 0.1 {
				t.Errorf("recorded settings %+v (%v)", rec, err)
			}
			lines := readLogLines(t, out)
			if len(lines) != 3 {
				t.Fatalf("%d log lines", len(lines))
			}
			for _, m := range []string{"reward_mean", "share_correct", "share_truncated", "kl_ref", "tokens", "sample_s", "reward_s", "score_s", "update_s"} {
				if _, ok := lines[0].Metrics[m]; !ok {
					t.Errorf("metric %s missing: %v", m, lines[0].Metrics)
				}
			}
			// at 12 tokens the barely trained policy runs on: samples are cut
			if lines[0].Metrics["share_truncated"] == 0 {
				t.Errorf("share_truncated 0 at 12 tokens: %v", lines[0].Metrics)
			}
			if algo == AlgoKTO {
				if _, ok := lines[0].Metrics["share_desirable"]; !ok {
					t.Errorf("share_desirable missing")
				}
			}
			if algo == AlgoPPO {
				if _, err := policy.LoadValueHead(out, 32); err != nil {
					t.Errorf("value head not saved: %v", err)
				}
			}
		})
	}
}

// TestRLResumesExactly kills a run after step 3 (last checkpoint at 2)
// and resumes it: the same losses and the same final weights as a run
// straight through. PPO with 2 epochs is killed after step 4 and resumes
// from step 3, between the epochs of one batch of samples.
func TestRLResumesExactly(t *testing.T) {
	d := rlData(t)
	src := rlStack(t)
	for _, algo := range []string{AlgoKTO, AlgoPPO} {
		t.Run(algo, func(t *testing.T) {
			straight, killed := t.TempDir(), t.TempDir()
			o := rlOptions(t, algo, straight, src)
			o.Steps = 5
			stop := 3
			if algo == AlgoPPO {
				// the checkpoint at step 3 falls between the two epochs
				// on the samples of step 2: the resumed run reads them back
				o.Epochs, o.SaveEvery, stop = 2, 3, 4
			}
			if _, err := RL(context.Background(), d, o); err != nil {
				t.Fatal(err)
			}
			o.Out, o.StopAfter = killed, stop
			if _, err := RL(context.Background(), d, o); !errors.Is(err, ErrStopped) {
				t.Fatalf("stopped run: %v", err)
			}
			o.StopAfter = 0
			if _, err := RL(context.Background(), d, o); err != nil {
				t.Fatal(err)
			}
			want, got := readLog(t, straight), readLog(t, killed)
			for step, l := range want {
				if got[step] != l {
					t.Errorf("step %d: loss %v, straight %v", step, got[step], l)
				}
			}
			if !slices.Equal(weightsOf(t, straight), weightsOf(t, killed)) {
				t.Error("the resumed run ends with other weights")
			}
			if algo == AlgoPPO {
				a, _ := os.ReadFile(filepath.Join(straight, "latest"))
				h1, err1 := policy.LoadValueHead(straight, 32)
				h2, err2 := policy.LoadValueHead(killed, 32)
				if err1 != nil || err2 != nil || !slices.Equal(h1.Params, h2.Params) {
					t.Errorf("value heads differ (%s): %v %v", a, err1, err2)
				}
			}
		})
	}
}

// TestSampledLogProbsAreScored: the log-probability Generate reports for
// an unguided sample at temperature 1 is the one the LogProbScorer gives the
// sequence RL builds from it, and a guided sample's, renormalised over
// what the guide allowed, the one the LogProbScorer gives it under its supports:
// what makes the online losses on-policy, guided or not.
func TestSampledLogProbsAreScored(t *testing.T) {
	d := rlData(t)
	pol, err := policy.Load(rlInit(t))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	b := &rlBase{d: d, o: RLOptions{RLConfig: RLConfig{Sampling: Sampling{MaxTokens: 20}}}, pool: pool[:3], ref: pol, logf: t.Logf}
	if err := b.start(pol); err != nil {
		t.Fatal(err)
	}
	texts := []string{pool[0].Text, pool[1].Text, pool[2].Text}
	for _, guided := range []bool{false, true} {
		so := policy.SampleOptions{N: 3, Temperature: 1, TopP: 1, MaxTokens: 20, Seed: 5}
		if guided {
			so.Constrain, _ = policy.PromptGuides(texts, pol.Info.SQLWords)
			so.Supports = true
		}
		comps, _, err := pol.Generate(context.Background(), texts, so)
		if err != nil {
			t.Fatal(err)
		}
		ro := &rollout{K: 3}
		var want []float64
		masked, differs := 0, 0
		for i := range comps {
			for _, c := range comps[i] {
				toks := slices.Clone(c.Tokens)
				if c.Finish == "stop" {
					toks = append(toks, pol.Tok.EOT())
				}
				s := sample{Prompt: i, Tokens: toks}
				want = append(want, c.LogProb)
				if guided {
					if c.Support != nil && len(c.Support) != len(toks) {
						t.Fatalf("guided sample: %d supports for %d tokens", len(c.Support), len(toks))
					}
					s.Support = c.Support
					want[len(want)-1] = c.SampledLogProb
					for _, sup := range c.Support {
						if sup != nil {
							masked++
						}
					}
					if c.SampledLogProb-c.LogProb > 1e-3 {
						differs++
					}
				}
				ro.Samples = append(ro.Samples, s)
			}
		}
		if guided && (masked == 0 || differs == 0) {
			t.Fatalf("guided: %d tokens drawn from a restricted support, %d samples likelier under the guide: the test shows nothing", masked, differs)
		}
		lps, err := b.sc.LogProbs(b.seqs(ro))
		if err != nil {
			t.Fatal(err)
		}
		for i, lp := range lps {
			// float32 activations, summed over up to 21 tokens
			tol := 1e-4 * float64(lp.Tokens) * math.Max(1, math.Abs(want[i]))
			if math.Abs(lp.Sum-want[i]) > tol {
				t.Errorf("guided %v, sample %d: scored %v, sampled %v", guided, i, lp.Sum, want[i])
			}
		}
		t.Logf("guided %v: %d samples, %d tokens from a restricted support", guided, len(lps), masked)
	}
}

// parityReward adds 0.5 to the inner reward of completions of odd length.
type parityReward struct{ in RewardSource }

func (p parityReward) ScoreGroup(ctx context.Context, s reward.Sample, cs []string) ([]reward.Score, error) {
	out, err := p.in.ScoreGroup(ctx, s, cs)
	for i := range out {
		out[i].Value += 0.5 * float64(len(cs[i])%2)
	}
	return out, err
}

// prefixReward is a deterministic toy reward: 1 when the completion starts
// with one of prefixes.
type prefixReward struct{ prefixes []string }

func (p prefixReward) ScoreGroup(_ context.Context, _ reward.Sample, cs []string) ([]reward.Score, error) {
	out := make([]reward.Score, len(cs))
	for i, c := range cs {
		for _, pre := range p.prefixes {
			if strings.HasPrefix(c, pre) {
				out[i] = reward.Score{Value: 1, Class: "correct"}
				break
			}
		}
	}
	return out, nil
}

// sampledReward is the mean reward of 8 seeded samples of the policy in
// dir for every text.
func sampledReward(t *testing.T, dir string, texts []string, r prefixReward) float64 {
	pol, err := policy.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	comps, _, err := pol.Generate(context.Background(), texts, policy.SampleOptions{N: 8, Temperature: 1, TopP: 1, MaxTokens: 3, Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	var n int
	for _, cs := range comps {
		var texts []string
		for _, c := range cs {
			texts = append(texts, c.Text)
		}
		sc, _ := r.ScoreGroup(context.Background(), reward.Sample{}, texts)
		for _, s := range sc {
			sum += s.Value
			n++
		}
	}
	return sum / float64(n)
}

// TestRLLearnsToyReward: with a reward that is 1 when the completion
// starts with one of the first tokens the SFT policy writes about a
// quarter of the time, online KTO and RLOO raise the mean reward of the
// policy's samples clearly within a few steps.
func TestRLLearnsToyReward(t *testing.T) {
	d := rlData(t)
	init := rlInit(t)
	pool, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range pool {
		texts = append(texts, p.Text)
	}
	pol, err := policy.Load(init)
	if err != nil {
		t.Fatal(err)
	}
	comps, _, err := pol.Generate(context.Background(), texts, policy.SampleOptions{N: 16, Temperature: 1, TopP: 1, MaxTokens: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	total := 0
	for _, cs := range comps {
		for _, c := range cs {
			if len(c.Tokens) > 0 {
				count[pol.Tok.Decode(c.Tokens[:1])]++
				total++
			}
		}
	}
	pieces := make([]string, 0, len(count))
	for p := range count {
		pieces = append(pieces, p)
	}
	slices.SortFunc(pieces, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	var target prefixReward
	for mass := 0; mass*4 < total && len(pieces) > 0; pieces = pieces[1:] {
		if strings.TrimSpace(pieces[0]) == "" {
			continue
		}
		target.prefixes = append(target.prefixes, pieces[0])
		mass += count[pieces[0]]
	}
	before := sampledReward(t, init, texts, target)
	t.Logf("target first pieces %q: mean reward %.3f", target.prefixes, before)
	for _, algo := range []string{AlgoKTO, AlgoRLOO} {
		t.Run(algo, func(t *testing.T) {
			out := t.TempDir()
			o := rlOptions(t, algo, out, target)
			// lr 1e-2 overshot: KTO ended at 0.54 under OpenBLAS's Zen and
			// Haswell kernels and at 0.99 under SkylakeX, a trajectory that
			// rounding decided. At 5e-3 over 40 steps every kernel and the
			// pure-Go gemm end at 0.92-0.95.
			o.Steps, o.Prompts, o.K, o.MaxTokens, o.LR, o.Warmup = 40, 4, 8, 3, 5e-3, 1
			if _, err := RL(context.Background(), d, o); err != nil {
				t.Fatal(err)
			}
			after := sampledReward(t, out, texts, target)
			t.Logf("%s: mean reward %.3f -> %.3f", algo, before, after)
			if after < before+0.2 {
				t.Errorf("%s did not learn: mean reward %.3f -> %.3f", algo, before, after)
			}
		})
	}
}

// Guided online KTO samples only what the schema guide allows (each
// sample, replayed through a fresh guide of its prompt, is accepted),
// where unguided samples of the same barely trained policy are not; a
// policy-gradient algorithm takes guided samples too (they are scored
// under the guide's renormalised distribution: on-policy).
func TestRLGuidedSamples(t *testing.T) {
	d := rlData(t)
	src := rlStack(t)
	pool, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	text := map[[2]int]string{}
	for _, p := range pool {
		text[[2]int{p.QuestionID, p.Variant}] = p.Text
	}
	refused := func(guided bool) (n, bad int) {
		out := t.TempDir()
		o := rlOptions(t, AlgoKTO, out, src)
		o.Guided, o.Steps, o.Prompts, o.K = guided, 2, 4, 4
		o.RolloutsOut = filepath.Join(out, "rollouts.jsonl")
		if _, err := RL(context.Background(), d, o); err != nil {
			t.Fatal(err)
		}
		ros, err := export.ReadRollouts(context.Background(), o.RolloutsOut)
		if err != nil {
			t.Fatal(err)
		}
		words := loadPolicy(t, rlInit(t)).Info.SQLWords
		for _, ro := range ros {
			g, ok := policy.PromptGuides([]string{text[[2]int{ro.QuestionID, ro.Variant}]}, words)
			if !ok {
				t.Fatalf("question %d: no guide for its prompt", ro.QuestionID)
			}
			n++
			if !g(0).Allow(ro.Completion, false) {
				bad++
			}
		}
		return n, bad
	}
	if n, bad := refused(true); n == 0 || bad > 0 {
		t.Errorf("guided: the guide refuses %d of %d samples", bad, n)
	}
	if n, bad := refused(false); bad == 0 {
		t.Errorf("unguided: the guide accepts all %d samples, so this test shows nothing", n)
	}
	o := rlOptions(t, AlgoGRPO, t.TempDir(), src)
	o.Guided, o.Steps = true, 1
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Errorf("guided GRPO: %v", err)
	}
}

// A sample cut at MaxTokens is marked truncated, and only such a sample:
// it has MaxTokens tokens and no end token, where a finished one ends
// with the end token. The share of truncated samples is what tells a
// user the sampling budget cuts answers (RLOptions.MaxTokens).
func TestRLTruncatedSamples(t *testing.T) {
	d := rlData(t)
	pol := loadPolicy(t, rlInit(t))
	pool, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	eot := pol.Tok.EOT()
	for _, max := range []int{3, 40} {
		b := &rlBase{d: d, o: RLOptions{RLConfig: RLConfig{Sampling: Sampling{MaxTokens: max, K: 4, Temperature: 1}}, RewardSource: rlStack(t)}, pool: pool[:4], ref: pol, logf: t.Logf}
		if err := b.start(pol); err != nil {
			t.Fatal(err)
		}
		ro, err := b.rolloutOf(context.Background(), 0, []int{0, 1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for i, s := range ro.Samples {
			ended := len(s.Tokens) > 0 && s.Tokens[len(s.Tokens)-1] == eot
			if s.Truncated == ended {
				t.Errorf("max %d, sample %d: truncated %v with %d tokens, end token %v", max, i, s.Truncated, len(s.Tokens), ended)
			}
			if s.Truncated {
				cut++
				if len(s.Tokens) != max {
					t.Errorf("max %d, sample %d: truncated at %d tokens", max, i, len(s.Tokens))
				}
			}
		}
		if max == 3 && cut == 0 {
			t.Errorf("max 3: none of %d samples truncated, so this test shows nothing", len(ro.Samples))
		}
		t.Logf("max %d: %d of %d samples truncated", max, cut, len(ro.Samples))
		// the rollouts file says which samples were cut
		path := filepath.Join(t.TempDir(), "rollouts.jsonl")
		if err := (&rolloutWriter{path: path}).write(pool, ro); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(data), `"truncated":true`); got != cut {
			t.Errorf("max %d: %d rollout lines marked truncated, want %d", max, got, cut)
		}
	}
}

// recordingReward passes scoring on and keeps every completion it was
// given, with its database.
type recordingReward struct {
	in        RewardSource
	mu        sync.Mutex
	sqls, dbs []string
}

func (r *recordingReward) ScoreGroup(ctx context.Context, s reward.Sample, cs []string) ([]reward.Score, error) {
	r.mu.Lock()
	for _, c := range cs {
		r.sqls, r.dbs = append(r.sqls, c), append(r.dbs, s.DBID)
	}
	r.mu.Unlock()
	return r.in.ScoreGroup(ctx, s, cs)
}

// aliasLike says whether the identifier w is an alias rather than a name:
// T0..T63, or a word right after AS.
func aliasLike(before []sqlparse.Token, w string) bool {
	if len(w) >= 2 && (w[0] == 'T' || w[0] == 't') && strings.Trim(w[1:], "0123456789") == "" {
		return true
	}
	for i := len(before) - 1; i >= 0; i-- {
		if !before[i].IsTrivia() {
			return strings.EqualFold(before[i].Text, "AS")
		}
	}
	return false
}

func loadPolicy(t *testing.T, dir string) *policy.Policy {
	p, err := policy.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A renamed RL prompt shows new names, and its map takes a query written
// in them back to the database's: the gold, renamed forward and mapped
// back, is the gold again; a database name the prompt no longer shows
// maps to one no table has. Online KTO with renaming runs on such
// prompts and scores the samples in the database's names.
func TestRLRenamedPrompt(t *testing.T) {
	d := rlData(t)
	src := rlStack(t)
	o := rlOptions(t, AlgoKTO, t.TempDir(), src)
	o.Rename = 0.9
	pool, err := d.RLPrompts(context.Background(), RLOnHoldout)
	if err != nil {
		t.Fatal(err)
	}
	for _, families := range []bool{false, true} { // name by name; word by word (RenameFamilies)
		o.RenameFamilies = families
		checkRenamedPrompts(t, newOnline(d, o, pool, nil), pool[:20])
	}
	o.RenameFamilies = false

	// Guided samples write only the names their (renamed) prompt shows:
	// the reward must see them mapped back to the database's names.
	dbNames := map[string]map[string]bool{}
	for _, p := range pool {
		dbNames[p.DBID] = schemaNamesOf(p.Text)
	}
	rec := &recordingReward{in: src}
	o.RewardSource, o.Guided, o.Steps, o.Prompts, o.K, o.MaxTokens = rec, true, 2, 4, 4, 48
	o.RolloutsOut = filepath.Join(t.TempDir(), "rollouts.jsonl")
	if _, err := RL(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
	sqlWords := map[string]bool{}
	for _, w := range append(sqlparse.DefaultWords(), loadPolicy(t, rlInit(t)).Info.SQLWords...) {
		sqlWords[strings.ToLower(w)] = true
	}
	checked, foreign := 0, 0
	for k, sql := range rec.sqls {
		toks := sqlparse.Tokenize(sql)
		for i, tk := range toks[:max(len(toks)-1, 0)] { // the last may be cut mid-name
			if tk.Kind != sqlparse.KindIdentifier || sqlWords[strings.ToLower(tk.Text)] || aliasLike(toks[:i], tk.Text) {
				continue
			}
			checked++
			if !dbNames[rec.dbs[k]][strings.ToLower(tk.Text)] {
				foreign++
				t.Logf("%q: %q is not a name of %s", sql, tk.Text, rec.dbs[k])
			}
		}
	}
	if checked < 20 || foreign > 0 {
		t.Errorf("the reward saw %d of %d names that are not the database's (want 0 of at least 20)", foreign, checked)
	}
	o.Online, o.OfflineFile = false, o.RolloutsOut
	if _, err := RL(context.Background(), d, o); err == nil || !strings.Contains(err.Error(), "renaming") {
		t.Errorf("offline RL with renaming: error %v, want a refusal", err)
	}
}

// checkRenamedPrompts: each renamed prompt of pool shows new names and
// its map takes the gold, renamed forward, back to the gold.
func checkRenamedPrompts(t *testing.T, b *online, pool []RLPrompt) {
	t.Helper()
	rng := newStepRand(1, 0)
	renamed := 0
	for _, p := range pool {
		text, back, renaming, err := b.renamedPrompt(context.Background(), p, rng)
		if err != nil {
			t.Fatal(err)
		}
		if back == nil {
			continue
		}
		renamed++
		if text == p.Text {
			t.Errorf("question %d: renamed prompt equals the pool's", p.QuestionID)
		}
		fwd := map[string]string{}
		for nw, old := range back {
			if strings.HasPrefix(old, "renamed_away_") {
				if got := renameSQL(nw, back); got != old {
					t.Errorf("a database name no longer shown, %q, maps to %q", nw, got)
				}
				continue
			}
			fwd[old] = nw
		}
		if len(renaming) != len(fwd) {
			t.Errorf("question %d: the renaming has %d names, the map back %d", p.QuestionID, len(renaming), len(fwd))
		}
		for old, nw := range renaming {
			if !strings.EqualFold(fwd[old], nw) {
				t.Errorf("question %d: %q renamed %q, mapped back from %q", p.QuestionID, old, nw, fwd[old])
			}
		}
		if b.o.RenameFamilies {
			checkFamilies(t, p.QuestionID, fwd)
		}
		there := renameSQL(p.SQL, fwd)
		if there == p.SQL {
			t.Errorf("question %d: the gold %q names nothing renamed", p.QuestionID, p.SQL)
		}
		if again := renameSQL(there, back); !strings.EqualFold(again, p.SQL) {
			t.Errorf("question %d: gold %q -> %q -> %q", p.QuestionID, p.SQL, there, again)
		}
	}
	if renamed < len(pool)*3/4 {
		t.Errorf("families %v: %d of %d prompts renamed at probability 0.9", b.o.RenameFamilies, renamed, len(pool))
	}
}

// checkFamilies: under RenameFamilies one database word becomes one new
// word in every name of the prompt (order_id, order_date -> zub_id,
// zub_date); name-by-name renaming draws order apart in each.
func checkFamilies(t *testing.T, qid int, fwd map[string]string) {
	t.Helper()
	word := map[string]string{}
	for old, nw := range fwd {
		op, np := strings.Split(strings.ToLower(old), "_"), strings.Split(strings.ToLower(nw), "_")
		if len(op) != len(np) {
			t.Errorf("question %d: %q -> %q changes its number of words", qid, old, nw)
			continue
		}
		for i, w := range op {
			if prev, ok := word[w]; ok && prev != np[i] {
				t.Errorf("question %d: the word %q becomes %q and %q", qid, w, prev, np[i])
			}
			word[w] = np[i]
		}
	}
}
