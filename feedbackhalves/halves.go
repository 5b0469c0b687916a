// Package feedbackhalves measures the production flywheel on a user's own
// questions (`sqlrl experiment feedback-halves`): the questions are split
// in two halves by seed, stratified by database and difficulty; the
// served model (package askserver, through its API) answers every
// question of one half once, a scripted user judges each answer by BIRD
// EX against the gold (thumbs up, or thumbs down with the gold as the
// correction), the feedback store is exported (package feedback) and
// offline KTO trains the model on it, or SFT on the answers the user
// accepted or corrected (package train); the other half,
// never trained on, is scored greedily under the schema guide before and
// after. Both halves take each role, for every seed, and the report pools
// the paired outcomes (package significance).
//
// Every (seed, half) run is a directory named by a hash of its config: a
// finished run is read back instead of redone, an interrupted one resumes
// (the training run from its last checkpoint). Every scoring of a held-back
// half is a read of a test file, recorded in test-reads.json as package
// experiment's protocol counts them.
package feedbackhalves

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

// Files and folders under Options.Out and a run's directory.
const (
	RunsDir    = "runs"
	ResultFile = "result.json"
	ServedFile = "served.json" // the answers and the user's verdicts
	StoreFile  = "feedback.sqlite"
	ExportDir  = "feedback" // the store's export (data from-feedback)
	KTODir     = "kto"      // the offline KTO run (-train kto)
	SFTDir     = "sft"      // the SFT run (-train sft)
	ReportJSON = "report.json"
	ReportMD   = "report.md"
	ReadsFile  = experiment.TestReadsFile
)

// configVersion changes when a run's meaning changes, so that old cached
// runs are not taken for new ones.
const configVersion = 1

// KTO is the offline KTO run's settings on a half's feedback; the rest
// are `sqlrl train kto`'s defaults.
type KTO struct {
	Steps   int     `json:"steps"`
	Prompts int     `json:"prompts"`
	LR      float64 `json:"lr"`
}

// DefaultKTO is scripts/feedback-flywheel.sh's offline run: 100 steps of
// 8 questions at RL's rate.
func DefaultKTO() KTO { return KTO{Steps: 100, Prompts: 8, LR: 2e-5} }

// What trains the model on a half's feedback (Options.Train).
const (
	// TrainKTO is offline KTO on the export's labels (rollouts.jsonl):
	// the model's answers, up or down, and the corrections.
	TrainKTO = "kto"
	// TrainSFT is SFT on the answers the user accepted or corrected
	// (feedback.json's questions with SQL).
	TrainSFT = "sft"
)

// SFT is the SFT run's settings on a half's accepted and corrected
// answers; the rest are `sqlrl train sft`'s defaults, and the prompt
// format, tokenizer and model are the checkpoint's. Names are never
// renamed: the feedback is about the served database's own names, which
// the model must learn as they are.
type SFT struct {
	Epochs int     `json:"epochs"`
	LR     float64 `json:"lr"`
	Batch  int     `json:"batch"`
}

// DefaultSFT continues a model trained at SFT's 2e-3 at a tenth of that
// rate for a few epochs, in SFT's batches.
func DefaultSFT() SFT {
	return SFT{Epochs: 4, LR: 2e-4, Batch: train.DefaultSFTConfig().BatchSize}
}

// Options configure Run.
type Options struct {
	// Model is the served native model: a checkpoint or run directory.
	Model string
	// Questions is a BIRD-layout question file with gold SQL; DBRoot its
	// databases as DBRoot/<db_id>/<db_id>.sqlite (default: the file's
	// sibling <split>_databases, as BIRD lays dev.json out).
	Questions, DBRoot string
	// Out holds the runs, test-reads.json and the report; the same Out
	// resumes.
	Out   string
	Seeds []uint64
	// Train is TrainKTO (default) or TrainSFT; KTO and SFT are their
	// settings.
	Train string
	KTO   KTO
	SFT   SFT
	// Threads for decoding and training (0: 2).
	Threads int
	// Progress receives stage lines and progress bars (nil: none).
	Progress io.Writer
	Command  string
}

