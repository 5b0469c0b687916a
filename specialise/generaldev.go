package specialise

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/train"
)

// GeneralDevFile, in Options.Out, holds general questions (other
// databases' human questions, on stand-ins) that SFT's split held out and
// RL never draws: a dev split of human questions for choosing settings
// (decoding, feedback training) without reading the human test.
const GeneralDevFile = "general-dev.json"

// GeneralDevQuestions is the least size of GeneralDevFile: whole
// databases, those with the most held-out questions first, are kept until
// it is reached, so that the split decodes (by vote too) in minutes and
// each of its databases holds enough questions to cut into halves
// (`experiment feedback-halves`).
const GeneralDevQuestions = 300

// GeneralDev says what GeneralDevFile holds.
type GeneralDev struct {
	File string `json:"file"`
	// DBRoot holds the stand-ins of its databases (DataDir's train split).
	DBRoot    string   `json:"db_root"`
	Questions int      `json:"questions"`
	Databases []string `json:"databases"`
	// HeldOut counts every general question SFT's split held out, of
	// Databases' and the others'.
	HeldOut int `json:"held_out"`
	// Score is the command that scores the served model on File as it
	// answers (scoreCommand).
	Score string `json:"score"`
}

// scoreCommand is the `sqlrl score` line that decodes g's questions with
// model as serve.json answers: greedily, or by vote.
func (g *GeneralDev) scoreCommand(model string, vote consensus.Sampling) string {
	c := fmt.Sprintf("sqlrl score -model %s -questions %s -db-root %s", model, g.File, g.DBRoot)
	if vote.On() {
		c += fmt.Sprintf(" -vote %d", vote.Samples)
		if vote.Temperature != DefaultVote().Temperature {
			c += fmt.Sprintf(" -vote-temperature %g", vote.Temperature)
		}
	}
	return c + " -json general-dev-eval.json"
}

// writeGeneralDev writes GeneralDevFile into out from the general
// questions that sft (a checkpoint or run trained with -general) held
// out, cut as its notes record, over out's DataDir; nil when it held out
// none.
func writeGeneralDev(out, sft string) (*GeneralDev, error) {
	data := filepath.Join(out, DataDir)
	held, err := train.StartGeneralHeldOut(sft, data)
	if err != nil {
		return nil, fmt.Errorf("specialise: %s: %w", GeneralDevFile, err)
	}
	if len(held) == 0 {
		// A general file so small that every stratum's share went to SFT:
		// no dev split to write, and nothing wrong with the run.
		return nil, nil
	}
	count := map[string]int{}
	for _, ex := range held {
		count[ex.DBID]++
	}
	gd := &GeneralDev{File: filepath.Join(out, GeneralDevFile), DBRoot: filepath.Join(data, "train_databases"), HeldOut: len(held),
		Databases: largest(count, GeneralDevQuestions)}
	keep := map[string]bool{}
	for _, db := range gd.Databases {
		keep[db] = true
	}
	recs := []dataset.Record{}
	for _, ex := range held {
		if keep[ex.DBID] {
			recs = append(recs, dataset.Record{QuestionID: ex.QuestionID, DBID: ex.DBID, Question: ex.Question,
				Evidence: ex.Evidence, SQL: ex.SQL, Difficulty: ex.Difficulty})
		}
	}
	gd.Questions = len(recs)
	b, err := dataset.MarshalBIRD(recs)
	if err != nil {
		return nil, fmt.Errorf("specialise: %s: %w", GeneralDevFile, err)
	}
	if err := atomicfile.WriteFile(gd.File, b); err != nil {
		return nil, fmt.Errorf("specialise: %w", err)
	}
	return gd, nil
}

// largest returns the databases of count (questions a database), the
// most first (ties by name), until together they hold at least least.
func largest(count map[string]int, least int) []string {
	dbs := make([]string, 0, len(count))
	for db := range count {
		dbs = append(dbs, db)
	}
	slices.SortFunc(dbs, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	n := 0
	for i, db := range dbs {
		if n >= least {
			return dbs[:i]
		}
		n += count[db]
	}
	return dbs
}
