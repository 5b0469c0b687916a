package agenttrain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

// Validator preference labels: how a sampled validator feedback is judged
// chosen or rejected, the two ways of the MATS recipe.
const (
	// PairsIndep judges each feedback on its own: chosen when its
	// conclusion is the one derived from the gold.
	PairsIndep = "indep"
	// PairsCollab judges a feedback by what it leads to: one that rejects
	// the candidate is chosen when the fixer, given it, writes a correct
	// query; one that accepts it is chosen when the candidate is correct.
	PairsCollab = "collab"
)

// PairsOptions configure the preference phase of Train.
type PairsOptions struct {
	// Samples per validator prompt, at temperature 1 (default 4);
	// Prompts is the number of training validator prompts sampled
	// (default 1500; every held-out one is).
	Samples, Prompts int
	// Steps of offline ORPO per label kind (default 200), at LR (default
	// 5e-5), Batch prompts a step (default 8).
	Steps int
	LR    float64
	Batch int
}

// PairsReport holds the preference phase's figures.
type PairsReport struct {
	// Pairs counts the pairs of each kind, in train and held out.
	Pairs map[string]int `json:"pairs"`
	// Checkpoints of the ORPO-trained validators, by kind.
	Checkpoints map[string]string `json:"checkpoints"`
	// Accuracy["collab model on indep pairs"]: the share of held-out
	// pairs whose chosen feedback the model gives a higher
	// log-probability than the rejected one; models: sft, indep, collab.
	Accuracy map[string]float64 `json:"accuracy"`
	// Agreement is the share of held-out pairs on which the two kinds
	// agree (same chosen and rejected), the reason one kind of training
	// does or does not help the other's measure.
	Disagree float64 `json:"disagree"`
}

// sampled is one validator prompt's sampled feedbacks with both labels.
type sampled struct {
	ex     agents.TrainExample
	val    bool
	texts  []string
	indep  []bool
	collab []bool
}

// feedbackLabels judges one sampled validator feedback on a candidate
// whose derived conclusion is positive and whose correctness is
// candCorrect: INDEP, good when it concludes as derived; COLLAB, good when
// it accepts a correct candidate, and, when it rejects one (fix), by the
// fixer's outcome, which the caller supplies. An unreadable feedback is
// bad both ways.
func feedbackLabels(text string, positive, candCorrect bool) (indep, collab, fix bool) {
	v, err := agents.ParseVerdict(text)
	switch {
	case err != nil:
		return false, false, false
	case v:
		return v == positive, candCorrect, false
	}
	return v == positive, false, true
}

// pair is one preference pair of a validator prompt.
type pair struct{ prompt, chosen, rejected string }

// preferencePairs makes one pair per prompt of set (held out or not, as
// val says) that has a sample labelled good and one labelled bad by kind
// (PairsIndep or PairsCollab), with different texts: the first of each,
// in sampling order.
func preferencePairs(set []*sampled, kind string, val bool) []pair {
	var out []pair
	for _, s := range set {
		if s.val != val {
			continue
		}
		lab := s.indep
		if kind == PairsCollab {
			lab = s.collab
		}
		ci, ri := -1, -1
		for j, ok := range lab {
			if ok && ci < 0 {
				ci = j
			}
			if !ok && ri < 0 {
				ri = j
			}
		}
		if ci >= 0 && ri >= 0 && s.texts[ci] != s.texts[ri] {
			out = append(out, pair{s.ex.Prompt, s.texts[ci], s.texts[ri]})
		}
	}
	return out
}

