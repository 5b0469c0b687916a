package feedbackhalves

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

// exported is a half's feedback export: its counts, the human question
// ids its records came from and the records' own ids (answer ids), each
// checked to answer a question of the trained half.
type exported struct {
	manifest    *feedback.ExportManifest
	questionIDs []int
	answers     map[int]bool
}

// exportHalf exports the run's feedback store as `sqlrl data
// from-feedback -db-root` does, and maps every exported record (keyed by
// answer id) back to its question, refusing any that is not of the
// trained half: the held-back half must never reach training.
func exportHalf(ctx context.Context, in *input, p plannedRun, s *Served) (*exported, error) {
	st, err := feedback.OpenExisting(ctx, filepath.Join(p.dir, StoreFile))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	opts := feedback.DefaultExportOptions()
	opts.Out, opts.DBRoot = filepath.Join(p.dir, ExportDir), in.root
	m, err := feedback.Export(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	b, err := dataset.LoadQuestions(filepath.Join(opts.Out, feedback.FileQuestions))
	if err != nil {
		return nil, fmt.Errorf("read the export: %w", err)
	}
	byAnswer := map[int64]int{}
	for _, a := range s.Answers {
		byAnswer[a.AnswerID] = a.QuestionID
	}
	trained := map[int]bool{}
	for _, ex := range p.trained {
		trained[ex.QuestionID] = true
	}
	e := &exported{manifest: m, answers: map[int]bool{}}
	for _, ex := range b.Examples {
		qid, ok := byAnswer[int64(ex.QuestionID)]
		if !ok || !trained[qid] {
			return nil, fmt.Errorf("the export's record %d (answer %d) is no answer to a question of half %s: refusing to train on it", ex.Index, ex.QuestionID, p.cfg.Trained)
		}
		e.questionIDs = append(e.questionIDs, qid)
		e.answers[ex.QuestionID] = true
	}
	slices.Sort(e.questionIDs)
	return e, nil
}

// trainHalf runs offline KTO from the model on the export, as `sqlrl
// train kto -online=false -offline rollouts.jsonl -questions feedback.json
// -db-root DIR` does; an interrupted run resumes from its checkpoint. It
// returns the steps taken and the export's questions left out because
// their prompts do not fit the model's context.
func trainHalf(ctx context.Context, o Options, in *input, p plannedRun) (steps, left int, err error) {
	info, err := policy.ReadInfo(in.checkpoint)
	if err != nil {
		return 0, 0, err
	}
	fb := filepath.Join(p.dir, ExportDir)
	data := &train.Data{Format: info.Prompt, Notes: map[string]string{}}
	if err := data.UseQuestions(ctx, filepath.Join(fb, feedback.FileQuestions), in.root); err != nil {
		return 0, 0, err
	}
	defer data.Close()
	ro := train.DefaultRLOptions(train.AlgoKTO)
	ro.Online, ro.OfflineFile = false, filepath.Join(fb, feedback.FileRollouts)
	ro.Init, ro.Out = in.checkpoint, filepath.Join(p.dir, KTODir)
	ro.Steps, ro.Prompts, ro.LR = o.KTO.Steps, o.KTO.Prompts, o.KTO.LR
	ro.Seed, ro.Threads, ro.EvalEvery, ro.LogEvery, ro.Progress = p.cfg.Seed, o.Threads, -1, 10, o.Progress
	stage(o.Progress, "%s: offline KTO, %d steps of %d questions at lr %g", p.name, o.KTO.Steps, o.KTO.Prompts, o.KTO.LR)
	res, err := train.RL(ctx, data, ro)
	if err != nil {
		return 0, 0, fmt.Errorf("offline KTO: %w", err)
	}
	return int(res.State.Step), res.Skipped, nil
}

// trainHalfSFT continues SFT from the model on the export's accepted and
// corrected answers (feedback.json's questions with SQL), rendered in the
// checkpoint's prompt format over the questions' databases, as `sqlrl
// train sft -init MODEL` trains; an interrupted run resumes from its
// checkpoint. It trains only on records exportHalf checked (fb), so the
// held-back half cannot reach it. It returns the examples, the steps
// taken and the examples left out because they do not fit the model's
// context.
func trainHalfSFT(ctx context.Context, o Options, in *input, p plannedRun, fb *exported) (examples, steps, left int, err error) {
	info, err := policy.ReadInfo(in.checkpoint)
	if err != nil {
		return 0, 0, 0, err
	}
	path := filepath.Join(p.dir, ExportDir, feedback.FileQuestions)
	data := &train.Data{Format: info.Prompt, Task: info.Task, Notes: map[string]string{}}
	defer data.Close()
	if _, err := data.UseSFTQuestions(ctx, path, in.root); err != nil {
		return 0, 0, 0, fmt.Errorf("SFT on the accepted and corrected answers: %w", err)
	}
	for _, ex := range data.Train {
		if !fb.answers[ex.QuestionID] {
			return 0, 0, 0, fmt.Errorf("%s: answer %d is no exported answer to a question of half %s: refusing to train on it", path, ex.QuestionID, p.cfg.Trained)
		}
	}
	c := p.cfg.SFT
	so := train.DefaultSFTOptions()
	so.Init, so.Out = in.checkpoint, filepath.Join(p.dir, SFTDir)
	so.Epochs, so.LR, so.BatchSize, so.Rename = c.Epochs, c.LR, c.Batch, -1 // -1: no renaming (SFT's default renames)
	so.EvalEvery = -1
	so.Seed, so.Threads, so.LogEvery, so.Progress = p.cfg.Seed, o.Threads, 10, o.Progress
	stage(o.Progress, "%s: SFT on %d accepted or corrected answers, %d epochs of batch %d at lr %g",
		p.name, len(data.Train), c.Epochs, c.Batch, c.LR)
	res, err := train.SFT(ctx, data, so)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("SFT: %w", err)
	}
	return len(data.Train), int(res.State.Step), res.Skipped, nil
}

// scoreHalf scores the held-back half greedily under the schema guide
// with the model before and after training, and records the read of the
// test file.
func scoreHalf(ctx context.Context, o Options, in *input, p plannedRun, r *RunResult) error {
	stage(o.Progress, "%s: scoring held-back half %s (%d questions) before and after", p.name, r.Scored, len(p.score))
	readAt := time.Now().UTC()
	var err error
	if r.Before, err = train.EvalQuestions(ctx, in.checkpoint, in.root, p.score, train.EvalOptions{}); err != nil {
		return fmt.Errorf("score the model before: %w", err)
	}
	if r.After, err = train.EvalQuestions(ctx, filepath.Join(p.dir, p.cfg.trainedDir()), in.root, p.score, train.EvalOptions{}); err != nil {
		return fmt.Errorf("score the model after: %w", err)
	}
	bq, aq := r.Before.Report.Questions, r.After.Report.Questions
	for i := range bq {
		if aq[i].QuestionID != bq[i].QuestionID {
			return fmt.Errorf("the two evaluations scored questions in another order (%d, %d)", bq[i].QuestionID, aq[i].QuestionID)
		}
		r.Verdicts = append(r.Verdicts, Verdict{QuestionID: bq[i].QuestionID, Difficulty: bq[i].Difficulty, Before: bq[i].Correct, After: aq[i].Correct})
	}
	_, _, err = experiment.RecordTestRead(o.Out, experiment.TestRead{Study: "feedback-halves " + p.name, SHA256: in.sum, Time: readAt, Command: o.Command})
	return err
}
