package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/specialise"
)

func init() {
	register(&command{
		name:    "specialise",
		summary: "your database to a served model: generate questions, SFT, online KTO, serve.json and a before/after report",
		usage:   "-db FILE.sqlite|postgres://... [-db ...]... [-pg-schema S] [-out DIR] [-questions FILE] [-general bird-train|FILE [-general-max N] [-general-each N]] [-n N] [-sft-epochs E] [-kto-steps S] [--force]",
		help: `One resumable command from a SQLite or PostgreSQL database to a model
'sqlrl serve' loads:

  1. generate: -n verified questions per database over its own schema and
     values ('sqlrl bench from-db'), split into train, a synthetic dev split
     (for choosing settings) and a sealed test split, in -out/data;
  2. SFT: the native model on 75% of train (with -general, and of other
     databases' human questions: BIRD's train questions with -general
     bird-train, on stand-in databases built from their golds);
  3. KTO: online KTO from it on the other 25% (the holdout), rewarded by
     execution against the gold;
  4. evaluate both models on every synthetic dev question, and serve the
     KTO model unless KTO lowered dev EX (then the SFT model); with -vote
     (the default), also the served model answering by a vote of its
     greedy decode and -vote samples, executed;
  5. -out/serve.json, ready for 'sqlrl serve -config' with that model,
     answering by vote when -vote is on;
  6. with -questions (your own questions with gold SQL in BIRD's layout,
     over databases named as the -db files' base names): both models' EX on
     them by difficulty (and the served one's by vote), the report's last
     table. This is a test: it is
     read once per run of the models and every read is counted in
     -out/test-reads.json; do not choose settings on it.

With -general, -out/general-dev.json holds human questions to choose
settings on instead: those of -general's that SFT's split held out (KTO never
draws them), whole databases, the largest first, until there are 300; the
report says how to score a model on them ('sqlrl score').

-out/report.md and report.json hold each stage's time and the tables.
Running the same command again continues where it stopped: finished
stages are reused and a rerun of a finished run only writes the report.
The defaults fit a BIRD-sized database in under half an hour on 2 cores
(docs/dbgen.md). -quick tests the machinery with a micro model.

A postgres:// DSN as -db is read as 'bench from-db' reads it: the tables of
-pg-schema its role can SELECT are copied (read-only) into a SQLite
snapshot under -out/snapshots, which is generated over, trained on and
served; tables it cannot read are skipped and named.

  sqlrl specialise -db datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite -out out/superhero`,
		args:  argsNone,
		flags: specialiseFlags,
	})
}

// specialiseFlags declares `specialise`'s flags; the KTO settings are the
// flywheel's (experiment.Preset.FlywheelFlags).
func specialiseFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	var dbs stringList
	o := specialise.Options{DevShare: specialise.DefaultShare, TestShare: specialise.DefaultShare, Preset: specialise.Preset(), Vote: specialise.DefaultVote()}
	fs.Var(&dbs, "db", "a SQLite database `file` or a postgres:// DSN to specialise to (required; repeat for several)")
	snapshotFlags(fs, &o.Snapshot)
	fs.StringVar(&o.Out, "out", "out/specialise", "`dir` for the questions, runs, serve.json and report; the same -out resumes")
	fs.StringVar(&o.Questions, "questions", "", "your own questions with gold SQL in BIRD's layout (`file`): the human test, the report's last table")
	fs.StringVar(&o.Descriptions, "descriptions", "", "a descriptions JSON `file` naming tables and columns (docs/dbgen.md)")
	fs.StringVar(&o.General, "general", "", "human questions over other databases added to SFT, on stand-ins built from their golds: bird-train (BIRD's train questions, built in) or a BIRD-layout `file`; none by default")
	fs.IntVar(&o.GeneralMax, "general-max", 0, "with -general: keep at most this many of its questions, chosen by -seed (0: all); fewer general questions, fewer SFT steps")
	fs.IntVar(&o.GeneralEach, "general-each", 0, "with -general: each SFT epoch trains on all the generated questions and the next this many of a -seed shuffle of its questions, each met once before any twice (0: all every epoch); the steps of -general-max N, more distinct questions; a changed value trains SFT and everything after it anew")
	fs.BoolVar(&o.TokenizerOwn, "tokenizer-own", false, "with -general: learn the tokenizer from the generated questions alone, not the general ones too (train sft -tokenizer-own); a changed value trains SFT and everything after it anew")
	fs.IntVar(&o.N, "n", specialise.DefaultN, "questions generated per database over all splits")
	fs.Float64Var(&o.DevShare, "dev", o.DevShare, "share of -n for the synthetic dev split")
	fs.Float64Var(&o.TestShare, "test", o.TestShare, "share of -n for the sealed test split")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of generation and training")
	fs.BoolVar(&o.Force, "force", false, "generate again when -out holds questions from other databases or settings")
	fs.IntVar(&o.Vote.Samples, "vote", o.Vote.Samples, "the served model answers by a vote of its greedy decode and this many samples, executed (0: greedy); the report scores it both ways")
	fs.Float64Var(&o.Vote.Temperature, "vote-temperature", o.Vote.Temperature, "temperature of -vote's samples")
	quick := fs.Bool("quick", false, "micro model, a few steps: tests the machinery, not the model")
	threads, quiet := threadsFlag(fs), quietFlag(fs)
	o.Preset.FlywheelFlags(fs)
	return func(ctx context.Context, _ []string) error {
		o.DBs, o.Threads, o.Progress, o.Command = dbs, *threads, progressTo(*quiet), commandLine()
		if *quick {
			settings := flag.NewFlagSet("", flag.ContinueOnError)
			o.Preset.FlywheelFlags(settings)
			fs.Visit(func(f *flag.Flag) {
				if settings.Lookup(f.Name) != nil {
					fmt.Fprintf(os.Stderr, "specialise: -%s is ignored with -quick (its own settings)\n", f.Name)
				}
			})
			o.Preset = specialise.QuickPreset()
			if !flagSet(fs, "vote") {
				o.Vote = specialise.QuickVote()
			}
		}
		if o.Snapshot.MaxRows <= 0 {
			return usagef("-pg-rows must be positive, got %d", o.Snapshot.MaxRows)
		}
		if err := o.Check(); err != nil {
			return usagef("%v", err)
		}
		res, err := specialise.Run(ctx, o)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(res.Report.Markdown())
		return err
	}
}