// DefaultSeeds are the seeds the check asks for.
var DefaultSeeds = []uint64{1, 2, 3}

// input is what Check found: the questions, the databases, the model.
type input struct {
	exs        []dataset.Example
	sum        string // the question file's sha256
	root       string // absolute
	checkpoint string // the model's resolved checkpoint
	modelSHA   string
}

// Check refuses settings that cannot run, naming the flag that fixes
// them, without reading any file (Run also checks the files).
func (o *Options) Check() error {
	switch {
	case o.Model == "":
		return errors.New("-model is required: the served native model (a checkpoint or run directory)")
	case o.Questions == "":
		return errors.New("-questions is required: a BIRD-layout file of questions with gold SQL")
	case o.Out == "":
		return errors.New("-out is required: the folder for the runs and the report")
	case len(o.Seeds) == 0:
		return errors.New("-seeds: at least one seed")
	}
	switch o.Train {
	case "", TrainKTO:
		if o.KTO.Steps < 1 || o.KTO.Prompts < 1 || !(o.KTO.LR > 0) {
			return fmt.Errorf("-steps %d, -prompts %d, -lr %g: each must be positive", o.KTO.Steps, o.KTO.Prompts, o.KTO.LR)
		}
	case TrainSFT:
		if o.SFT.Epochs < 1 || !(o.SFT.LR > 0) || o.SFT.Batch < 1 {
			return fmt.Errorf("-sft-epochs %d, -sft-lr %g (batch %d): each must be positive", o.SFT.Epochs, o.SFT.LR, o.SFT.Batch)
		}
	default:
		return fmt.Errorf("-train %q: want %s (offline KTO on the feedback's labels) or %s (SFT on the accepted and corrected answers)", o.Train, TrainKTO, TrainSFT)
	}
	seen := map[uint64]bool{}
	for _, s := range o.Seeds {
		if seen[s] {
			return fmt.Errorf("-seeds: seed %d given twice", s)
		}
		seen[s] = true
	}
	return nil
}

// check is Check, then the model, the questions and their databases,
// before any work: it returns what it read.
func (o *Options) check() (*input, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	in := &input{}
	ck, err := policy.Resolve(o.Model)
	if err != nil {
		return nil, fmt.Errorf("-model: %w", err)
	}
	info, err := policy.ReadInfo(ck)
	switch {
	case err != nil:
		return nil, fmt.Errorf("-model %s: %w", o.Model, err)
	case info.Format != policy.CheckpointFormat:
		return nil, fmt.Errorf("-model %s: not a native model (checkpoint format %q, want %q): serve and train need sqlrl's own policy", o.Model, info.Format, policy.CheckpointFormat)
	case info.Task != "":
		return nil, fmt.Errorf("-model %s: a checkpoint trained for task %q, not to write SQL", o.Model, info.Task)
	}
	if in.checkpoint, err = filepath.Abs(ck); err != nil {
		return nil, err
	}
	if in.modelSHA = info.ModelSHA256; in.modelSHA == "" {
		if in.modelSHA, err = export.FileSHA256(filepath.Join(ck, policy.FileModel)); err != nil {
			return nil, fmt.Errorf("-model %s: %w", o.Model, err)
		}
	}
	if in.sum, err = export.FileSHA256(o.Questions); err != nil {
		return nil, fmt.Errorf("-questions %s: %w", o.Questions, err)
	}
	b, err := dataset.LoadQuestions(o.Questions)
	if err != nil {
		return nil, fmt.Errorf("-questions %s: %w", o.Questions, err)
	}
	if len(b.Examples) < 4 {
		return nil, fmt.Errorf("-questions %s: %d questions; two halves need at least 4", o.Questions, len(b.Examples))
	}
	root := o.DBRoot
	if root == "" {
		split := strings.TrimSuffix(filepath.Base(o.Questions), filepath.Ext(o.Questions))
		root = filepath.Join(filepath.Dir(o.Questions), split+"_databases")
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("databases folder %s: not a directory (set -db-root to the folder holding <db_id>/<db_id>.sqlite)", root)
	}
	if in.root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	ids := map[int]int{}
	for _, ex := range b.Examples {
		if j, dup := ids[ex.QuestionID]; dup {
			return nil, fmt.Errorf("-questions %s: question_id %d appears twice (records %d and %d): halves are cut by question", o.Questions, ex.QuestionID, j, ex.Index)
		}
		ids[ex.QuestionID] = ex.Index
		if strings.TrimSpace(ex.SQL) == "" {
			return nil, fmt.Errorf("-questions %s: question_id %d (record %d) has no gold SQL: the scripted user corrects with it", o.Questions, ex.QuestionID, ex.Index)
		}
		db := filepath.Join(in.root, ex.DBID, ex.DBID+".sqlite")
		if st, err := os.Stat(db); err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("-questions %s: question_id %d (record %d): db_id %q has no database %s (set -db-root)", o.Questions, ex.QuestionID, ex.Index, ex.DBID, db)
		}
	}
	in.exs = b.Examples
	return in, nil
}