// agentPairs samples feedbacks of the SFT'd validators, labels them both
// ways, trains one validator per labelling by offline ORPO and measures
// every model on every kind of held-out pair.
func agentPairs(ctx context.Context, o Options, sftCk string, recs map[int]*agents.Record, qs map[int]agents.TrainingQuestion,
	guide func(qid int) policy.Constraint, trainEx, valEx []agents.TrainExample, sc *eval.Scorer, ts agents.Templates, logf func(string, ...any)) (*PairsReport, error) {
	po, def := o.Pairs, DefaultOptions().Pairs
	if po.Samples <= 0 {
		po.Samples = def.Samples
	}
	if po.Prompts <= 0 {
		po.Prompts = def.Prompts
	}
	if po.Steps <= 0 {
		po.Steps = def.Steps
	}
	if po.LR <= 0 {
		po.LR = def.LR
	}
	if po.Batch <= 0 {
		po.Batch = 8
	}
	pol, err := policy.Load(sftCk)
	if err != nil {
		return nil, err
	}
	var set []*sampled
	var tr []agents.TrainExample
	for _, e := range trainEx {
		if e.Role == agents.RoleValidator {
			tr = append(tr, e)
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0xa9e))
	rng.Shuffle(len(tr), func(i, j int) { tr[i], tr[j] = tr[j], tr[i] })
	for _, e := range tr[:min(len(tr), po.Prompts)] {
		set = append(set, &sampled{ex: e})
	}
	for _, e := range valEx {
		if e.Role == agents.RoleValidator {
			set = append(set, &sampled{ex: e, val: true})
		}
	}
	prompts := make([]string, len(set))
	for i, s := range set {
		prompts[i] = s.ex.Prompt
	}
	logf("agents pairs: sampling %d feedbacks for each of %d validator prompts", po.Samples, len(set))
	outs, _, err := pol.Generate(ctx, prompts, policy.SampleOptions{N: po.Samples, Temperature: 1, TopP: 1, MaxTokens: 64, Batch: 32, Seed: o.Seed})
	if err != nil {
		return nil, fmt.Errorf("train agents: sample feedback: %w", err)
	}
	// The fixer's runs, one per distinct rejecting feedback of a candidate.
	type fixJob struct {
		qid    int
		prompt string
	}
	var jobs []fixJob
	jobAt := map[string]int{}
	need := make([][]int, len(set)) // set i, sample j -> job (-1 none)
	for i, s := range set {
		need[i] = make([]int, len(outs[i]))
		r := recs[s.ex.QuestionID]
		c := r.Candidates[s.ex.Candidate]
		q := qs[s.ex.QuestionID]
		for j, cm := range outs[i] {
			s.texts = append(s.texts, cm.Text)
			need[i][j] = -1
			indep, collab, fix := feedbackLabels(cm.Text, s.ex.Positive, c.Correct)
			s.indep = append(s.indep, indep)
			s.collab = append(s.collab, collab) // a fix's outcome replaces it below
			if fix {
				pd := agents.PromptData{Prompt: q.Prompt, Question: r.Question, Evidence: r.Evidence, SQL: c.SQL, Result: agents.RenderExecution(c.Exec), Feedback: []string{cm.Text}}
				fp, err := ts.Render(agents.RoleFixer, pd)
				if err != nil {
					return nil, err
				}
				k, ok := jobAt[fp]
				if !ok {
					k = len(jobs)
					jobAt[fp] = k
					jobs = append(jobs, fixJob{s.ex.QuestionID, fp})
				}
				need[i][j] = k
			}
		}
	}
	logf("agents pairs: the fixer answers %d distinct rejecting feedbacks", len(jobs))
	fixPrompts := make([]string, len(jobs))
	for k, j := range jobs {
		fixPrompts[k] = j.prompt
	}
	var con func(int) policy.Constraint
	if guide != nil {
		con = func(k int) policy.Constraint { return guide(jobs[k].qid) }
	}
	fixes, _, err := pol.Generate(ctx, fixPrompts, policy.SampleOptions{MaxTokens: train.DevMaxTokens, Batch: 32, Constrain: con})
	if err != nil {
		return nil, fmt.Errorf("train agents: fixer: %w", err)
	}
	fixOK := make([]bool, len(jobs))
	for k, j := range jobs {
		r := recs[j.qid]
		fixOK[k] = sc.Score(ctx, r.DBID, r.Gold, fixes[k][0].Text).Correct
	}
	for i, s := range set {
		for j := range s.collab {
			if k := need[i][j]; k >= 0 {
				s.collab[j] = fixOK[k]
			}
		}
	}
	rep := &PairsReport{Pairs: map[string]int{}, Checkpoints: map[string]string{}, Accuracy: map[string]float64{}}
	pairsOf := func(kind string, val bool) []pair { return preferencePairs(set, kind, val) }
	// How often the two labellings disagree on a held-out sample.
	dis, tot := 0, 0
	for _, s := range set {
		if !s.val {
			continue
		}
		for j := range s.indep {
			tot++
			if s.indep[j] != s.collab[j] {
				dis++
			}
		}
	}
	if tot > 0 {
		rep.Disagree = 100 * float64(dis) / float64(tot)
	}
	models := map[string]*policy.Policy{"sft": pol}
	for _, kind := range []string{PairsIndep, PairsCollab} {
		trp := pairsOf(kind, false)
		rep.Pairs[kind+"/train"] = len(trp)
		rep.Pairs[kind+"/val"] = len(pairsOf(kind, true))
		if len(trp) == 0 {
			logf("agents pairs: no %s training pairs", kind)
			continue
		}
		// Offline ORPO on the pairs: each prompt a group of two labelled
		// samples (train.RL's offline rollouts file).
		file := filepath.Join(o.Out, "data", "pairs-"+kind+".jsonl")
		d := &train.Data{Format: pol.Info.Prompt, SQLWords: pol.Info.SQLWords, HoldoutAugment: 1, Notes: map[string]string{"pairs": kind}}
		if err := atomicfile.Write(file, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			for k, p := range trp {
				d.Holdout = append(d.Holdout, train.Example{Prompt: p.prompt})
				d.Holdout[k].QuestionID = k
				for _, x := range []struct {
					c  string
					ok bool
				}{{p.chosen, true}, {p.rejected, false}} {
					if err := enc.Encode(map[string]any{"question_id": k, "variant": 0, "completion": x.c, "label": x.ok}); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
		logf("agents pairs: ORPO on %d %s pairs", len(trp), kind)
		res, err := train.RL(ctx, d, train.RLOptions{OfflineFile: file,
			RLConfig: train.RLConfig{Algorithm: train.Algorithm{Algo: train.AlgoORPO, Steps: po.Steps}, Sampling: train.Sampling{Prompts: po.Batch}, LoopConfig: train.LoopConfig{LR: po.LR, EvalEvery: -1}},
			Run:      train.Run{Init: sftCk, Out: filepath.Join(o.Out, "validator-"+kind), Seed: o.Seed, Threads: o.Threads, Progress: o.Progress}})
		if err != nil {
			return nil, fmt.Errorf("train agents: ORPO on %s pairs: %w", kind, err)
		}
		rep.Checkpoints[kind] = res.Checkpoint
		if models[kind], err = policy.Load(res.Checkpoint); err != nil {
			return nil, err
		}
	}
	for name, m := range models {
		for _, kind := range []string{PairsIndep, PairsCollab} {
			ps := pairsOf(kind, true)
			if len(ps) == 0 {
				continue
			}
			sc := policy.NewLogProbScorer(m.Model)
			right := 0
			for lo := 0; lo < len(ps); lo += 16 {
				var seqs []policy.Sequence
				for _, p := range ps[lo:min(lo+16, len(ps))] {
					seqs = append(seqs, m.Sequence(p.prompt, p.chosen), m.Sequence(p.prompt, p.rejected))
				}
				lp, err := sc.LogProbs(seqs)
				if err != nil {
					return nil, fmt.Errorf("train agents: score pairs: %w", err)
				}
				for k := 0; k < len(lp); k += 2 {
					if lp[k].Sum > lp[k+1].Sum {
						right++
					}
				}
			}
			rep.Accuracy[name+" model on "+kind+" pairs"] = 100 * float64(right) / float64(len(ps))
		}
	}
	return rep, nil
}
