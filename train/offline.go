package train

import (
	"context"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/policy"
)

// offline is RL on a fixed rollouts file (export.ReadRollouts' format):
// the same losses as online (kto, dpo, orpo), on samples that an earlier
// policy wrote. Prompts are rebuilt from the benchmark by (question_id,
// variant), so the file must come from the same split, augmentation and
// seed (SampleRollouts or `sqlrl data prepare` plus a sampler), or, after
// Data.UseQuestions, from the question file given there (a feedback
// export's rollouts.jsonl and its feedback.json).
type offline struct {
	rlBase
	groups [][]sample // per prompt of the file, its samples
	left   int        // the file's prompts left out by Start (too long)
}

func newOffline(ctx context.Context, d *Data, o RLOptions, pool []RLPrompt, ref *policy.Policy) (*offline, error) {
	t := &offline{rlBase: rlBase{d: d, o: o, pool: pool, ref: ref, logf: func(string, ...any) {}}}
	if o.Progress != nil {
		t.logf = func(f string, a ...any) { fmt.Fprintf(o.Progress, f+"\n", a...) }
	}
	rolls, err := export.ReadRollouts(ctx, o.OfflineFile)
	if err != nil {
		return nil, err
	}
	type key struct{ q, v int }
	at := map[key]int{}
	for i, p := range pool {
		at[key{p.QuestionID, p.Variant}] = i
	}
	byPrompt := map[int]int{} // pool index -> group
	for _, r := range rolls {
		pi, ok := at[key{r.QuestionID, r.Variant}]
		if !ok {
			if q := d.Notes[NoteRLQuestions]; q != "" {
				return nil, fmt.Errorf("%s: line %d: question %d variant %d is not among the %d questions of %s (variant 0 each): another export's questions?",
					o.OfflineFile, r.Line, r.QuestionID, r.Variant, len(pool), q)
			}
			return nil, fmt.Errorf("%s: line %d: question %d variant %d is not among the %d RL prompts (%s, x%d schema orders): another split or augmentation?",
				o.OfflineFile, r.Line, r.QuestionID, r.Variant, len(pool), o.On, d.HoldoutAugment)
		}
		s := sample{Prompt: pi, Completion: r.Completion, Desirable: r.Label}
		switch {
		case r.Reward != nil:
			s.Reward = *r.Reward
		case *r.Label:
			s.Reward = o.correctLevel()
		}
		if r.Label != nil && r.Reward != nil {
			s.Desirable = r.Label
		}
		g, ok := byPrompt[pi]
		if !ok {
			g = len(t.groups)
			byPrompt[pi] = g
			t.groups = append(t.groups, nil)
		}
		t.groups[g] = append(t.groups[g], s)
	}
	if len(t.groups) == 0 {
		return nil, fmt.Errorf("%s: no rollouts", o.OfflineFile)
	}
	return t, nil
}

func (t *offline) Fingerprint() map[string]string {
	f := t.fingerprint()
	f["offline_groups"] = fmt.Sprint(len(t.groups))
	return f
}

func (t *offline) String() string {
	return fmt.Sprintf("offline %s on %s (%d prompts), %d prompts a step", t.o.Algo, t.o.OfflineFile, len(t.groups), t.o.Prompts)
}

func (t *offline) Start(ctx context.Context, p *policy.Policy) error {
	if err := t.start(p); err != nil {
		return err
	}
	// The completions' tokens, once: the tokenizer is the run's and a
	// group is drawn again and again.
	// A prompt that leaves no room for a completion is left out, as the
	// pool leaves it out of online runs (rlBase.start says how many); a
	// file none of whose prompts fit is an error.
	eot := t.pol.Tok.EOT()
	maxT := t.pol.Model.Cfg.MaxSeq
	n, kept := len(t.groups), t.groups[:0]
	for _, g := range t.groups {
		if t.ptoks[g[0].Prompt] == nil {
			continue
		}
		for i := range g {
			s := &g[i]
			s.Tokens = append(t.pol.Tok.Encode(s.Completion), eot)
			if room := maxT - len(t.ptoks[s.Prompt]); len(s.Tokens) > room {
				s.Tokens = s.Tokens[:room]
			}
		}
		kept = append(kept, g)
	}
	t.groups, t.left = kept, n-len(kept)
	switch {
	case len(kept) == 0:
		return fmt.Errorf("%s: none of its %d questions' prompts fits the model's context of %d tokens with room for a completion", t.o.OfflineFile, n, maxT)
	case len(kept) < n:
		t.logf("rl: %d of the %d questions of %s are left out: their prompts do not fit the context", n-len(kept), n, t.o.OfflineFile)
	}
	return nil
}

