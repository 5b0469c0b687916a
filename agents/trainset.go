package agents

import (
	"fmt"
	"sort"
)

// TrainExample is one supervised example for a native agent: a prompt
// rendered from the native templates and the completion to learn.
type TrainExample struct {
	Role string `json:"role"`
	// Kind is the validator's kind.
	Kind       string `json:"kind,omitempty"`
	QuestionID int    `json:"question_id"`
	// Candidate is the rollout candidate the example was made from.
	Candidate  int    `json:"candidate"`
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
	// Positive is the label the completion carries: a validator's
	// "correct" conclusion, a selector choosing the correct candidate.
	Positive bool `json:"positive"`
}

// TrainingQuestion is what BuildTrainingSet needs of a question beyond its
// rollout record: its native planner prompt and its gold's execution.
type TrainingQuestion struct {
	Prompt string
	Gold   Execution
}

// BuildTrainingSet derives supervised examples for the native validators,
// fixer and selector from scored planner rollouts, with no teacher model:
//
//   - validators: every distinct candidate that ran, once per kind, with
//     the feedback DeriveFeedback writes from comparing it with the gold;
//   - fixer: every distinct wrong candidate the pipeline would fix (it
//     failed, or a derived feedback rejects it), reading the error or the
//     rejecting feedback, with the gold SQL as the fix;
//   - selector: every pair of distinct results of which exactly one is
//     correct, in both orders, answered with the correct one's letter.
//
// Questions missing from qs are skipped.
func BuildTrainingSet(recs []*Record, qs map[int]TrainingQuestion, ts Templates) ([]TrainExample, error) {
	var out []TrainExample
	ids := make([]int, 0, len(recs))
	byID := map[int]*Record{}
	for _, r := range recs {
		if _, dup := byID[r.QuestionID]; dup {
			return nil, fmt.Errorf("agents: question %d appears twice in the rollouts", r.QuestionID)
		}
		byID[r.QuestionID] = r
		ids = append(ids, r.QuestionID)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r := byID[id]
		q, ok := qs[id]
		if !ok || r.Gold == "" || !q.Gold.OK {
			continue
		}
		base := PromptData{Prompt: q.Prompt, Context: trimCue(q.Prompt), Question: r.Question, Evidence: r.Evidence}
		for j, c := range r.Candidates {
			if c.Same >= 0 || c.Source == SourceFix || !c.Scored {
				continue
			}
			var rejecting []string
			if c.Exec.OK {
				for _, kind := range ValidatorKinds {
					d := DeriveFeedback(kind, r.Question, c.SQL, c.Exec, r.Gold, q.Gold, c.Correct)
					pd := base
					pd.Kind, pd.SQL, pd.Result = kind, c.SQL, RenderExecution(c.Exec)
					p, err := ts.Render(RoleValidator, pd)
					if err != nil {
						return nil, err
					}
					out = append(out, TrainExample{Role: RoleValidator, Kind: kind, QuestionID: id, Candidate: j, Prompt: p, Completion: d.Text, Positive: d.Correct})
					if !d.Correct {
						rejecting = append(rejecting, d.Text)
					}
				}
			} else {
				rejecting = []string{RenderExecution(c.Exec)}
			}
			if !c.Correct && len(rejecting) > 0 && c.SQL != "" {
				pd := base
				pd.SQL, pd.Result, pd.Feedback = c.SQL, RenderExecution(c.Exec), rejecting
				p, err := ts.Render(RoleFixer, pd)
				if err != nil {
					return nil, err
				}
				out = append(out, TrainExample{Role: RoleFixer, QuestionID: id, Candidate: j, Prompt: p, Completion: r.Gold, Positive: true})
			}
		}
		reps := TournamentEntrants(r, len(r.Candidates))
		for x := 0; x < len(reps); x++ {
			for y := 0; y < len(reps); y++ {
				a, b := r.Candidates[reps[x]], r.Candidates[reps[y]]
				if x == y || a.Correct == b.Correct {
					continue
				}
				pd := base
				pd.A, pd.B = Shown{a.SQL, RenderExecution(a.Exec)}, Shown{b.SQL, RenderExecution(b.Exec)}
				p, err := ts.Render(RoleSelector, pd)
				if err != nil {
					return nil, err
				}
				ans := "B"
				if a.Correct {
					ans = "A"
				}
				out = append(out, TrainExample{Role: RoleSelector, QuestionID: id, Candidate: reps[x], Prompt: p, Completion: ans, Positive: true})
			}
		}
	}
	return out, nil
}

func trimCue(p string) string {
	const cue = "\nSQL: "
	if len(p) >= len(cue) && p[len(p)-len(cue):] == cue {
		return p[:len(p)-len(cue)]
	}
	return p
}
