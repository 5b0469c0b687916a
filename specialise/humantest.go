package specialise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/train"
)

// HumanTest is the user's own questions scored once, by the model
// before KTO (SFT) and the served one (KTO): EX by difficulty. It is a
// test, as docs/results.md's protocol counts test reads: every read is
// appended to ReadsFile, and a rerun of the same models on the same file
// reuses this record instead of reading the file again.
type HumanTest struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	// Models are the checkpoints' run directories scored (sft, kto).
	Models map[string]string `json:"models"`
	// Scores by model: EX overall and by difficulty, in [0, 1]; "sft"
	// and "kto" decoded greedily, VoteKey(served) by Vote.
	Scores map[string]*train.Eval `json:"scores"`
	Vote   consensus.Sampling     `json:"vote,omitzero"`
	// Skipped counts the file's questions on databases not trained on.
	Skipped int       `json:"skipped,omitempty"`
	Seconds float64   `json:"seconds"`
	ReadAt  time.Time `json:"read_at"`
	// Reads is how many times this file was read in Out, this one
	// included.
	Reads int `json:"reads"`
	// Questions names each model's question-by-question evaluation
	// (eval.Report, as `sqlrl eval --json` writes it) in Out, so that two
	// models or two runs can be compared question by question
	// (significance, eval.Compare).
	Questions map[string]string `json:"questions,omitempty"`
}

// humanEvalFile is the question-by-question evaluation of one model on
// the human test.
func humanEvalFile(model string) string { return "human-" + model + "-eval.json" }

// VoteKey is the human test's key for the served model answering by
// vote ("sft vote" or "kto vote").
func VoteKey(served string) string { return served + " vote" }

// humanTest scores the SFT and KTO models greedily on o.Questions and,
// when o.Vote is on, the served one by vote; a score the record of an
// earlier read of the same file by the same models (and vote) holds is
// not read again.
func humanTest(ctx context.Context, o Options, stamp *Stamp, sft, kto, served string) (*HumanTest, bool, error) {
	sum, err := export.FileSHA256(o.Questions)
	if err != nil {
		return nil, false, fmt.Errorf("-questions %s: %w", o.Questions, err)
	}
	models := map[string]string{"sft": sft, "kto": kto}
	path := filepath.Join(o.Out, HumanFile)
	var have HumanTest
	if b, err := os.ReadFile(path); err == nil {
		if json.Unmarshal(b, &have) != nil || have.SHA256 != sum || have.Models["sft"] != sft || have.Models["kto"] != kto {
			have = HumanTest{}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, false, fmt.Errorf("specialise: %w", err)
	}
	// The decodes to score: each model greedily, the served one by vote.
	type job struct {
		key, model string
		vote       consensus.Sampling
	}
	var jobs []job
	for _, name := range []string{"sft", "kto"} {
		// A record made before question-by-question files were kept is
		// read again for them (the greedy scores do not change).
		if have.Scores[name] == nil || have.Questions[name] == "" {
			jobs = append(jobs, job{name, models[name], consensus.Sampling{}})
		}
	}
	if o.Vote.On() && (have.Scores[VoteKey(served)] == nil || have.Vote != o.Vote) {
		jobs = append(jobs, job{VoteKey(served), models[served], o.Vote})
	}
	if len(jobs) == 0 {
		stage(o.Progress, fmt.Sprintf("human test: read before (%s), not read again", have.ReadAt.Format(time.RFC3339)))
		return &have, false, nil
	}
	b, err := dataset.LoadQuestions(o.Questions)
	if err != nil {
		return nil, false, fmt.Errorf("-questions %s: %w", o.Questions, err)
	}
	var ids []string
	for _, d := range stamp.Databases {
		ids = append(ids, d.DBID)
	}
	// Only the questions on the databases trained on are scored; the
	// others are counted as skipped in the report.
	var exs []dataset.Example
	for _, ex := range b.Examples {
		if slices.Contains(ids, ex.DBID) {
			exs = append(exs, ex)
		}
	}
	if len(exs) == 0 {
		return nil, false, fmt.Errorf("-questions %s: none of its %d questions is on a database given with -db (%v; a database is named by its file's base name)", o.Questions, len(b.Examples), ids)
	}
	stage(o.Progress, fmt.Sprintf("human test: %d questions of %s (%d on other databases skipped), read once", len(exs), o.Questions, len(b.Examples)-len(exs)))
	start := time.Now()
	ht := &have
	if ht.Scores == nil {
		*ht = HumanTest{File: o.Questions, SHA256: sum, Models: models, Scores: map[string]*train.Eval{}}
	}
	ht.Skipped, ht.ReadAt = len(b.Examples)-len(exs), start.UTC()
	if o.Vote.On() {
		ht.Vote = o.Vote
	}
	// The generated benchmark's copies of the databases, with their
	// descriptions, are the ones the models were prompted with.
	root := filepath.Join(o.Out, DataDir, "dev_databases")
	o.setThreads()
	for _, j := range jobs {
		bar := progress.New(o.Progress, "human test, "+j.key, len(exs))
		ev, err := train.EvalQuestions(ctx, j.model, root, exs, train.EvalOptions{Vote: j.vote, Progress: bar.Func()})
		bar.Finish()
		if err != nil {
			return nil, false, fmt.Errorf("human test of the %s model: %w", j.key, err)
		}
		stage(o.Progress, fmt.Sprintf("human test, %s model (%s): %s", j.key, j.vote, ev.Summary()))
		ht.Scores[j.key] = ev
		if ev.Report != nil {
			b, err := json.MarshalIndent(ev.Report, "", "  ")
			if err != nil {
				return nil, false, fmt.Errorf("human test of the %s model: %w", j.key, err)
			}
			file := humanEvalFile(strings.ReplaceAll(j.key, " ", "-"))
			if err := atomicfile.WriteFile(filepath.Join(o.Out, file), append(b, '\n')); err != nil {
				return nil, false, fmt.Errorf("specialise: %w", err)
			}
			if ht.Questions == nil {
				ht.Questions = map[string]string{}
			}
			ht.Questions[j.key] = file
		}
	}
	ht.Seconds += time.Since(start).Seconds()
	if ht.Reads, _, err = experiment.RecordTestRead(o.Out, experiment.TestRead{Study: "specialise " + o.Questions, SHA256: sum, Time: ht.ReadAt, Command: o.Command}); err != nil {
		return nil, false, err
	}
	out, err := json.MarshalIndent(ht, "", "  ")
	if err != nil {
		return nil, false, err
	}
	if err := atomicfile.WriteFile(path, append(out, '\n')); err != nil {
		return nil, false, fmt.Errorf("specialise: %w", err)
	}
	return ht, true, nil
}
