package agents

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// PredictJob is `sqlrl generate`: Predict over a benchmark split, written
// as prediction files.
type PredictJob struct {
	PredictOptions
	// Out is the JSONL predictions file; BIRD, when set, also gets BIRD's
	// prediction JSON.
	Out, BIRD string
	// Log gets a line of throughput per question and a line per failed
	// question; nil: none.
	Log io.Writer
}

// Run predicts every question of b with pol, writes the files and a
// summary to w.
func (j *PredictJob) Run(ctx context.Context, pol *policy.Policy, b *dataset.Benchmark, w io.Writer) error {
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	defer eng.Close()
	start := time.Now()
	o := j.PredictOptions
	var running policy.Stats
	if o.Warn, o.Running = j.Log, &running; j.Log != nil {
		o.Progress = func(done, total int) {
			fmt.Fprintf(j.Log, "generate: %d/%d questions, %.0f completion tok/s\n", done, total, float64(running.CompletionTokens)/time.Since(start).Seconds())
		}
	}
	preds, st, err := Predict(ctx, pol, eng, b.DBRoot, b.Examples, o)
	if err != nil {
		return err
	}
	if err := dataset.WriteJSONLPredictions(j.Out, preds); err != nil {
		return err
	}
	if j.BIRD != "" {
		if err := dataset.WriteBIRDPredictions(j.BIRD, preds); err != nil {
			return err
		}
	}
	st.WriteText(w, len(preds), j.Out, time.Since(start))
	return nil
}