// Half names: "A" is dataset.Split's first part, "B" the other.
const (
	HalfA = "A"
	HalfB = "B"
)

// halves cuts exs in two by seed, stratified by database and difficulty
// (dataset.Split at one half).
func halves(exs []dataset.Example, seed uint64) (a, b []dataset.Example, err error) {
	s, err := dataset.Split(exs, dataset.SplitOptions{SFTFraction: 0.5, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	return s.SFT, s.Holdout, nil
}

// runConfig is what a (seed, half) run's result depends on; its hash
// names the run's directory.
type runConfig struct {
	Version     int    `json:"version"`
	Checkpoint  string `json:"checkpoint"`
	ModelSHA256 string `json:"model_sha256"`
	Questions   string `json:"questions_sha256"`
	DBRoot      string `json:"db_root"`
	Seed        uint64 `json:"seed"`
	Trained     string `json:"trained"`
	KTO         *KTO   `json:"kto,omitempty"`
	// Train is "" for KTO, so that a KTO run hashes as it did before
	// there was a choice, or TrainSFT with SFT's settings.
	Train string `json:"train,omitempty"`
	SFT   *SFT   `json:"sft,omitempty"`
}

// trainedDir is the run's folder of the trained model.
func (c runConfig) trainedDir() string {
	if c.Train == TrainSFT {
		return SFTDir
	}
	return KTODir
}

func (c runConfig) id() string {
	b, _ := json.Marshal(c)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:12]
}

// plannedRun is one (seed, half) run to do or read back.
type plannedRun struct {
	cfg            runConfig
	name           string // "s1-AtoB"
	dir            string
	trained, score []dataset.Example
}

// Run does every (seed, half) run not yet finished in o.Out, then writes
// the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	in, err := o.check()
	if err != nil {
		return nil, err
	}
	if o.Threads == 0 {
		o.Threads = 2
	}
	nn.SetThreads(o.Threads)
	var plan []plannedRun
	for _, seed := range o.Seeds {
		a, b, err := halves(in.exs, seed)
		if err != nil {
			return nil, fmt.Errorf("-questions %s: %w", o.Questions, err)
		}
		for _, sw := range []struct {
			trained, scored string
			t, s            []dataset.Example
		}{{HalfA, HalfB, a, b}, {HalfB, HalfA, b, a}} {
			c := runConfig{Version: configVersion, Checkpoint: in.checkpoint, ModelSHA256: in.modelSHA, Questions: in.sum,
				DBRoot: in.root, Seed: seed, Trained: sw.trained}
			if o.Train == TrainSFT {
				c.Train, c.SFT = TrainSFT, &o.SFT
			} else {
				c.KTO = &o.KTO
			}
			name := fmt.Sprintf("s%d-%sto%s", seed, sw.trained, sw.scored)
			plan = append(plan, plannedRun{cfg: c, name: name, dir: filepath.Join(o.Out, RunsDir, name+"-"+c.id()), trained: sw.t, score: sw.s})
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, RunsDir), 0o755); err != nil {
		return nil, fmt.Errorf("feedback-halves: %w", err)
	}
	var results []*RunResult
	for i, p := range plan {
		stage(o.Progress, "run %d of %d: seed %d, feedback on half %s (%d questions), half %s held back (%d)",
			i+1, len(plan), p.cfg.Seed, p.cfg.Trained, len(p.trained), other(p.cfg.Trained), len(p.score))
		r, err := doRun(ctx, o, in, p)
		if err != nil {
			return nil, fmt.Errorf("feedback-halves %s (%s): %w", p.name, p.dir, err)
		}
		results = append(results, r)
	}
	rep, err := newReport(o, in, results)
	if err != nil {
		return nil, err
	}
	if rep.TestReads, rep.TestReadsAll, err = experiment.CountTestReads(o.Out, in.sum); err != nil {
		return nil, err
	}
	if err := rep.Write(o.Out); err != nil {
		return nil, err
	}
	return rep, nil
}

