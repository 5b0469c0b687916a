package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// SFTOptions configure SFT: its settings (SFTConfig) and where the run
// lives (Run.Seed drives initialisation, data order and augmentation).
type SFTOptions struct {
	Run
	SFTConfig
}

// loop is the loop's share of o.
func (o *SFTOptions) loop() LoopOptions {
	return LoopOptions{Run: o.Run, LoopConfig: o.LoopConfig, Settings: o.SFTConfig}
}

// DefaultRenameEach is SFT's probability that each schema name of a
// renamed example is renamed (SFTOptions.RenameEach); RL's replay renames
// its examples the same way.
const DefaultRenameEach = 0.9

// withDefaults is s with its unset fields at SFT's defaults: every
// example renamed, each name at DefaultRenameEach. SFT and the replay of
// its examples read s through it.
func (s SFTRenaming) withDefaults() SFTRenaming {
	if s.Rename == 0 {
		s.Rename = 1
	}
	if s.RenameEach == 0 {
		s.RenameEach = DefaultRenameEach
	}
	return s
}

func (o *SFTOptions) defaults() {
	o.Run.defaults()
	o.LoopConfig.defaults()
	if o.Preset == "" {
		o.Preset = "tiny"
	}
	if o.VocabSize == 0 {
		o.VocabSize = 2048
	}
	if o.Epochs == 0 {
		o.Epochs = 16
	}
	if o.BatchSize == 0 {
		o.BatchSize = 16
	}
	if o.LR == 0 {
		o.LR = 2e-3
	}
	o.SFTRenaming = o.SFTRenaming.withDefaults()
	if o.Group == 0 {
		o.Group = 8
	}
}

// SFT trains the policy by supervised fine-tuning on d's training
// examples (or resumes training it from the latest checkpoint in o.Out)
// and returns the final checkpoint.
func SFT(ctx context.Context, d *Data, o SFTOptions) (*Result, error) {
	o.defaults()
	if len(d.Train) == 0 {
		return nil, errors.New("train: no training examples")
	}
	if _, err := renameModeFor(o.RenameText, o.RenameFamilies); err != nil {
		return nil, err
	}
	if o.TokenizerOwn && o.General == "" {
		return nil, errors.New("train: -tokenizer-own keeps the general split's questions out of the tokenizer; it needs -general")
	}
	switch {
	case o.GeneralEach < 0:
		return nil, fmt.Errorf("train: -general-each must be 0 (all) or positive, got %d", o.GeneralEach)
	case o.GeneralEach > 0 && o.General == "":
		return nil, errors.New("train: -general-each draws from the general split's questions each epoch; it needs -general")
	}
	t := newSFT(d, o)
	res, err := Loop(ctx, d, o.loop(), t)
	if err != nil {
		return nil, err
	}
	res.Skipped = t.skipped
	return res, nil
}

// sft is the SFT objective: the completion's NLL (plus, optionally, the
// prompt's) on batches of an epoch plan.
type sft struct {
	d       *Data
	o       SFTOptions
	logf    func(string, ...any)
	pol     *policy.Policy
	sc      *policy.LogProbScorer
	batch   nn.Batch
	rn      *renamer
	nb      int   // batches per epoch
	general []int // indices of d.Train's general questions, when GeneralEach draws from them
	plan    [][]policy.Sequence
	planFor int
	skipped int
}

func newSFT(d *Data, o SFTOptions) *sft {
	t := &sft{d: d, o: o, logf: func(string, ...any) {}, planFor: -1}
	if o.Progress != nil {
		t.logf = func(f string, a ...any) { fmt.Fprintf(o.Progress, f+"\n", a...) }
	}
	mode, _ := renameModeFor(o.RenameText, o.RenameFamilies) // checked by SFT
	t.rn = d.trainRenamer(mode)
	n := len(d.Train)
	if o.GeneralEach > 0 {
		for i := range d.Train {
			if d.Train[i].general() {
				t.general = append(t.general, i)
			}
		}
		if len(t.general) > o.GeneralEach {
			n -= len(t.general) - o.GeneralEach
		} else {
			t.general = nil // every epoch holds them all
		}
	}
	t.nb = (n + o.BatchSize - 1) / o.BatchSize
	return t
}

// epochUse is which of d.Train epoch e trains on: nil for all; with
// GeneralEach, every own question and GeneralEach general ones. Epoch e
// takes the next GeneralEach of an endless sequence of seeded shuffles of
// the general questions (a stream of its own per shuffle), so that every
// general question is met once before any is met twice; one met twice
// within an epoch, where two shuffles meet, is passed over for the next.
func (t *sft) epochUse(e int) []bool {
	if t.general == nil {
		return nil
	}
	use := make([]bool, len(t.d.Train))
	for i := range use {
		use[i] = true
	}
	for _, i := range t.general {
		use[i] = false
	}
	g, n := len(t.general), t.o.GeneralEach // g > n: newSFT
	var perm []int
	round := -1
	for k, took := e*n, 0; took < n; k++ {
		if r := k / g; r != round {
			round = r
			perm = rand.New(rand.NewPCG(t.o.Seed, 0x67656e0000+uint64(r))).Perm(g) // "gen", shuffle r
		}
		if i := t.general[perm[k%g]]; !use[i] {
			use[i], took = true, took+1
		}
	}
	return use
}

