// Package train trains sqlrl's native policy (package policy). SFT is
// supervised fine-tuning from random weights: token NLL on the completion
// only, AdamW with linear warmup and cosine decay, gradient clipping,
// batches of similar lengths packed without padding, identifier-renaming
// augmentation, dev evaluation by execution, and checkpoints from which a
// killed run resumes exactly (same data order, same augmentation, same
// optimizer state, hence the same losses bit for bit).
package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// Options configure SFT.
type Options struct {
	// Out is the run directory: checkpoints step-NNNNNN/, "latest", and
	// train_log.jsonl.
	Out string
	// Preset names the model size (nn.Presets); Model, when set, replaces
	// it (its Vocab is filled in).
	Preset string
	Model  *nn.Config
	// VocabSize of the tokenizer trained on the training data (default
	// 2048).
	VocabSize int
	// Seed drives initialisation, data order and augmentation.
	Seed uint64
	// Epochs over the training data (default 16); MaxSteps > 0 stops
	// earlier.
	Epochs   int
	MaxSteps int
	// BatchSize is sequences per step (default 16).
	BatchSize int
	// LR is the peak learning rate (default 2e-3), reached after Warmup
	// steps (default 5% of the run) and decayed along a cosine to
	// LR*MinLRFrac (default 0.1).
	LR, MinLRFrac float64
	Warmup        int
	WeightDecay   float64 // default 0.1
	Clip          float64 // gradient norm clip, default 1
	// Rename is the share of training examples whose schema names are
	// renamed at random (default 1; negative: none), RenameEach the
	// probability that each name of such an example is (default 0.9).
	// Compact data only.
	Rename, RenameEach float64
	// PromptLoss > 0 adds the prompt tokens' NLL, weighted by it, to the
	// completion's (normalised by completion tokens): a denser signal that
	// teaches copying (evidence repeats schema names and question values)
	// sooner. 0 is completion-only SFT.
	PromptLoss float64
	// Group puts up to this many questions on one database in a row, with
	// one draw of renamed names, so that their batch computes the schema
	// part of their prompts once (nn.Batch.Prefix): the schema is most of
	// a compact prompt, so a step costs about a third. 1 trains each
	// question on its own draw, as before groups; default 8.
	Group int
	// SaveEvery steps a checkpoint is written (default 200) and the last
	// Keep (default 2) are kept.
	SaveEvery, Keep int
	// EvalEvery steps (0: only at the end; negative: never) the policy
	// decodes EvalN dev questions greedily (default 100; 0 means all) and
	// scores them by execution.
	EvalEvery, EvalN int
	// NoGuide decodes dev questions without the schema guide
	// (sqlparse.Guide) that `sqlrl generate` applies by default.
	NoGuide bool
	// Restart ignores an existing checkpoint in Out instead of resuming.
	Restart bool
	// Threads for the engine (default 2).
	Threads int
	// Progress receives a line per LogEvery steps (default 20) and each
	// evaluation.
	Progress io.Writer
	LogEvery int
	// StopAfter > 0 makes Run return ErrStopped right after that step,
	// without saving: a simulated kill, for tests.
	StopAfter int
}

// ErrStopped is returned by a run stopped by Options.StopAfter.
var ErrStopped = errors.New("train: stopped (StopAfter)")

func (o *Options) defaults() {
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
	if o.MinLRFrac == 0 {
		o.MinLRFrac = 0.1
	}
	if o.WeightDecay == 0 {
		o.WeightDecay = 0.1
	}
	if o.Clip == 0 {
		o.Clip = 1
	}
	if o.Rename == 0 {
		o.Rename = 1
	}
	if o.RenameEach == 0 {
		o.RenameEach = 0.9
	}
	if o.SaveEvery == 0 {
		o.SaveEvery = 200
	}
	if o.Group == 0 {
		o.Group = 8
	}
	if o.Keep == 0 {
		o.Keep = 2
	}
	if o.EvalN == 0 {
		o.EvalN = 100
	}
	if o.Threads == 0 {
		o.Threads = 2
	}
	if o.LogEvery == 0 {
		o.LogEvery = 20
	}
}