func other(h string) string {
	if h == HalfA {
		return HalfB
	}
	return HalfA
}

// doRun reads back a finished run or does what is left of it, under the
// run directory's lock.
func doRun(ctx context.Context, o Options, in *input, p plannedRun) (*RunResult, error) {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, err
	}
	w := o.Progress
	if w == nil {
		w = io.Discard
	}
	unlock, err := experiment.LockRun(p.dir, p.name, w)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if r, err := readResult(p.dir); err == nil {
		stage(o.Progress, "%s: finished before, read back (%s)", p.name, filepath.Join(p.dir, ResultFile))
		r.Resumed = true
		return r, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := writeJSON(filepath.Join(p.dir, "config.json"), p.cfg); err != nil {
		return nil, err
	}
	start := time.Now()
	r := &RunResult{Name: p.name, Seed: p.cfg.Seed, Trained: p.cfg.Trained, Scored: other(p.cfg.Trained), Dir: p.dir}
	for _, ex := range p.trained {
		r.TrainedIDs = append(r.TrainedIDs, ex.QuestionID)
	}
	for _, ex := range p.score {
		r.ScoredIDs = append(r.ScoredIDs, ex.QuestionID)
	}
	if slices.ContainsFunc(r.ScoredIDs, func(id int) bool { return slices.Contains(r.TrainedIDs, id) }) {
		return nil, errors.New("the halves overlap") // dataset.Split's guarantee; a bug if not
	}
	served, err := serveHalf(ctx, o, in, p)
	if err != nil {
		return nil, err
	}
	r.Feedback = served.tally()
	fb, err := exportHalf(ctx, in, p, served)
	if err != nil {
		return nil, err
	}
	r.Export, r.ExportedIDs = fb.manifest, fb.questionIDs
	trainStart := time.Now()
	if p.cfg.Train == TrainSFT {
		r.Train = TrainSFT
		if r.SFTExamples, r.SFTSteps, r.SFTLeftOut, err = trainHalfSFT(ctx, o, in, p, fb); err != nil {
			return nil, err
		}
		r.SFTSeconds = time.Since(trainStart).Seconds()
	} else {
		steps, left, err := trainHalf(ctx, o, in, p)
		if err != nil {
			return nil, err
		}
		r.KTOSteps, r.KTOLeftOut, r.KTOSeconds = steps, left, time.Since(trainStart).Seconds()
	}
	if err := scoreHalf(ctx, o, in, p, r); err != nil {
		return nil, err
	}
	r.Seconds, r.FinishedAt = time.Since(start).Seconds(), time.Now().UTC()
	if err := writeJSON(filepath.Join(p.dir, ResultFile), r); err != nil {
		return nil, err
	}
	stage(o.Progress, "%s: held-back half %s EX %.1f -> %.1f (%d questions)", p.name, r.Scored, 100*r.Before.EX, 100*r.After.EX, r.Before.N)
	return r, nil
}

func readResult(dir string) (*RunResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, err
	}
	var r RunResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove it to redo the run)", filepath.Join(dir, ResultFile), err)
	}
	r.Dir = dir
	return &r, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func stage(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "feedback-halves: %s\n", fmt.Sprintf(format, args...))
	}
}