// Fingerprint is SFT's part of what a resumed run must share with the run
// it resumes: the model, the data and how it is cut and augmented.
func (t *sft) Fingerprint() map[string]string {
	o, d := &t.o, t.d
	f := map[string]string{
		"preset": o.Preset, "vocab": fmt.Sprint(o.VocabSize),
		"epochs": fmt.Sprint(o.Epochs), "max_steps": fmt.Sprint(o.MaxSteps), "batch": fmt.Sprint(o.BatchSize),
		"rename": fmt.Sprint(o.Rename), "rename_each": fmt.Sprint(o.RenameEach), "prompt_loss": fmt.Sprint(o.PromptLoss),
		"group":    fmt.Sprint(o.Group),
		"examples": fmt.Sprint(len(d.Train)), "words": fmt.Sprint(len(d.Words)),
	}
	if d.Task != "" {
		f["task"] = d.Task
	}
	if o.RenameText {
		// Only when set: a run from before the option, whose checkpoint
		// has no such key, still resumes.
		f["rename_text"] = "true"
	}
	if o.RenameFamilies {
		f["rename_families"] = "true"
	}
	if o.TokenizerOwn {
		f["tokenizer_own"] = "true"
	}
	if o.GeneralEach > 0 {
		f["general_each"] = fmt.Sprint(o.GeneralEach)
	}
	if o.Model != nil {
		b, _ := json.Marshal(o.Model)
		f["model"] = string(b)
	}
	fb, _ := json.Marshal(d.Format)
	f["format"] = string(fb)
	for k, v := range d.Notes {
		f["data."+k] = v
	}
	return f
}

// Steps is the run's length: Epochs over the data, or MaxSteps if fewer.
func (t *sft) Steps() int64 {
	total := int64(t.o.Epochs * t.nb)
	if t.o.MaxSteps > 0 && int64(t.o.MaxSteps) < total {
		total = int64(t.o.MaxSteps)
	}
	return total
}

func (t *sft) String() string {
	if t.general != nil {
		return fmt.Sprintf("%d examples (%d general, %d of them an epoch), %d steps/epoch",
			len(t.d.Train), len(t.general), t.o.GeneralEach, t.nb)
	}
	return fmt.Sprintf("%d examples, %d steps/epoch", len(t.d.Train), t.nb)
}

// NewPolicy trains a tokenizer on the training prompts and completions as
// they are (with TokenizerOwn, the general split's left out) and draws
// random weights. Renamed variants stay out of the
// tokenizer on purpose: their made-up names then split into pieces, as
// unseen names do at evaluation, and training teaches where a name made of
// pieces ends.
func (t *sft) NewPolicy(ctx context.Context) (*policy.Policy, error) {
	o := t.o
	var corpus []string
	for i := range t.d.Train {
		if o.TokenizerOwn && t.d.Train[i].general() {
			continue
		}
		p, c, err := t.d.render(ctx, &t.d.Train[i], nil, 0, nil)
		if err != nil {
			return nil, err
		}
		corpus = append(corpus, p, c)
	}
	start := time.Now()
	tok, err := tokenizer.Train(corpus, tokenizer.TrainOptions{VocabSize: o.VocabSize})
	if err != nil {
		return nil, err
	}
	t.logf("tokenizer: %d tokens trained on %d texts in %s", tok.VocabSize(), len(corpus), time.Since(start).Round(time.Millisecond))
	cfg, err := nn.Preset(o.Preset, tok.VocabSize())
	if o.Model != nil {
		cfg, err = *o.Model, nil
		cfg.Vocab = tok.VocabSize()
	}
	if err != nil {
		return nil, err
	}
	preset := o.Preset
	if o.Model != nil {
		preset = "custom"
	}
	pol, err := policy.New(tok, preset, cfg, t.d.Format, o.Seed)
	if err != nil {
		return nil, err
	}
	pol.Info.Notes = t.d.Notes
	pol.Info.SQLWords = t.d.SQLWords
	pol.Info.Task = t.d.Task
	return pol, nil
}