// fingerprint is what a resumed run must share with the run it resumes.
func (o *Options) fingerprint(d *Data) map[string]string {
	f := map[string]string{
		"preset": o.Preset, "vocab": fmt.Sprint(o.VocabSize), "seed": fmt.Sprint(o.Seed),
		"epochs": fmt.Sprint(o.Epochs), "max_steps": fmt.Sprint(o.MaxSteps), "batch": fmt.Sprint(o.BatchSize),
		"lr": fmt.Sprint(o.LR), "min_lr_frac": fmt.Sprint(o.MinLRFrac), "warmup": fmt.Sprint(o.Warmup),
		"weight_decay": fmt.Sprint(o.WeightDecay), "clip": fmt.Sprint(o.Clip),
		"rename": fmt.Sprint(o.Rename), "rename_each": fmt.Sprint(o.RenameEach), "prompt_loss": fmt.Sprint(o.PromptLoss),
		"group":    fmt.Sprint(o.Group),
		"examples": fmt.Sprint(len(d.Train)), "words": fmt.Sprint(len(d.Words)),
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

// State is a checkpoint's state.json: where the run is.
type State struct {
	// Step is the number of optimizer steps taken.
	Step        int64             `json:"step"`
	TotalSteps  int64             `json:"total_steps"`
	AdamStep    int64             `json:"adam_step"`
	Loss        float64           `json:"loss"`
	Tokens      int64             `json:"tokens"`
	ElapsedSec  float64           `json:"elapsed_s"`
	Fingerprint map[string]string `json:"fingerprint"`
}

// LogLine is one line of train_log.jsonl.
type LogLine struct {
	Step     int64   `json:"step"`
	Epoch    int     `json:"epoch"`
	Loss     float64 `json:"loss"`
	LR       float64 `json:"lr"`
	GradNorm float64 `json:"grad_norm"`
	Tokens   int     `json:"tokens"`
	TokPerS  float64 `json:"tok_per_s"`
	Elapsed  float64 `json:"elapsed_s"`
	Eval     *Eval   `json:"eval,omitempty"`
}

// Result is what Run returns.
type Result struct {
	Checkpoint string
	State      State
	LastEval   *Eval
	Skipped    int // examples longer than the model's context
}

// Run trains (or resumes training) and returns the final checkpoint.
func Run(ctx context.Context, d *Data, o Options) (*Result, error) {
	o.defaults()
	nn.SetThreads(o.Threads)
	if len(d.Train) == 0 {
		return nil, errors.New("train: no training examples")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	t := &trainer{d: d, o: o, fp: o.fingerprint(d), logf: func(string, ...any) {}}
	if o.Progress != nil {
		t.logf = func(f string, a ...any) { fmt.Fprintf(o.Progress, f+"\n", a...) }
	}
	if err := t.init(ctx); err != nil {
		return nil, err
	}
	return t.loop(ctx)
}

type trainer struct {
	d       *Data
	o       Options
	fp      map[string]string
	logf    func(string, ...any)
	pol     *policy.Policy
	opt     *nn.AdamW
	st      State
	rn      *renamer
	nb      int // batches per epoch
	plan    [][]policy.Sequence
	planFor int
	skipped int
	log     *os.File
}

func (t *trainer) init(ctx context.Context) error {
	o := t.o
	var texts []string
	for _, ex := range t.d.Train {
		texts = append(texts, ex.Question, ex.Evidence)
	}
	t.rn = newRenamer(append(texts, t.d.Words...))
	ck, err := policy.Resolve(o.Out)
	if err == nil && !o.Restart {
		return t.resume(ck)
	}
	// fresh: tokenizer on the training prompts and completions as they are.
	// Renamed variants stay out of it on purpose: their made-up names then
	// split into pieces, as unseen names do at evaluation, and training
	// teaches where a name made of pieces ends.
	var corpus []string
	for i := range t.d.Train {
		p, c, err := t.d.render(ctx, &t.d.Train[i], nil, 0, nil)
		if err != nil {
			return err
		}
		corpus = append(corpus, p, c)
	}
	start := time.Now()
	tok, err := tokenizer.Train(corpus, tokenizer.TrainOptions{VocabSize: o.VocabSize})
	if err != nil {
		return err
	}
	t.logf("tokenizer: %d tokens trained on %d texts in %s", tok.VocabSize(), len(corpus), time.Since(start).Round(time.Millisecond))
	cfg, err := nn.Preset(o.Preset, tok.VocabSize())
	if o.Model != nil {
		cfg, err = *o.Model, nil
		cfg.Vocab = tok.VocabSize()
	}
	if err != nil {
		return err
	}
	preset := o.Preset
	if o.Model != nil {
		preset = "custom"
	}
	if t.pol, err = policy.New(tok, preset, cfg, t.d.Format, o.Seed); err != nil {
		return err
	}
	t.pol.Info.Notes = t.d.Notes
	t.pol.Info.SQLWords = t.d.SQLWords
	t.opt = nn.NewAdamW(t.pol.Model, o.WeightDecay)
	t.st = State{Fingerprint: t.fp}
	os.Remove(filepath.Join(o.Out, logFile))
	return t.setup()
}

const logFile = "train_log.jsonl"

func (t *trainer) setup() error {
	t.pol.Model.EnableGrads()
	t.nb = (len(t.d.Train) + t.o.BatchSize - 1) / t.o.BatchSize
	total := int64(t.o.Epochs * t.nb)
	if t.o.MaxSteps > 0 && int64(t.o.MaxSteps) < total {
		total = int64(t.o.MaxSteps)
	}
	t.st.TotalSteps = total
	t.planFor = -1
	f, err := os.OpenFile(filepath.Join(t.o.Out, logFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	t.log = f
	c := t.pol.Model.Cfg
	t.logf("model: %s, %d params (d%d L%d H%d ffn %d, vocab %d, ctx %d); %d examples, %d steps/epoch, %d steps; gemm %s",
		t.pol.Info.Preset, c.NumParams(), c.Dim, c.Layers, c.Heads, c.Hidden, c.Vocab, c.MaxSeq, len(t.d.Train), t.nb, total, nn.CurrentBackend())
	return nil
}

func (t *trainer) resume(ck string) error {
	var st State
	b, err := os.ReadFile(filepath.Join(ck, "state.json"))
	if err != nil {
		return fmt.Errorf("resume from %s: %w", ck, err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("resume from %s: %w", ck, err)
	}
	var diff []string
	for k, v := range t.fp {
		if st.Fingerprint[k] != v {
			diff = append(diff, fmt.Sprintf("%s: checkpoint %q, now %q", k, st.Fingerprint[k], v))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("%s holds a run with other settings (use -restart to start over):\n  %s", t.o.Out, strings.Join(diff, "\n  "))
	}
	if t.pol, err = policy.Load(ck); err != nil {
		return err
	}
	t.opt = nn.NewAdamW(t.pol.Model, t.o.WeightDecay)
	mv, err := nn.LoadFloats(filepath.Join(ck, "optimizer.bin"), 2*len(t.pol.Model.Params))
	if err != nil {
		return err
	}
	n := len(t.pol.Model.Params)
	copy(t.opt.M, mv[:n])
	copy(t.opt.V, mv[n:])
	t.opt.Step = st.AdamStep
	t.st = st
	t.logf("resuming %s at step %d of %d (loss %.4f)", ck, st.Step, st.TotalSteps, st.Loss)
	return t.setup()
}

// epochPlan tokenizes epoch e's examples (renamed with the epoch's draws)
// and cuts them into batches. With groups (Options.Group > 1), a seeded
// shuffle of the examples is cut, database by database, into groups that
// share one draw of renamed names, the groups are shuffled and laid end to
// end, and every Batch consecutive examples make a batch, whose questions
// on one database share their schema's computation. Without groups: a
// seeded shuffle, then sorting by length within windows of 16 batches, so
// a batch holds similar lengths, then a shuffle of the batches.
func (t *trainer) epochPlan(ctx context.Context, e int) error {
	o := t.o
	n := len(t.d.Train)
	rng := rand.New(rand.NewPCG(o.Seed, 0xe90c0000+uint64(e)))
	perm := rng.Perm(n)
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
	t.skipped = 0
	for i := 0; i < n; i++ {
		ex := &t.d.Train[i]
		var arng *rand.Rand
		p := 0.0
		er := rand.New(rand.NewPCG(o.Seed^uint64(e)*0x9e3779b97f4a7c15, draw[i]))
		if er.Float64() < o.Rename {
			arng, p = er, o.RenameEach
		}
		pr, c, err := t.d.render(ctx, ex, t.rn, p, arng)
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
			seqs[i].Shared = t.schemaTokens(pr, seqs[i], schemas)
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
		for s := 0; s < n; s += o.BatchSize {
			var bt []policy.Sequence
			for _, i := range order[s:min(s+o.BatchSize, n)] {
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
	for w := 0; w < n; w += win {
		idx := slices.Clone(perm[w:min(w+win, n)])
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

// schemaTokens returns how many of seq's tokens are the schema part of its
// compact prompt pr (the lines before "question: "), or 0 when the prompt's
// tokens do not start with the schema's own. cache keeps each schema
// text's tokens: the questions of a group share one.
func (t *trainer) schemaTokens(pr string, seq policy.Sequence, cache map[string][]int32) int {
	k := strings.Index(pr, "\nquestion: ")
	if k < 0 {
		return 0
	}
	st, ok := cache[pr[:k+1]]
	if !ok {
		st = t.pol.Tok.Encode(pr[:k+1])
		cache[pr[:k+1]] = st
	}
	if len(st) >= seq.PromptLen || !slices.Equal(st, seq.Tokens[:len(st)]) {
		return 0
	}
	return len(st)
}

func (t *trainer) lr(step int64) float64 {
	o := t.o
	total := t.st.TotalSteps
	warm := int64(o.Warmup)
	if warm <= 0 {
		warm = max(1, total/20)
	}
	if step < warm {
		return o.LR * float64(step+1) / float64(warm)
	}
	frac := float64(step-warm) / float64(max(1, total-warm))
	minLR := o.LR * o.MinLRFrac
	return minLR + 0.5*(o.LR-minLR)*(1+math.Cos(math.Pi*min(frac, 1)))
}

func (t *trainer) loop(ctx context.Context) (*Result, error) {
	defer t.log.Close()
	o := t.o
	m := t.pol.Model
	sc := policy.NewScorer(m)
	var nb nn.Batch
	res := &Result{}
	var winTok int
	winStart := time.Now()
	runStart := time.Now()
	base := t.st.ElapsedSec
	var lastCk string
	for t.st.Step < t.st.TotalSteps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step := t.st.Step
		e, bi := int(step)/t.nb, int(step)%t.nb
		if t.planFor != e {
			if err := t.epochPlan(ctx, e); err != nil {
				return nil, err
			}
		}
		batch := t.plan[bi]
		m.ZeroGrads()
		var loss, gn float64
		lr := t.lr(step)
		if len(batch) > 0 { // empty only when every example was too long
			var err error
			if o.PromptLoss > 0 {
				loss, err = t.stepWithPrompt(batch, &nb)
			} else {
				loss, err = completionStep(sc, batch)
			}
			if err != nil {
				return nil, err
			}
			gn = nn.ClipGrads(m.Grads, o.Clip)
			t.opt.Update(m.Params, m.Grads, lr)
		}
		tokens := 0
		for _, s := range batch {
			tokens += len(s.Tokens)
		}
		t.st.Step++
		t.st.AdamStep = t.opt.Step
		t.st.Loss = loss
		t.st.Tokens += int64(tokens)
		t.st.ElapsedSec = base + time.Since(runStart).Seconds()
		winTok += tokens
		line := LogLine{Step: t.st.Step, Epoch: e, Loss: loss, LR: lr, GradNorm: gn, Tokens: tokens, Elapsed: t.st.ElapsedSec}
		if t.st.Step%int64(o.LogEvery) == 0 || t.st.Step == t.st.TotalSteps {
			line.TokPerS = float64(winTok) / time.Since(winStart).Seconds()
			t.logf("step %d/%d epoch %d loss %.4f lr %.2e gnorm %.2f %.0f tok/s %.0fs", t.st.Step, t.st.TotalSteps, e, loss, lr, gn, line.TokPerS, t.st.ElapsedSec)
			winTok, winStart = 0, time.Now()
		}
		if o.StopAfter > 0 && t.st.Step == int64(o.StopAfter) {
			t.writeLog(line)
			return nil, ErrStopped
		}
		last := t.st.Step == t.st.TotalSteps
		if o.EvalEvery >= 0 && t.d.DevEngine != nil && (last || o.EvalEvery > 0 && t.st.Step%int64(o.EvalEvery) == 0) {
			ev, err := EvalDev(ctx, t.pol, t.d, o.EvalN, o.Seed, !o.NoGuide)
			if err != nil {
				return nil, err
			}
			line.Eval = ev
			res.LastEval = ev
			t.logf("eval step %d: %s", t.st.Step, ev)
			// evaluation time is not training time
			runStart = runStart.Add(time.Duration(ev.Seconds * float64(time.Second)))
			t.st.ElapsedSec = base + time.Since(runStart).Seconds()
		}
		t.writeLog(line)
		if last || t.st.Step%int64(o.SaveEvery) == 0 {
			var err error
			if lastCk, err = t.save(); err != nil {
				return nil, err
			}
		}
	}
	if lastCk == "" {
		var err error
		if lastCk, err = policy.Resolve(o.Out); err != nil {
			return nil, err
		}
	}
	res.Checkpoint, res.State, res.Skipped = lastCk, t.st, t.skipped
	return res, nil
}

func (t *trainer) writeLog(l LogLine) {
	b, _ := json.Marshal(l)
	t.log.Write(append(b, '\n'))
}

// save writes a checkpoint directory atomically (a temporary directory
// renamed into place), points "latest" at it, and prunes old ones.
func (t *trainer) save() (string, error) {
	name := fmt.Sprintf("step-%06d", t.st.Step)
	dir := filepath.Join(t.o.Out, name)
	tmp := filepath.Join(t.o.Out, "."+name+".tmp")
	os.RemoveAll(tmp)
	t.pol.Info.Step = t.st.Step
	if err := t.pol.Save(tmp); err != nil {
		return "", err
	}
	n := len(t.pol.Model.Params)
	mv := make([]float32, 2*n)
	copy(mv, t.opt.M)
	copy(mv[n:], t.opt.V)
	if err := nn.SaveFloats(filepath.Join(tmp, "optimizer.bin"), mv); err != nil {
		return "", err
	}
	sb, _ := json.MarshalIndent(t.st, "", "  ")
	if err := nn.WriteFileAtomic(filepath.Join(tmp, "state.json"), func(w io.Writer) error { _, err := w.Write(sb); return err }); err != nil {
		return "", err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if err := nn.WriteFileAtomic(filepath.Join(t.o.Out, policy.FileLatest), func(w io.Writer) error {
		_, err := io.WriteString(w, name+"\n")
		return err
	}); err != nil {
		return "", err
	}
	entries, _ := os.ReadDir(t.o.Out)
	var cks []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "step-") {
			cks = append(cks, e.Name())
		}
	}
	sort.Strings(cks)
	for len(cks) > t.o.Keep {
		if cks[0] != name {
			os.RemoveAll(filepath.Join(t.o.Out, cks[0]))
		}
		cks = cks[1:]
	}
	return dir, nil
}

// completionStep is the SFT loss through the scorer API: the mean NLL of
// the completion tokens of the batch, and its gradient.
func completionStep(sc *policy.Scorer, batch []policy.Sequence) (float64, error) {
	lps, err := sc.LogProbs(batch)
	if err != nil {
		return 0, err
	}
	ntok, sum := 0, 0.0
	for _, lp := range lps {
		ntok += lp.Tokens
		sum += lp.Sum
	}
	dsum := make([]float64, len(lps))
	for i := range dsum {
		dsum[i] = -1 / float64(ntok)
	}
	return -sum / float64(ntok), sc.Backward(dsum, nil)
}

// stepWithPrompt scores every position; the loss is the completion NLL
// plus PromptLoss times the prompt NLL, both summed and divided by the
// number of completion tokens. It returns the completion's mean NLL.
func (t *trainer) stepWithPrompt(batch []policy.Sequence, b *nn.Batch) (float64, error) {
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
