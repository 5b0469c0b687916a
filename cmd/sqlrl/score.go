package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/specialise"
	"github.com/sqlrl/sqlrl/train"
)

func init() {
	register(&command{
		name:    "score",
		summary: "a model's EX on a question file, greedily or by vote, decoded exactly as specialise's report and serve answer",
		usage:   "-model DIR -questions FILE.json -db-root DIR -json OUT.json [-vote K] [-test-reads DIR]",
		help: `Decodes every question of a BIRD-layout file (with gold SQL) with a native
checkpoint, under the schema guide, greedily or, with -vote K, by a vote of the
greedy decode and K samples executed on the databases (no gold read), exactly
as 'sqlrl specialise' scores its models and 'sqlrl serve' answers; scores each
by execution (BIRD EX) and writes the question-by-question report that
'sqlrl compare' reads. Databases are -db-root/<db_id>/<db_id>.sqlite, with
their database_description/ when present.

When the file is a test (your own questions, say), -test-reads DIR appends
this read to DIR/test-reads.json, as specialise and experiment study count
theirs (docs/results.md, "Protocol").

  sqlrl score -model out/shop/flywheel/runs/sft-ID/train -questions mine.json \
    -db-root out/shop/data/dev_databases -vote 8 -json mine-vote.json -test-reads out/shop`,
		args:  argsNone,
		flags: scoreFlags,
	})
}

func scoreFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	model := fs.String("model", "", "checkpoint or run `dir` (required)")
	questions := fs.String("questions", "", "BIRD-layout question `file` with gold SQL (required)")
	root := fs.String("db-root", "", "`dir` holding <db_id>/<db_id>.sqlite (required)")
	out := fs.String("json", "", "question-by-question report to write (`file`, required)")
	vote := specialise.DefaultVote() // the served model's, but off unless -vote
	vote.Samples = 0
	fs.IntVar(&vote.Samples, "vote", 0, "answer by a vote of the greedy decode and this many samples, executed (0: greedy)")
	fs.Float64Var(&vote.Temperature, "vote-temperature", vote.Temperature, "temperature of -vote's samples")
	reads := fs.String("test-reads", "", "record this read in `dir`/test-reads.json (for a test file)")
	threads, quiet := threadsFlag(fs), quietFlag(fs)
	return func(ctx context.Context, _ []string) error {
		switch {
		case *model == "" || *questions == "" || *root == "" || *out == "":
			return usagef("-model, -questions, -db-root and -json are required")
		case vote.Samples < 0:
			return usagef("-vote must be 0 or more, got %d", vote.Samples)
		}
		if !vote.On() {
			vote = consensus.Sampling{}
		}
		if err := vote.Check(); err != nil {
			return usagef("-vote, -vote-temperature: %v", err)
		}
		if st, err := os.Stat(*root); err != nil || !st.IsDir() {
			return usagef("-db-root %s: not a folder of databases", *root)
		}
		b, err := dataset.LoadQuestions(*questions)
		if err != nil {
			return err
		}
		sum, err := export.FileSHA256(*questions)
		if err != nil {
			return err
		}
		nn.SetThreads(*threads)
		var bar *progress.Bar
		if !*quiet {
			bar = progress.New(os.Stderr, "score", len(b.Examples))
		}
		start := time.Now()
		ev, err := train.EvalQuestions(ctx, *model, *root, b.Examples, train.EvalOptions{Vote: vote, Progress: bar.Func()})
		bar.Finish()
		if err != nil {
			return fmt.Errorf("score %s: %w", *model, err)
		}
		if err := writeJSON(*out, ev.Report, false); err != nil { // as eval --json writes it
			return err
		}
		if *reads != "" {
			n, _, err := experiment.RecordTestRead(*reads, experiment.TestRead{Study: "score " + filepath.Base(*questions), SHA256: sum, Time: start.UTC(), Command: commandLine()})
			if err != nil {
				return err
			}
			fmt.Printf("read %d of %s recorded in %s\n", n, *questions, filepath.Join(*reads, experiment.TestReadsFile))
		}
		how := "greedy"
		if vote.On() {
			how = vote.String()
		}
		fmt.Printf("%s (%s): %s\n", *model, how, ev.Summary())
		return nil
	}
}
