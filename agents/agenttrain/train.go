// Package agenttrain trains the native agents of package agents (the
// validators, the fixer and the selector) from scored planner rollouts: one
// checkpoint fine-tuned from the planner by SFT on examples derived from
// the rollouts and the gold, then, optionally, validators trained by
// offline ORPO on preference pairs of their own sampled feedback (the
// MATS recipe's INDEP and COLLAB labels). It builds on package train's
// SFT and RL; train itself knows nothing of agents.
package agenttrain

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/train"
)

// Options configure Train.
type Options struct {
	// Dir is the benchmark whose train split the rollouts' questions
	// come from (their databases and gold).
	Dir string
	// Rollouts are scored planner rollouts (`sqlrl pipeline run -split
	// holdout`): questions the planner was not trained on, so that its
	// mistakes there are the ones it makes on new questions.
	Rollouts []string
	// Planner is the planner's checkpoint: the agents start from it (it
	// already reads the schema and writes SQL) and use its prompt format.
	Planner string
	// Out is the run directory: sft/ (the agents' checkpoint), data/
	// (the examples, as TRL prompt/completion files) and report.json.
	Out string
	// Epochs over the examples (default 2); MaxSteps > 0 stops earlier.
	Epochs, MaxSteps int
	// LR defaults to 1e-3 (fine-tuning a trained model), BatchSize to 16.
	LR        float64
	BatchSize int
	// ValFraction of the questions (by a hash of their id and Seed) is
	// kept out of training to measure the agents (default 0.1).
	ValFraction float64
	Seed        uint64
	Threads     int
	Progress    io.Writer
	// Fold 1 swaps the sides: the questions ValFraction would hold out
	// are trained on, the others held out. With ValFraction 0.5, the runs
	// of fold 0 and fold 1 are cross-fitted: every question is held out
	// by one of them, so rollouts of each on its held-out questions give
	// out-of-sample agent verdicts on all of them (to fit the ranker).
	Fold int
	// WithPairs adds the preference phase: validators trained by ORPO on
	// COLLAB and on INDEP pairs, measured on held-out pairs (Pairs).
	WithPairs bool
	Pairs     PairsOptions
}

// Report is what Train measured.
type Report struct {
	Checkpoint string `json:"checkpoint"`
	// Train and Val count examples per role (validators per kind:
	// "validator/selection").
	Train map[string]int `json:"train"`
	Val   map[string]int `json:"val"`
	// Positive is the share of positive labels per role in train (a
	// validator's "correct").
	Positive map[string]float64 `json:"positive"`
	// ValAccuracy is, per role, the share of held-out prompts the trained
	// agents answer as the derived label does (validators: the
	// conclusion; selector: the letter), greedily; ValBad the share of
	// answers that could not be read.
	ValAccuracy map[string]float64 `json:"val_accuracy"`
	ValBad      map[string]float64 `json:"val_bad"`
	// Majority is the accuracy of always answering the commonest train
	// label, the baseline ValAccuracy must beat to mean anything.
	Majority map[string]float64 `json:"majority"`
	// Preference is the preference phase's report (WithPairs).
	Preference *PairsReport `json:"preference,omitempty"`
}

