package agents

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// RunJob is `sqlrl pipeline run`: the pipeline RunConfig describes, over
// a benchmark split's questions, written to a rollouts file.
type RunJob struct {
	RunConfig
	// DBRoot holds the databases of Examples, run read-only in SQLite.
	DBRoot   string
	Examples []dataset.Example
	// Limit keeps the first Limit examples (0: all).
	Limit int
	// Out is the rollouts file written.
	Out string
	// Threads is the engine's parallelism, for the summary only.
	Threads int
	// Progress receives a bar per stage; nil: none.
	Progress io.Writer
}

// Run runs the job, writes its rollouts to Out and the run's figures to
// w: throughput, the time per stage and the report by difficulty.
func (j *RunJob) Run(ctx context.Context, w io.Writer) error {
	exs := j.Examples
	if j.Limit > 0 && j.Limit < len(exs) {
		exs = exs[:j.Limit]
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: j.DBRoot, Limits: sqlexec.Limits{MaxBytes: sqlexec.DefaultMaxResultBytes}})
	defer eng.Close()
	p, fits, err := j.Pipeline(ctx, eng, j.DBRoot, exs)
	if err != nil {
		return err
	}
	var stages *progress.Stages
	if j.Progress != nil {
		stages = progress.NewStages(j.Progress)
		p.Progress = stages.Start
	}
	start := time.Now()
	recs, tm, err := p.Run(ctx, exs, fits)
	stages.Finish()
	if err != nil {
		return err
	}
	el := time.Since(start)
	if err := SaveRecords(j.Out, recs); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %d rollouts to %s in %s (%.2f questions/s on %d threads)\n", len(recs), j.Out, el.Round(time.Millisecond), float64(len(recs))/el.Seconds(), j.Threads)
	fmt.Fprintf(w, "time per stage: %s\n\n", tm.Shares(el))
	return BuildReport(recs).WriteMarkdown(w)
}
