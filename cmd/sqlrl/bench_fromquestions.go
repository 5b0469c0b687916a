package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/datasets/birdtrain"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/standin"
)

func init() {
	register(&command{
		name:    "bench from-questions",
		summary: "a trainable benchmark from a question file whose databases you lack (stand-in databases inferred from its golds)",
		usage:   "-questions FILE.json [-out DIR] [-split train]",
		help: `Reads a BIRD-layout question file (db_id, question, evidence, SQL) without
its databases, infers from the gold SQL of each database the tables, columns,
join keys and quoted values it reads, and writes a stand-in SQLite database
for each under -out/<split>_databases/ with one row per quoted value. Only
the questions whose gold then runs are kept, in -out/<split>.json. BIRD's
public train questions, which ship apart from their databases, become
training data this way (docs/dbgen.md, "Human questions from other
databases"); a stand-in schema holds only what some gold reads.

  sqlrl bench from-questions -questions bird-train -out data/bird-train

To train on such questions beside a benchmark's own (train sft -general):

  sqlrl bench from-questions -questions bird-train -out data/shop -split general -databases data/shop/train_databases
  sqlrl train sft -general general -out runs/shop data/shop`,
		args:  argsNone,
		flags: benchFromQuestionsFlags,
	})
}

// benchFromQuestionsFlags declares `bench from-questions`' flags.
func benchFromQuestionsFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	questions := fs.String("questions", "", "a BIRD-layout question `file` with gold SQL, or bird-train: BIRD's train questions, built in (required)")
	out := fs.String("out", "data/from-questions", "output `dir`")
	split := fs.String("split", "train", "the `split` to write")
	dbs := fs.String("databases", "", "the `folder` receiving the stand-in databases (default -out/<split>_databases; a benchmark's train_databases for train sft -general)")
	quiet := quietFlag(fs)
	return func(ctx context.Context, _ []string) error {
		if *questions == "" {
			return usagef("-questions is required: a BIRD-layout question file with gold SQL")
		}
		b, _, err := birdtrain.Load(*questions)
		if err != nil {
			return err
		}
		exs := b.Examples
		var bar *progress.Bar
		if !*quiet {
			bar = progress.New(os.Stderr, "check golds", len(exs))
		}
		sum, err := standin.Build(ctx, exs, standin.Options{Dir: *out, Split: *split, DBRoot: *dbs, Progress: bar.Func()})
		bar.Finish()
		if errors.Is(err, standin.ErrExists) {
			return fmt.Errorf("%w; choose another -out or -split", err)
		}
		if err != nil {
			return err
		}
		sum.WriteText(os.Stdout, *out)
		fmt.Printf("took %.1fs\n", sum.Seconds)
		return nil
	}
}