// Train trains the native validators, fixer and selector: one checkpoint
// playing all three roles (the role is in the prompt), fine-tuned from the
// planner by SFT on examples derived from scored planner rollouts and the
// gold (agents.BuildTrainingSet: no teacher model), and measured on
// held-out questions.
//
// One model for three roles because a small model has little to spare
// for any of them alone, and the roles share what matters: reading the
// schema, the question and a query.
func Train(ctx context.Context, o Options) (*Report, error) {
	def := DefaultOptions()
	if o.Epochs <= 0 {
		o.Epochs = def.Epochs
	}
	if o.LR == 0 {
		o.LR = def.LR
	}
	if o.ValFraction == 0 {
		o.ValFraction = def.ValFraction
	}
	if o.Threads > 0 {
		nn.SetThreads(o.Threads)
	}
	logf := func(f string, a ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, f+"\n", a...)
		}
	}
	recs, err := agents.ReadRecordFiles(o.Rollouts)
	if err != nil {
		return nil, err
	}
	planner, err := policy.LoadSQL(o.Planner)
	if err != nil {
		return nil, err
	}
	b, err := dataset.Load(o.Dir, "train")
	if err != nil {
		return nil, err
	}
	byID := map[int]dataset.Example{}
	for _, ex := range b.Examples {
		byID[ex.QuestionID] = ex
	}
	var exs []dataset.Example
	for _, r := range recs {
		ex, ok := byID[r.QuestionID]
		if !ok {
			return nil, fmt.Errorf("train agents: question %d of the rollouts is not in %s's train split", r.QuestionID, o.Dir)
		}
		if ex.SQL != r.Gold || ex.DBID != r.DBID {
			return nil, fmt.Errorf("train agents: question %d: the rollouts' gold or database differs from %s's train split: rollouts of another benchmark?", r.QuestionID, o.Dir)
		}
		exs = append(exs, ex)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout, MaxBytes: sqlexec.DefaultMaxResultBytes}})
	defer eng.Close()
	pr, err := policy.NewPrompter(eng, b.DBRoot, planner.Info.Prompt)
	if err != nil {
		return nil, err
	}
	fb, err := pr.FitAll(ctx, exs, planner.FitOptions(train.DevMaxTokens))
	if err != nil {
		return nil, err
	}
	qs := map[int]agents.TrainingQuestion{}
	for i, ex := range exs {
		if fb.Fits[i] == nil {
			continue
		}
		res, qerr := eng.Query(ctx, ex.DBID, ex.SQL)
		qs[ex.QuestionID] = agents.TrainingQuestion{Prompt: fb.Fits[i].Text, Gold: agents.NewExecution(res, qerr, "")}
	}
	ts, err := agents.LoadTemplates(agents.SetNative, "")
	if err != nil {
		return nil, err
	}
	all, err := agents.BuildTrainingSet(recs, qs, ts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Train: map[string]int{}, Val: map[string]int{}, Positive: map[string]float64{},
		ValAccuracy: map[string]float64{}, ValBad: map[string]float64{}, Majority: map[string]float64{}}
	var trainEx, valEx []agents.TrainExample
	for _, e := range all {
		if isHeldOut(e.QuestionID, o.Seed, o.ValFraction, o.Fold) {
			valEx = append(valEx, e)
			rep.Val[roleKey(e)]++
		} else {
			trainEx = append(trainEx, e)
			rep.Train[roleKey(e)]++
			if e.Positive {
				rep.Positive[roleKey(e)]++
			}
		}
	}
	for k, n := range rep.Train {
		rep.Positive[k] /= float64(n)
	}
	logf("agents: %d training examples (%v), %d held out (%v) from %d questions", len(trainEx), rep.Train, len(valEx), rep.Val, len(qs))
	if len(trainEx) == 0 {
		return nil, fmt.Errorf("train agents: the rollouts give no training examples (are they scored? run pipeline run on a split with gold)")
	}
	sj, _ := json.Marshal(Split{ValFraction: o.ValFraction, Seed: o.Seed, Fold: o.Fold})
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(o.Out, "split.json"), func(w io.Writer) error { _, err := w.Write(append(sj, '\n')); return err }); err != nil {
		return nil, err
	}
	for name, set := range map[string][]agents.TrainExample{"train": trainEx, "val": valEx} {
		if err := writeExamples(filepath.Join(o.Out, "data", name+".jsonl"), set); err != nil {
			return nil, err
		}
	}
	dbOf := map[int]string{}
	for _, ex := range exs {
		dbOf[ex.QuestionID] = ex.DBID
	}
	d := &train.Data{Format: planner.Info.Prompt, SQLWords: planner.Info.SQLWords, Notes: map[string]string{"agents_rollouts": fmt.Sprint(o.Rollouts)}}
	for _, e := range trainEx {
		d.Train = append(d.Train, train.Example{Example: dataset.Example{QuestionID: e.QuestionID, DBID: dbOf[e.QuestionID], SQL: e.Completion}, Prompt: e.Prompt})
	}
	// Examples of one question share the planner prompt as their prefix:
	// keep them together so that a batch computes it once.
	sort.SliceStable(d.Train, func(i, j int) bool { return d.Train[i].QuestionID < d.Train[j].QuestionID })
	so := train.SFTOptions{Run: train.Run{Out: filepath.Join(o.Out, "sft"), Init: o.Planner, Seed: o.Seed, Threads: o.Threads, Progress: o.Progress},
		SFTConfig: train.SFTConfig{LoopConfig: train.LoopConfig{LR: o.LR}, Epochs: o.Epochs, MaxSteps: o.MaxSteps, BatchSize: o.BatchSize, SFTRenaming: train.SFTRenaming{Rename: -1}}}
	res, err := train.SFT(ctx, d, so)
	if err != nil {
		return nil, err
	}
	rep.Checkpoint = res.Checkpoint
	pol, err := policy.Load(res.Checkpoint)
	if err != nil {
		return nil, err
	}
	if err := measureAgents(ctx, pol, trainEx, valEx, rep); err != nil {
		return nil, err
	}
	if o.WithPairs {
		recByID := map[int]*agents.Record{}
		for _, r := range recs {
			recByID[r.QuestionID] = r
		}
		at := map[int]int{}
		for i, ex := range exs {
			at[ex.QuestionID] = i
		}
		g := fb.Guides(planner.Info.SQLWords)
		sc := &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout, CachePredictions: true}
		if rep.Preference, err = agentPairs(ctx, o, res.Checkpoint, recByID, qs, func(qid int) policy.Constraint { return g(at[qid]) },
			trainEx, valEx, sc, ts, logf); err != nil {
			return nil, err
		}
	}
	bj, _ := json.MarshalIndent(rep, "", "  ")
	if err := atomicfile.Write(filepath.Join(o.Out, "report.json"), func(w io.Writer) error { _, err := w.Write(append(bj, '\n')); return err }); err != nil {
		return nil, err
	}
	return rep, nil
}

