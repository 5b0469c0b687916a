package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/experiment"
)

func init() {
	register(&command{
		name:    "serve calibrate",
		summary: "measure how often 'sqlrl serve's confidence is right: every question of a benchmark split through the ask path, scored against the gold",
		usage:   "(-model DIR | -config FILE) -out DIR [-split dev] [-samples 8] [-tune] BENCHMARK",
		help: `Asks every question of the split (BIRD layout: <split>.json and
<split>_databases/) through the server's own ask path, with the generator of
-model (a native checkpoint or run directory) or of -config's "generator", and
compares each answer's SQL with the gold by execution (BIRD EX). Writes
report.json and report.md to -out: for each confidence level (likely right,
not sure, likely wrong) the answers' count, share, accuracy and coverage of the
right answers, a reliability table (accuracy by samples agreeing), accuracy by
signal, and whether likely right meets -target with -min-coverage. -tune also
chooses the rule that meets the target best on this split: tune on one split
(e.g. -split holdout, the part of train SFT did not see) and report on
another (docs/serve.md, Confidence).`,
		args:  argsExactly(1, "one benchmark directory"),
		flags: serveCalibrateFlags,
	})
}

func serveCalibrateFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	model := fs.String("model", "", "native checkpoint or run directory (what sqlrl train sft -out writes)")
	config := fs.String("config", "", "a serve config whose \"generator\" writes the SQL (instead of -model; its databases and store are not used)")
	out := fs.String("out", "", "folder for report.json and report.md (required)")
	split := splitFlags(fs)
	limit := fs.Int("limit", 0, "ask only the first N questions (0: all)")
	samples := fs.Int("samples", askserver.DefaultSamples, "SQLs sampled beside each answer (generator.samples; 0: none)")
	temp := fs.Float64("sample-temperature", askserver.DefaultSampleTemp, "the samples' temperature (generator.sample_temperature)")
	concurrency := fs.Int("concurrency", 4, "questions asked at once")
	target := fs.Float64("target", 0.8, "the accuracy 'likely right' should reach")
	minCov := fs.Float64("min-coverage", 1.0/3, "the share of right answers 'likely right' should hold")
	tune := fs.Bool("tune", false, "also choose the rule that meets -target best on this split, and report it")
	threads := threadsFlag(fs)
	quiet := quietFlag(fs)
	return func(ctx context.Context, args []string) error {
		var gen askserver.GeneratorConfig
		switch {
		case (*model == "") == (*config == ""):
			return usagef("give one of -model DIR or -config FILE")
		case *out == "":
			return usagef("-out is required")
		case *samples < 0 || *samples > askserver.MaxSamples:
			return usagef("-samples %d: want 0 to %d", *samples, askserver.MaxSamples)
		case *target <= 0 || *target > 1 || *minCov < 0 || *minCov > 1:
			return usagef("-target and -min-coverage: want shares (0 to 1)")
		case *concurrency < 1:
			return usagef("-concurrency %d: want 1 or more", *concurrency)
		case *model != "":
			abs, err := filepath.Abs(*model)
			if err != nil {
				return err
			}
			if st, err := os.Stat(abs); err != nil || !st.IsDir() {
				return usagef("-model %s: no such directory", *model)
			}
			gen.Native = abs
		default:
			cfg, err := askserver.LoadConfig(*config)
			if err != nil {
				return err
			}
			gen = cfg.Generator
		}
		gen.Samples, gen.SampleTemperature = samples, *temp
		b, err := split.Load(args[0], *limit)
		if err != nil {
			return err
		}
		m := experiment.ThisMachine()
		r, err := askserver.Calibrate(ctx, askserver.CalibrateOptions{Bench: b, Split: split.Split, Generator: gen, Concurrency: *concurrency,
			Target: *target, MinCoverage: *minCov, Tune: *tune, Out: *out, Command: commandLine(), Commit: m.Commit, CPU: m.CPU, Kernel: m.Kernel,
			Threads: *threads, Progress: progressTo(*quiet), Log: logTo(*quiet)})
		if err != nil {
			return err
		}
		c := r.Calibration
		for _, l := range c.Levels {
			fmt.Printf("%-13s %4d answers (%5.1f%%)  accuracy %5.1f%%  coverage %5.1f%%\n", l.Label, l.Count, 100*l.Share, 100*l.Accuracy, 100*l.Coverage)
		}
		fmt.Printf("EX %.1f%% over %d answers; target met: %t; report in %s\n", 100*c.EX, c.Answers, c.Met, filepath.Join(*out, "report.md"))
		if t := r.Tuned; t != nil {
			fmt.Printf("tuned rule: %+v\n", t.Rule)
		}
		return nil
	}
}