// Start takes the policy the loop trains. A policy from another run
// (LoopOptions.Init) must expect the prompt format SFT renders, or it
// would be trained on prompts unlike those it is later asked.
func (t *sft) Start(ctx context.Context, p *policy.Policy) error {
	if p.Info.Prompt != t.d.Format {
		return fmt.Errorf("train: the policy expects prompts %+v, the data is rendered as %+v", p.Info.Prompt, t.d.Format)
	}
	switch {
	case p.Info.Task == t.d.Task:
	case p.Info.Task == "" && t.d.Task == policy.TaskReview:
		// A reviewer starts from a planner: it already reads the schema
		// and the SQL; it learns to write the question instead.
		p.Info.Task = t.d.Task
	default:
		return fmt.Errorf("train: the policy's task is %q, the data's %q", p.Info.Task, t.d.Task)
	}
	t.pol = p
	t.sc = policy.NewLogProbScorer(p.Model)
	t.planFor = -1
	return nil
}

// Step trains on batch step%nb of epoch step/nb's plan.
func (t *sft) Step(ctx context.Context, step int64) (StepStats, error) {
	if step < 0 {
		// the loop refuses a state with a negative step; an index from
		// one must not reach the plan
		return StepStats{}, fmt.Errorf("train: sft step %d: want >= 0", step)
	}
	e, bi := int(step)/t.nb, int(step)%t.nb
	if t.planFor != e {
		if err := t.epochPlan(ctx, e); err != nil {
			return StepStats{}, err
		}
	}
	batch := t.plan[bi]
	ss := StepStats{Epoch: e, NoUpdate: len(batch) == 0} // empty only when every example was too long
	for _, s := range batch {
		ss.Tokens += len(s.Tokens)
	}
	if len(batch) == 0 {
		return ss, nil
	}
	var err error
	if t.o.PromptLoss > 0 {
		ss.Loss, err = t.stepWithPrompt(batch, &t.batch)
	} else {
		ss.Loss, _, err = completionStep(t.sc, batch, 1)
	}
	return ss, err
}

// epochPlan tokenizes epoch e's examples (renamed with the epoch's draws)
// and cuts them into batches. With groups (SFTOptions.Group > 1), a seeded
// shuffle of the examples is cut, database by database, into groups that
// share one draw of renamed names, the groups are shuffled and laid end to
// end, and every Batch consecutive examples make a batch, whose questions
// on one database share their schema's computation. Without groups: a
// seeded shuffle, then sorting by length within windows of 16 batches, so
// a batch holds similar lengths, then a shuffle of the batches. With
// GeneralEach, the examples are epochUse's: the epoch's draw of general
// questions beside all the own ones.
func (t *sft) epochPlan(ctx context.Context, e int) error {
	o := t.o
	n := len(t.d.Train)
	rng := rand.New(rand.NewPCG(o.Seed, 0xe90c0000+uint64(e)))
	perm := rng.Perm(n)
	use := t.epochUse(e)
	if use != nil {
		perm = slices.DeleteFunc(perm, func(i int) bool { return !use[i] })
	}
	// draw[i] seeds example i's augmentation; examples of a group share it
	draw := make([]uint64, n)
	order := perm
	grouped := o.Group > 1 && t.d.TrainPrompter != nil
	if grouped {
		byDB := map[string][]int{}
		var dbs []string
		for _, i := range perm {
			db := t.d.Train[i].DBID
			if _, ok := byDB[db]; !ok {
				dbs = append(dbs, db)
			}
			byDB[db] = append(byDB[db], i)
		}
		var groups [][]int
		for _, db := range dbs {
			ex := byDB[db]
			for k := 0; k < len(ex); k += o.Group {
				groups = append(groups, ex[k:min(k+o.Group, len(ex))])
			}
		}
		rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		order = order[:0:0]
		for _, g := range groups {
			for _, i := range g {
				draw[i] = uint64(g[0])
			}
			order = append(order, g...)
		}
	} else {
		for i := range draw {
			draw[i] = uint64(i)
		}
	}
	seqs := make([]policy.Sequence, n)
	schemas := map[string][]int32{} // a group's schema text, tokenized once
	maxT := t.pol.Model.Cfg.MaxSeq
	fit := completionFitter(t.pol)
	t.skipped = 0
	for i := 0; i < n; i++ {
		if use != nil && !use[i] {
			continue
		}
		ex := &t.d.Train[i]
		var arng *rand.Rand
		p := 0.0
		er := rand.New(rand.NewPCG(o.Seed^uint64(e)*0x9e3779b97f4a7c15, draw[i]))
		if er.Float64() < o.Rename {
			arng, p = er, o.RenameEach
		}
		pr, c, err := t.d.renderFit(ctx, ex, t.rn, p, arng, fit)
		if err != nil {
			return err
		}
		seqs[i] = t.pol.Sequence(pr, c)
		if len(seqs[i].Tokens) > maxT {
			seqs[i] = policy.Sequence{}
			t.skipped++
			continue
		}
		if grouped {
			seqs[i].Shared = t.pol.SchemaTokens(pr, seqs[i], schemas)
		}
	}
	if grouped && e == 0 {
		var sch, pr, comp, k int
		for _, q := range seqs {
			if q.Tokens != nil {
				sch, pr, comp, k = sch+q.Shared, pr+q.PromptLen, comp+len(q.Tokens)-q.PromptLen, k+1
			}
		}
		if k > 0 {
			t.logf("tokens per example: prompt %d (schema %d, shared within groups of %d), completion %d", pr/k, sch/k, o.Group, comp/k)
		}
	}
	var batches [][]policy.Sequence
	if grouped {
		for s := 0; s < len(order); s += o.BatchSize {
			var bt []policy.Sequence
			for _, i := range order[s:min(s+o.BatchSize, len(order))] {
				if seqs[i].Tokens != nil {
					bt = append(bt, seqs[i])
				}
			}
			batches = append(batches, bt)
		}
		t.plan, t.planFor = batches, e
		return nil
	}
	win := 16 * o.BatchSize
	for w := 0; w < len(perm); w += win {
		idx := slices.Clone(perm[w:min(w+win, len(perm))])
		slices.SortStableFunc(idx, func(a, b int) int { return len(seqs[a].Tokens) - len(seqs[b].Tokens) })
		for s := 0; s < len(idx); s += o.BatchSize {
			var bt []policy.Sequence
			for _, i := range idx[s:min(s+o.BatchSize, len(idx))] {
				if seqs[i].Tokens != nil {
					bt = append(bt, seqs[i])
				}
			}
			batches = append(batches, bt)
		}
	}
	rng.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
	t.plan, t.planFor = batches, e
	return nil
}