// Step trains on o.Prompts groups of the file drawn by (Seed, step).
func (t *offline) Step(ctx context.Context, step int64) (StepStats, error) {
	ro := &rollout{Step: step, K: 2}
	pick := drawN(t.o.Seed^0x0ff1, step, len(t.groups), t.o.Prompts)
	for _, g := range pick {
		ro.Samples = append(ro.Samples, t.groups[g]...)
	}
	if err := t.scoreRef(ro); err != nil {
		return StepStats{}, err
	}
	return t.update(ctx, step, ro, true)
}

// SampleRollouts writes a rollouts file for offline RL: K completions of
// every RL prompt from the Init policy (o.Init), sampled as an online step
// samples them (unguided, temperature o.Temperature) and scored by
// o.RewardSource, one line each: question_id, variant, completion, reward,
// correct. It returns the number of lines.
func SampleRollouts(ctx context.Context, d *Data, o RLOptions, path string) (int, error) {
	o.Online = true
	o.defaults()
	if err := o.check(); err != nil {
		return 0, err
	}
	pool, err := d.RLPrompts(ctx, o.On)
	if err != nil {
		return 0, err
	}
	initCk, _, err := initCheckpoint(o.Init)
	if err != nil {
		return 0, err
	}
	pol, err := policy.LoadSQL(initCk)
	if err != nil {
		return 0, fmt.Errorf("load init %s: %w", initCk, err)
	}
	if err := checkInit(pol, d, pool); err != nil {
		return 0, fmt.Errorf("init %s: %w", initCk, err)
	}
	if h, ok := o.RewardSource.(HealthChecker); ok {
		if err := h.Health(ctx); err != nil {
			return 0, err
		}
	}
	t := newOnline(d, o, pool, pol)
	if err := t.start(pol); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for c := 0; c < len(t.fits); c += o.Prompts {
		idx := t.fits[c:min(c+o.Prompts, len(t.fits))]
		ro, err := t.rolloutOf(ctx, int64(c), idx)
		if err != nil {
			return n, err
		}
		if err := export.WriteRollouts(f, rolloutRecords(pool, ro, 0, false)); err != nil {
			return n, fmt.Errorf("write %s: %w", path, err)
		}
		n += len(ro.Samples)
		t.logf("sampled %d of %d prompts", min(c+o.Prompts, len(t.fits)), len(t.fits))
	}
	return n, f.Close()
}

// rolloutRecords are ro's samples as lines of a rollouts file, sampled at
// step. truncated says whether a completion cut at the sampling budget is
// marked (an online run's file marks them; SampleRollouts' files do not).
func rolloutRecords(pool []RLPrompt, ro *rollout, step int64, truncated bool) []export.Rollout {
	out := make([]export.Rollout, len(ro.Samples))
	for i, s := range ro.Samples {
		p := pool[s.Prompt]
		out[i] = export.Rollout{QuestionID: p.QuestionID, Variant: p.Variant, Completion: s.Completion,
			Reward: &s.Reward, Correct: &s.Correct, Truncated: truncated && s.Truncated, Step: &step}
	}
	return out
}

// drawN picks min(n, size) distinct indices below size for step step.
func drawN(seed uint64, step int64, size, n int) []int {
	perm := newStepRand(seed, step).Perm(size)
	return perm[:min(n, size)]
}