// roleKey names an example's role, validators by kind.
func roleKey(e agents.TrainExample) string {
	if e.Kind != "" {
		return e.Role + "/" + e.Kind
	}
	return e.Role
}

// Split says which questions a Train run held out; it is saved
// beside the run (split.json) so that rollouts can be restricted to them
// (ReadSplit).
type Split struct {
	ValFraction float64 `json:"val_fraction"`
	Seed        uint64  `json:"seed"`
	Fold        int     `json:"fold"`
}

// HeldOut reports whether the run held question id out of training.
func (s Split) HeldOut(id int) bool { return isHeldOut(id, s.Seed, s.ValFraction, s.Fold) }

// ReadSplit reads the split of the Train run in dir.
func ReadSplit(dir string) (Split, error) {
	var s Split
	b, err := os.ReadFile(filepath.Join(dir, "split.json"))
	if err != nil {
		return s, fmt.Errorf("read the agents run's split: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read %s: %w", filepath.Join(dir, "split.json"), err)
	}
	return s, nil
}

func isHeldOut(id int, seed uint64, frac float64, fold int) bool {
	return heldOut(id, seed, frac) != (fold == 1)
}

// heldOut decides by a hash of the question id whether a question is
// kept for measurement: every example of a question falls on one side.
func heldOut(id int, seed uint64, frac float64) bool {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", seed, id)
	return float64(h.Sum64()%10000) < frac*10000
}

// measureAgents decodes the held-out validator and selector prompts
// greedily and compares the answers with the derived labels.
func measureAgents(ctx context.Context, pol *policy.Policy, trainEx, valEx []agents.TrainExample, rep *Report) error {
	counts := map[string][2]int{}
	for _, e := range trainEx {
		c := counts[roleKey(e)]
		if e.Positive {
			c[0]++
		}
		c[1]++
		counts[roleKey(e)] = c
	}
	var prompts []string
	var which []agents.TrainExample
	maxT := pol.Model.Cfg.MaxSeq
	for _, e := range valEx {
		// The fixer's answer is a query, scored in the pipeline; a prompt
		// that leaves no room for an answer is left out, as SFT leaves it.
		if e.Role == agents.RoleFixer || len(pol.Tok.Encode(e.Prompt))+8 > maxT {
			continue
		}
		prompts = append(prompts, e.Prompt)
		which = append(which, e)
	}
	if len(prompts) == 0 {
		return nil
	}
	outs, _, err := pol.Generate(ctx, prompts, policy.SampleOptions{MaxTokens: 64, Batch: 32})
	if err != nil {
		return fmt.Errorf("train agents: measure: %w", err)
	}
	n := map[string]int{}
	for k, e := range which {
		key := roleKey(e)
		n[key]++
		text := outs[k][0].Text
		var agree, bad bool
		if e.Role == agents.RoleSelector {
			w, perr := agents.ParseChoice(text)
			bad = perr != nil
			want, _ := agents.ParseChoice(e.Completion)
			agree = !bad && w == want
		} else {
			v, perr := agents.ParseVerdict(text)
			bad = perr != nil
			agree = !bad && v == e.Positive
		}
		if agree {
			rep.ValAccuracy[key]++
		}
		if bad {
			rep.ValBad[key]++
		}
	}
	for key, m := range n {
		rep.ValAccuracy[key] = 100 * rep.ValAccuracy[key] / float64(m)
		rep.ValBad[key] = 100 * rep.ValBad[key] / float64(m)
	}
	// The majority baseline is measured on the held-out labels with the
	// majority of train.
	for key := range n {
		c := counts[key]
		posMajority := 2*c[0] >= c[1]
		agree, m := 0, 0
		for _, e := range which {
			if roleKey(e) != key {
				continue
			}
			m++
			lab := e.Positive
			if e.Role == agents.RoleSelector {
				lab = e.Completion == "A"
			}
			if lab == posMajority {
				agree++
			}
		}
		rep.Majority[key] = 100 * float64(agree) / float64(max(m, 1))
	}
	return nil
}

// writeExamples writes examples as JSON lines (prompt, completion, role,
// label): TRL's prompt/completion layout with sqlrl's fields beside.
func writeExamples(path string, exs []agents.TrainExample) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, e := range exs {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	})
}
