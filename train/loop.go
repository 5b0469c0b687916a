package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

// LoopOptions are the settings every objective's run shares: where the run
// lives, the optimizer and its learning-rate schedule, checkpoints, dev
// evaluation and logging. An objective's options embed them (SFTOptions).
type LoopOptions struct {
	Run
	LoopConfig
	// Settings, when set, are the objective's (RLConfig, SFTConfig),
	// recorded in Out as SettingsFile once the run has started.
	Settings any
}

// ErrStopped is returned by a run stopped by LoopOptions.StopAfter.
var ErrStopped = errors.New("train: stopped (StopAfter)")

func (o *LoopOptions) defaults() {
	o.Run.defaults()
	o.LoopConfig.defaults()
}

func (c *LoopConfig) defaults() {
	if c.MinLRFrac == 0 {
		c.MinLRFrac = 0.1
	}
	if c.WeightDecay == 0 {
		c.WeightDecay = 0.1
	}
	if c.Clip == 0 {
		c.Clip = 1
	}
	if c.EvalN == 0 {
		c.EvalN = 100
	}
}

func (r *Run) defaults() {
	if r.SaveEvery == 0 {
		r.SaveEvery = 200
	}
	if r.Keep == 0 {
		r.Keep = 2
	}
	if r.Threads == 0 {
		r.Threads = 2
	}
	if r.LogEvery == 0 {
		r.LogEvery = 20
	}
}

// fingerprint is the loop's part of what a resumed run must share with
// the run it resumes; initCk and initStep name the Init checkpoint.
func (o *LoopOptions) fingerprint(initCk string, initStep int64) map[string]string {
	f := map[string]string{
		"seed": fmt.Sprint(o.Seed), "lr": fmt.Sprint(o.LR), "min_lr_frac": fmt.Sprint(o.MinLRFrac), "warmup": fmt.Sprint(o.Warmup),
		"weight_decay": fmt.Sprint(o.WeightDecay), "clip": fmt.Sprint(o.Clip),
	}
	if initCk != "" {
		f["init"], f["init_step"] = initCk, fmt.Sprint(initStep)
	}
	return f
}

// Objective is what a training method adds to the loop: the gradient of
// its loss at each step. The loop zeroes the gradients, calls Step, clips
// them, and moves the weights with AdamW at the schedule's learning rate.
type Objective interface {
	// Fingerprint returns the objective's settings and data that a resumed
	// run must share with the run it resumes (the loop adds its own:
	// seed, learning rate and schedule, weight decay, clip, init).
	Fingerprint() map[string]string
	// Steps is the length of the run in optimizer steps.
	Steps() int64
	// Start hands the objective the policy being trained (fresh, from
	// LoopOptions.Init, or resumed), with gradients enabled, before the
	// first Step.
	Start(ctx context.Context, p *policy.Policy) error
	// Step adds the gradient of the loss of step step (0-based) into the
	// policy's zeroed gradients. It must depend only on step, the options
	// and the weights, never on how many steps this process has run, so
	// that a resumed run repeats the killed run exactly.
	Step(ctx context.Context, step int64) (StepStats, error)
}

// Initializer is an Objective that can start a run from nothing, as SFT
// does (a tokenizer trained on its data and random weights). The loop
// calls NewPolicy when LoopOptions.Init is empty; an objective that is not
// an Initializer needs Init.
type Initializer interface {
	NewPolicy(ctx context.Context) (*policy.Policy, error)
}

// ExtraTensors is an Objective with trained state of its own (a value
// head's weights and its optimizer moments, a running reward baseline):
// each named tensor is saved as NAME.bin in every checkpoint and, on
// resume, read back into the same slice after Start (which must allocate
// them at their final lengths). Names are lower-case letters, digits, '_'
// and '-', and not "model" or "optimizer".
type ExtraTensors interface {
	Extra() map[string][]float32
}

// MetricUpdateS is the metric of a step's update seconds: the objective's
// loss and backward plus the loop's optimizer step (StepStats.Metrics).
const MetricUpdateS = "update_s"

