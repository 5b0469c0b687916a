package feedbackhalves

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/train"
)

// TestRunSFT runs -train sft end to end on one seed with a micro model:
// each half's SFT trains from the model on the export's accepted and
// corrected answers (all of the trained half's, since the scripted user
// corrects every wrong answer with a gold that runs), the after-model's
// weights differ from the model's, the report names SFT and its
// settings, and a second run reads every run back.
func TestRunSFT(t *testing.T) {
	questions, model := fixture(t)
	o := quickOptions(t, questions, model)
	o.Seeds, o.Train, o.SFT = []uint64{1}, TrainSFT, SFT{Epochs: 2, LR: 1e-3, Batch: 4}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	before, err := policy.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 {
		t.Fatalf("%d runs, want 2 halves", len(rep.Runs))
	}
	for _, r := range rep.Runs {
		b, err := dataset.LoadQuestions(filepath.Join(r.Dir, ExportDir, feedback.FileQuestions))
		if err != nil {
			t.Fatal(err)
		}
		withSQL := 0
		for _, ex := range b.Examples {
			if ex.SQL != "" {
				withSQL++
			}
		}
		steps := 2 * ((withSQL + 3) / 4)
		if r.Train != TrainSFT || r.SFTExamples != withSQL || withSQL != len(r.TrainedIDs) || r.SFTSteps != steps || r.KTOSteps != 0 {
			t.Errorf("%s: train %q, %d examples (%d with SQL, %d trained questions), %d steps (want %d), %d KTO steps",
				r.Name, r.Train, r.SFTExamples, withSQL, len(r.TrainedIDs), r.SFTSteps, steps, r.KTOSteps)
		}
		if _, err := os.Stat(filepath.Join(r.Dir, KTODir)); err == nil {
			t.Errorf("%s: a KTO run in an SFT run", r.Name)
		}
		after, err := policy.Load(filepath.Join(r.Dir, SFTDir))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(after.Model.Params, before.Model.Params) || after.Info.Prompt != before.Info.Prompt || after.Tok.VocabSize() != before.Tok.VocabSize() {
			t.Errorf("%s: the after-model has the model's weights, or another format or tokenizer", r.Name)
		}
		if r.After.N != len(r.ScoredIDs) || len(r.Verdicts) != len(r.ScoredIDs) {
			t.Errorf("%s: scored %d of %d questions after", r.Name, r.After.N, len(r.ScoredIDs))
		}
		var cfg runConfig
		if raw, err := os.ReadFile(filepath.Join(r.Dir, "config.json")); err != nil || json.Unmarshal(raw, &cfg) != nil || cfg.Train != TrainSFT || cfg.KTO != nil || cfg.SFT == nil || *cfg.SFT != o.SFT {
			t.Errorf("%s: config.json %+v (%v): want SFT's settings, no KTO's", r.Name, cfg, err)
		}
		var ran train.SFTConfig
		if raw, err := os.ReadFile(filepath.Join(r.Dir, SFTDir, train.SettingsFile)); err != nil || json.Unmarshal(raw, &ran) != nil || ran.Rename >= 0 || ran.Epochs != o.SFT.Epochs || ran.LR != o.SFT.LR {
			t.Errorf("%s: the SFT run's settings %+v (%v): want no renaming, the epochs and rate asked", r.Name, ran, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(o.Out, ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SFT from the model on the answers the user accepted or corrected", "2 epochs of batch 4, lr 0.001", "no renaming", "before -> after SFT", "| SFT |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if rep.Train != TrainSFT || rep.SFT == nil || rep.KTO != nil || strings.Contains(string(md), "KTO") {
		t.Errorf("report: train %q, sft %+v, kto %+v: want SFT's settings alone", rep.Train, rep.SFT, rep.KTO)
	}

	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again.Runs {
		if !r.Resumed || r.Dir != rep.Runs[i].Dir || r.SFTExamples != rep.Runs[i].SFTExamples {
			t.Errorf("%s: done again or read back otherwise (%s, %d examples), want it read back from %s", r.Name, r.Dir, r.SFTExamples, rep.Runs[i].Dir)
		}
	}
	if md2, err := os.ReadFile(filepath.Join(o.Out, ReportMD)); err != nil || !strings.Contains(string(md2), "before -> after SFT") {
		t.Errorf("rerun's report.md: %v", err)
	}

	// KTO over the same -out: other runs, beside the SFT ones
	o.Train = TrainKTO
	kto, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range kto.Runs {
		if r.Resumed || r.Dir == rep.Runs[i].Dir || r.Train != "" {
			t.Errorf("%s: KTO read back an SFT run (%s)", r.Name, r.Dir)
		}
	}
}

// TestSFTRefusesForeignAnswers: SFT trains only on answers exportHalf
// checked to be of the trained half; an export with another record is
// refused before any training.
func TestSFTRefusesForeignAnswers(t *testing.T) {
	questions, model := fixture(t)
	o := quickOptions(t, questions, model)
	o.Train, o.SFT = TrainSFT, DefaultSFT()
	in, err := o.check()
	if err != nil {
		t.Fatal(err)
	}
	p := plannedRun{name: "s1-AtoB", dir: t.TempDir(), cfg: runConfig{Seed: 1, Trained: HalfA, Train: TrainSFT, SFT: &o.SFT}}
	recs := `[{"question_id": 1, "db_id": "shop", "question": "How many customers are there?", "evidence": "", "SQL": "SELECT COUNT(*) FROM customer"},
	{"question_id": 2, "db_id": "shop", "question": "How many orders are there?", "evidence": "", "SQL": "SELECT COUNT(*) FROM orders"}]`
	if err := os.MkdirAll(filepath.Join(p.dir, ExportDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, ExportDir, feedback.FileQuestions), []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = trainHalfSFT(context.Background(), o, in, p, &exported{answers: map[int]bool{1: true}})
	if err == nil || !strings.Contains(err.Error(), "answer 2 is no exported answer to a question of half A") {
		t.Fatalf("got %v, want SFT to refuse answer 2", err)
	}
	if _, err := os.Stat(filepath.Join(p.dir, SFTDir)); err == nil {
		t.Error("training started")
	}
}

// TestExportRefusesForeignRecords: exportHalf exports the run's store and
// refuses a record that is no served answer to a question of the trained
// half, whether the server never gave it (not in served.json) or gave it
// to a question of the other half, before anything trains on it.
func TestExportRefusesForeignRecords(t *testing.T) {
	questions, model := fixture(t)
	o := quickOptions(t, questions, model)
	in, err := o.check()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		name   string
		served func(own, other int64) *Served
		want   string
	}{
		{"own answers only", func(own, other int64) *Served {
			return &Served{Answers: []Answer{{QuestionID: 100, AnswerID: own}}}
		}, ""},
		{"answer never served", func(own, other int64) *Served {
			return &Served{Answers: []Answer{{QuestionID: 100, AnswerID: own}}}
		}, "no answer to a question of half A"},
		{"answer to the other half", func(own, other int64) *Served {
			return &Served{Answers: []Answer{{QuestionID: 100, AnswerID: own}, {QuestionID: 101, AnswerID: other}}}
		}, "no answer to a question of half A"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := plannedRun{name: "s1-AtoB", dir: t.TempDir(), cfg: runConfig{Seed: 1, Trained: HalfA},
				trained: []dataset.Example{{QuestionID: 100, DBID: "shop"}}}
			st, err := feedback.Open(ctx, filepath.Join(p.dir, StoreFile))
			if err != nil {
				t.Fatal(err)
			}
			record := func(q, sql string) int64 {
				a, err := st.RecordAnswer(ctx, feedback.Answer{DBID: "shop", Question: q, Model: "m", SQL: sql, Outcome: feedback.OutcomeOK, Rows: 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := st.RecordFeedback(ctx, feedback.Feedback{AnswerID: a.ID, Verdict: feedback.VerdictUp, Author: userName}); err != nil {
					t.Fatal(err)
				}
				return a.ID
			}
			own := record(fixtureQuestions[0].q, fixtureQuestions[0].sql)
			var other int64
			if c.want != "" {
				other = record(fixtureQuestions[1].q, fixtureQuestions[1].sql)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			e, err := exportHalf(ctx, in, p, c.served(own, other))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(e.questionIDs, []int{100}) || !e.answers[int(own)] {
					t.Errorf("exported questions %v, answers %v; want question 100 by answer %d", e.questionIDs, e.answers, own)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refusing to train") {
				t.Fatalf("got %v, want a refusal naming half A", err)
			}
		})
	}
}