// completionFitter fits prompts for training sequences of p: the
// completion and its end token must fit beside the prompt in p's context.
func completionFitter(p *policy.Policy) *Fitter {
	maxT := p.Model.Cfg.MaxSeq
	return &Fitter{Counter: policy.TokenizerCounter{Tok: p.Tok}, Room: func(c string) int { return maxT - 1 - len(p.Tok.Encode(c)) }}
}

// trainRenamer draws new names from the words of the SFT share's
// questions and evidence and of the schemas (Data.Words): the renamer of
// SFT's augmentation, and of RL's renamed samples and replay, which
// rename as SFT does, in the given mode.
func (d *Data) trainRenamer(mode renameMode) *renamer {
	var texts []string
	for _, ex := range d.Train {
		texts = append(texts, ex.Question, ex.Evidence)
	}
	rn := newRenamer(append(texts, d.Words...))
	rn.mode = mode
	return rn
}

// completionStep is the SFT loss through the scorer API: the mean NLL of
// the completion tokens of the batch, and its gradient times w (1 for
// SFT; RL's replay weighs it), added into the model's. It returns the
// loss and the tokens it was taken over.
func completionStep(sc *policy.LogProbScorer, batch []policy.Sequence, w float64) (float64, int, error) {
	lps, err := sc.LogProbs(batch)
	if err != nil {
		return 0, 0, err
	}
	ntok, sum := 0, 0.0
	for _, lp := range lps {
		ntok += lp.Tokens
		sum += lp.Sum
	}
	dsum := make([]float64, len(lps))
	for i := range dsum {
		dsum[i] = -w / float64(ntok)
	}
	return -sum / float64(ntok), ntok, sc.Backward(dsum, nil)
}

// stepWithPrompt scores every position; the loss is the completion NLL
// plus PromptLoss times the prompt NLL, both summed and divided by the
// number of completion tokens. It returns the completion's mean NLL.
func (t *sft) stepWithPrompt(batch []policy.Sequence, b *nn.Batch) (float64, error) {
	m := t.pol.Model
	b.Reset()
	for _, s := range batch {
		b.AddSeq(s.Tokens, 0, s.PromptLen)
	}
	lp, err := m.Forward(b)
	if err != nil {
		return 0, err
	}
	d := make([]float32, len(lp))
	ncomp, sum := 0, 0.0
	k := 0
	for _, s := range batch {
		for i := 0; i+1 < len(s.Tokens); i++ {
			if i+1 >= s.PromptLen {
				ncomp++
				sum += float64(lp[k+i])
			}
		}
		k += len(s.Tokens) - 1
	}
	k = 0
	w := float32(t.o.PromptLoss)
	inv := -1 / float32(ncomp)
	for _, s := range batch {
		for i := 0; i+1 < len(s.Tokens); i++ {
			if i+1 >= s.PromptLen {
				d[k+i] = inv
			} else {
				d[k+i] = w * inv
			}
		}
		k += len(s.Tokens) - 1
	}
	return -sum / float64(ncomp), m.Backward(d)
}