// StepStats is what one Step reports for the log.
type StepStats struct {
	// Loss is the step's loss, logged and kept in state.json.
	Loss float64
	// Tokens the step trained on, for throughput and the run's total.
	Tokens int
	// Epoch is the pass over the objective's data this step belongs to.
	Epoch int
	// Metrics are the objective's own figures (reward mean, KL, share of
	// desirable samples...), written to train_log.jsonl and to the
	// progress line. An objective that splits its step's time reports its
	// loss and backward as MetricUpdateS; the loop adds the optimizer's
	// part (zeroing, clipping, AdamW), which the objective cannot see, so
	// that the split adds up to the step.
	Metrics map[string]float64
	// NoUpdate says the step computed no gradient (every example of its
	// batch was left out): the optimizer does not move, as if the step
	// had no data, rather than decaying the weights on a zero gradient.
	NoUpdate bool
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
	// SHA256 is the SHA-256 of state.json as written without it (the
	// indented JSON of the other fields): a state edited or damaged after
	// the save, a step changed by hand, would resume into another run.
	// A checkpoint saved before it existed has none and resumes with the
	// state's own checks only (see checkState).
	SHA256 string `json:"sha256,omitempty"`
}

// stateFile is a checkpoint's State.
const stateFile = "state.json"

// marshalState is state.json's content: st with its SHA256 computed.
func marshalState(st State) ([]byte, error) {
	sum, err := stateSum(st)
	if err != nil {
		return nil, err
	}
	st.SHA256 = sum
	return json.MarshalIndent(st, "", "  ")
}

// stateSum is State.SHA256 of st: the hex SHA-256 of its indented JSON
// without the checksum.
func stateSum(st State) (string, error) {
	st.SHA256 = ""
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// readState reads and checks checkpoint ck's state.json: its checksum when
// it has one, then checkState. The State comes back without its SHA256,
// as a run holds it (marshalState computes it at each save).
func readState(ck string) (State, error) {
	var st State
	path := filepath.Join(ck, stateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	if st.SHA256 != "" {
		sum, err := stateSum(st)
		if err != nil {
			return st, fmt.Errorf("%s: %w", path, err)
		}
		if sum != st.SHA256 {
			return st, fmt.Errorf("%s: the content does not match its sha256 (edited or damaged after the save)", path)
		}
		st.SHA256 = ""
	}
	if err := checkState(ck, st); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// checkState refuses a state no save writes: negative counts, or a step
// other than the one in the checkpoint's name (step-NNNNNN). It is all
// that guards a checkpoint without a checksum; Loop also holds the step
// against the one config.json records.
func checkState(ck string, st State) error {
	switch {
	case st.Step < 0, st.AdamStep < 0, st.AdamStep > st.Step, st.Tokens < 0, st.TotalSteps < 0:
		return fmt.Errorf("step %d, optimizer step %d, tokens %d, total steps %d: not a state a run saves", st.Step, st.AdamStep, st.Tokens, st.TotalSteps)
	}
	var n int64
	if _, err := fmt.Sscanf(filepath.Base(ck), "step-%d", &n); err == nil && n != st.Step {
		return fmt.Errorf("step %d, but the checkpoint is %s", st.Step, filepath.Base(ck))
	}
	return nil
}

// LogLine is one line of train_log.jsonl.
type LogLine struct {
	Step     int64              `json:"step"`
	Epoch    int                `json:"epoch"`
	Loss     float64            `json:"loss"`
	LR       float64            `json:"lr"`
	GradNorm float64            `json:"grad_norm"`
	Tokens   int                `json:"tokens"`
	TokPerS  float64            `json:"tok_per_s"`
	Elapsed  float64            `json:"elapsed_s"`
	Metrics  map[string]float64 `json:"metrics,omitempty"`
	Eval     *Eval              `json:"eval,omitempty"`
}

// Result is what a run returns.
type Result struct {
	Checkpoint string
	State      State
	LastEval   *Eval
	// Skipped counts the examples the objective left out (SFT: longer
	// than the model's context; offline RL: the file's questions whose
	// prompts leave no room for a completion).
	Skipped int
}

// Schedule is the learning rate along a run: linear warmup to LR over
// Warmup steps (<= 0: 5% of the run, at least 1), then a cosine decay to
// LR*MinLRFrac at step Total. It is exported so that an objective training
// tensors of its own (ExtraTensors) can follow the loop's rate.
type Schedule struct {
	LR, MinLRFrac float64
	Warmup        int
	Total         int64
}

// At is the learning rate of step step (0-based).
func (s Schedule) At(step int64) float64 {
	warm := int64(s.Warmup)
	if warm <= 0 {
		warm = max(1, s.Total/20)
	}
	if step < warm {
		return s.LR * float64(step+1) / float64(warm)
	}
	frac := float64(step-warm) / float64(max(1, s.Total-warm))
	minLR := s.LR * s.MinLRFrac
	return minLR + 0.5*(s.LR-minLR)*(1+math.Cos(math.Pi*min(frac, 1)))
}

const logFile = "train_log.jsonl"

// optimizerFile holds AdamW's first and second moments, one after the
// other.
const optimizerFile = "optimizer.bin"

var extraName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Loop trains obj (or resumes training it from the latest checkpoint in
// o.Out) and returns the final checkpoint. d, when it has a DevEngine,
// supplies the dev questions scored every o.EvalEvery steps.
func Loop(ctx context.Context, d *Data, o LoopOptions, obj Objective) (*Result, error) {
	o.defaults()
	nn.SetThreads(o.Threads)
	if o.LR <= 0 {
		return nil, fmt.Errorf("train: learning rate %v (want > 0)", o.LR)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	r := &runner{d: d, o: o, obj: obj, logf: func(string, ...any) {}}
	if o.Progress != nil {
		r.logf = func(f string, a ...any) { fmt.Fprintf(o.Progress, f+"\n", a...) }
	}
	if err := r.init(ctx); err != nil {
		return nil, err
	}
	if o.Settings != nil {
		if err := recordSettings(o.Out, o.Settings); err != nil {
			return nil, err
		}
	}
	return r.loop(ctx)
}

// runner is one run of the loop.
type runner struct {
	d     *Data
	o     LoopOptions
	obj   Objective
	fp    map[string]string
	logf  func(string, ...any)
	pol   *policy.Policy
	opt   *nn.AdamW
	st    State
	sched Schedule
	log   *os.File
}

// init puts the policy and the optimizer in place: resumed from the
// latest checkpoint in Out, or fresh (from Init or the objective).
func (r *runner) init(ctx context.Context) error {
	o := r.o
	var initCk string
	var initStep int64
	if o.Init != "" {
		var err error
		if initCk, initStep, err = initCheckpoint(o.Init); err != nil {
			return err
		}
	}
	r.fp = o.fingerprint(initCk, initStep)
	for k, v := range r.obj.Fingerprint() {
		if _, ok := r.fp[k]; ok {
			return fmt.Errorf("train: the objective's fingerprint names %q, which is the loop's", k)
		}
		r.fp[k] = v
	}
	if !o.Restart {
		ck, err := policy.Resolve(o.Out)
		if err == nil {
			return r.resume(ctx, ck)
		}
		if held := heldRun(o.Out); held != "" {
			return fmt.Errorf("train: %s holds a run (%s) that cannot be resumed: %w; -restart starts over, replacing it", o.Out, held, err)
		}
	}
	var err error
	switch {
	case initCk != "":
		if r.pol, err = policy.Load(initCk); err != nil {
			return fmt.Errorf("load init %s: %w", initCk, err)
		}
		r.logf("init: %s (step %d)", initCk, initStep)
	default:
		ini, ok := r.obj.(Initializer)
		if !ok {
			return errors.New("train: this objective starts from a checkpoint (LoopOptions.Init)")
		}
		if r.pol, err = ini.NewPolicy(ctx); err != nil {
			return err
		}
	}
	r.opt = nn.NewAdamW(r.pol.Model, o.WeightDecay)
	r.st = State{Fingerprint: r.fp}
	os.Remove(filepath.Join(o.Out, logFile))
	return r.setup(ctx, "")
}

// initCheckpoint resolves dir to a checkpoint and reads its step: the
// pair that fingerprints a run's starting point.
func initCheckpoint(dir string) (string, int64, error) {
	ck, err := policy.Resolve(dir)
	if err != nil {
		return "", 0, fmt.Errorf("init: %w", err)
	}
	if ck, err = filepath.Abs(ck); err != nil {
		return "", 0, fmt.Errorf("init %s: %w", dir, err)
	}
	info, err := policy.ReadInfo(ck)
	if err != nil {
		return "", 0, fmt.Errorf("init: %w", err)
	}
	return ck, info.Step, nil
}

// heldRun names what in dir a run wrote: its "latest" file, or its
// checkpoints (step-*); "" when dir holds neither, as when a run is new or
// was killed before its first checkpoint, which Loop starts afresh.
func heldRun(dir string) string {
	if _, err := os.Lstat(filepath.Join(dir, policy.FileLatest)); err == nil {
		return "a " + policy.FileLatest + " file"
	}
	cks, _ := filepath.Glob(filepath.Join(dir, "step-*"))
	if len(cks) > 0 {
		sort.Strings(cks)
		return fmt.Sprintf("%d checkpoints, the newest %s", len(cks), filepath.Base(cks[len(cks)-1]))
	}
	return ""
}

// resume puts the run back where checkpoint ck left it. A checkpoint that
// fails a check is an error naming the file and what is wrong, with
// nothing in the run directory changed.
func (r *runner) resume(ctx context.Context, ck string) error {
	st, err := readState(ck)
	if err != nil {
		return fmt.Errorf("resume from %s: %w; -restart starts over", ck, err)
	}
	var diff []string
	for k, v := range r.fp {
		if st.Fingerprint[k] != v {
			diff = append(diff, fmt.Sprintf("%s: checkpoint %q, now %q", k, st.Fingerprint[k], v))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("%s holds a run with other settings (use -restart to start over):\n  %s", r.o.Out, strings.Join(diff, "\n  "))
	}
	if r.pol, err = policy.Load(ck); err != nil {
		return fmt.Errorf("resume from %s: %w; -restart starts over", ck, err)
	}
	if r.pol.Info.Step != st.Step {
		return fmt.Errorf("resume from %s: %s says step %d, %s step %d; -restart starts over", ck, stateFile, st.Step, policy.FileConfig, r.pol.Info.Step)
	}
	r.opt = nn.NewAdamW(r.pol.Model, r.o.WeightDecay)
	mv, err := nn.LoadFloats(filepath.Join(ck, optimizerFile), 2*len(r.pol.Model.Params))
	if err != nil {
		return err
	}
	n := len(r.pol.Model.Params)
	copy(r.opt.M, mv[:n])
	copy(r.opt.V, mv[n:])
	r.opt.Step = st.AdamStep
	r.st = st
	// the steps after the checkpoint are redone: their lines go, with a
	// line a kill cut short
	if err := trimLog(filepath.Join(r.o.Out, logFile), st.Step); err != nil {
		return fmt.Errorf("resume from %s: %w", ck, err)
	}
	r.logf("resuming %s at step %d of %d (loss %.4f)", ck, st.Step, st.TotalSteps, st.Loss)
	return r.setup(ctx, ck)
}

// setup starts the objective on the policy, reads its extra tensors back
// from checkpoint ck when resuming (ck != ""), and opens the log.
func (r *runner) setup(ctx context.Context, ck string) error {
	r.pol.Model.EnableGrads()
	if err := r.obj.Start(ctx, r.pol); err != nil {
		return err
	}
	extra, err := r.extra()
	if err != nil {
		return err
	}
	if ck != "" {
		for name, v := range extra {
			path := filepath.Join(ck, name+".bin")
			got, err := nn.LoadFloats(path, len(v))
			if err != nil {
				return fmt.Errorf("resume from %s: %w", ck, err)
			}
			copy(v, got)
		}
	}
	total := r.obj.Steps()
	r.st.TotalSteps = total
	r.sched = Schedule{LR: r.o.LR, MinLRFrac: r.o.MinLRFrac, Warmup: r.o.Warmup, Total: total}
	f, err := os.OpenFile(filepath.Join(r.o.Out, logFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	r.log = f
	c := r.pol.Model.Cfg
	what := ""
	if s, ok := r.obj.(fmt.Stringer); ok {
		what = s.String() + ", "
	}
	r.logf("model: %s, %d params (d%d L%d H%d ffn %d, vocab %d, ctx %d); %s%d steps; gemm %s",
		r.pol.Info.Preset, c.NumParams(), c.Dim, c.Layers, c.Heads, c.Hidden, c.Vocab, c.MaxSeq, what, total, nn.CurrentBackend())
	return nil
}

// extra returns the objective's extra tensors, their names checked.
func (r *runner) extra() (map[string][]float32, error) {
	et, ok := r.obj.(ExtraTensors)
	if !ok {
		return nil, nil
	}
	ex := et.Extra()
	for name := range ex {
		if !extraName.MatchString(name) || name == "model" || name == "optimizer" {
			return nil, fmt.Errorf("train: extra tensor name %q (want [a-z0-9_-]+, not model or optimizer)", name)
		}
	}
	return ex, nil
}

func (r *runner) loop(ctx context.Context) (*Result, error) {
	defer r.log.Close()
	o := r.o
	m := r.pol.Model
	res := &Result{}
	var winTok int
	winStart := time.Now()
	runStart := time.Now()
	base := r.st.ElapsedSec
	var lastCk string
	for r.st.Step < r.st.TotalSteps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step := r.st.Step
		t0 := time.Now()
		m.ZeroGrads()
		zeroS := time.Since(t0).Seconds()
		lr := r.sched.At(step)
		ss, err := r.obj.Step(ctx, step)
		if err != nil {
			return nil, err
		}
		var gn float64
		t0 = time.Now()
		if !ss.NoUpdate {
			gn = nn.ClipGrads(m.Grads, o.Clip)
			r.opt.Update(m.Params, m.Grads, lr)
		}
		if _, ok := ss.Metrics[MetricUpdateS]; ok {
			ss.Metrics[MetricUpdateS] += zeroS + time.Since(t0).Seconds()
		}
		r.st.Step++
		r.st.AdamStep = r.opt.Step
		r.st.Loss = ss.Loss
		r.st.Tokens += int64(ss.Tokens)
		r.st.ElapsedSec = base + time.Since(runStart).Seconds()
		winTok += ss.Tokens
		line := LogLine{Step: r.st.Step, Epoch: ss.Epoch, Loss: ss.Loss, LR: lr, GradNorm: gn, Tokens: ss.Tokens, Elapsed: r.st.ElapsedSec, Metrics: ss.Metrics}
		if r.st.Step%int64(o.LogEvery) == 0 || r.st.Step == r.st.TotalSteps {
			line.TokPerS = float64(winTok) / time.Since(winStart).Seconds()
			r.logf("step %d/%d epoch %d loss %.4f lr %.2e gnorm %.2f%s %.0f tok/s %.0fs", r.st.Step, r.st.TotalSteps, ss.Epoch, ss.Loss, lr, gn,
				metricsText(ss.Metrics), line.TokPerS, r.st.ElapsedSec)
			winTok, winStart = 0, time.Now()
		}
		if o.StopAfter > 0 && r.st.Step == int64(o.StopAfter) {
			r.writeLog(line)
			return nil, ErrStopped
		}
		last := r.st.Step == r.st.TotalSteps
		if o.EvalEvery >= 0 && r.d != nil && r.d.DevEngine != nil && (last || o.EvalEvery > 0 && r.st.Step%int64(o.EvalEvery) == 0) {
			ev, err := EvalDev(ctx, r.pol, r.d, o.EvalN, o.Seed, !o.NoGuide)
			if err != nil {
				return nil, err
			}
			line.Eval = ev
			res.LastEval = ev
			r.logf("eval step %d: %s", r.st.Step, ev)
			// evaluation time is not training time
			runStart = runStart.Add(time.Duration(ev.Seconds * float64(time.Second)))
			r.st.ElapsedSec = base + time.Since(runStart).Seconds()
		}
		r.writeLog(line)
		if last || r.st.Step%int64(o.SaveEvery) == 0 {
			var err error
			if lastCk, err = r.save(); err != nil {
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
	res.Checkpoint, res.State = lastCk, r.st
	return res, nil
}

// metricsText is the progress line's part for an objective's metrics, in
// name order.
func metricsText(ms map[string]float64) string {
	names := make([]string, 0, len(ms))
	for k := range ms {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, " %s %.4g", k, ms[k])
	}
	return b.String()
}

func (r *runner) writeLog(l LogLine) {
	b, _ := json.Marshal(l)
	r.log.Write(append(b, '\n'))
}

// save writes a checkpoint directory atomically (a temporary directory
// renamed into place), points "latest" at it, and prunes old ones.
func (r *runner) save() (string, error) {
	name := fmt.Sprintf("step-%06d", r.st.Step)
	dir := filepath.Join(r.o.Out, name)
	tmp := filepath.Join(r.o.Out, "."+name+".tmp")
	os.RemoveAll(tmp)
	r.pol.Info.Step = r.st.Step
	if err := r.pol.Save(tmp); err != nil {
		return "", err
	}
	n := len(r.pol.Model.Params)
	mv := make([]float32, 2*n)
	copy(mv, r.opt.M)
	copy(mv[n:], r.opt.V)
	if err := nn.SaveFloats(filepath.Join(tmp, optimizerFile), mv); err != nil {
		return "", err
	}
	extra, err := r.extra()
	if err != nil {
		return "", err
	}
	for name, v := range extra {
		if err := nn.SaveFloats(filepath.Join(tmp, name+".bin"), v); err != nil {
			return "", err
		}
	}
	sb, _ := marshalState(r.st)
	if err := atomicfile.Write(filepath.Join(tmp, stateFile), func(w io.Writer) error { _, err := w.Write(sb); return err }); err != nil {
		return "", err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if err := atomicfile.Write(filepath.Join(r.o.Out, policy.FileLatest), func(w io.Writer) error {
		_, err := io.WriteString(w, name+"\n")
		return err
	}); err != nil {
		return "", err
	}
	entries, _ := os.ReadDir(r.o.Out)
	var cks []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "step-") {
			cks = append(cks, e.Name())
		}
	}
	sort.Strings(cks)
	for len(cks) > r.o.Keep {
		if cks[0] != name {
			os.RemoveAll(filepath.Join(r.o.Out, cks[0]))
		}
		cks = cks[1:]
	}
	return dir, nil
}
