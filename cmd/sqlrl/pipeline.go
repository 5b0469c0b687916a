package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/agents"
	"github.com/sqlrl/sqlrl/agents/agenttrain"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/llmclient"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/sqlexec"
)

const agentSpecHelp = `An agent is a native checkpoint (a directory written by 'sqlrl train', or
'sqlrl pipeline train') or an OpenAI-compatible server: URL#MODEL, e.g.
http://127.0.0.1:8000/v1#Qwen2.5-Coder-7B-Instruct (vLLM, llama.cpp, Ollama,
'sqlrl serve-model'). Remote agents read the chat templates and answer in
the recipe's formats ("Final SQL query:" + a sql block, "Conclude:
correct." / "Conclude: incorrect.", "Answer: A" / "Answer: B"); native agents
read compact prompts and answer bare. The templates are files: 'sqlrl
pipeline templates -out DIR' writes them, -prompts DIR reads edited ones.`

func init() {
	register(&command{
		name:    "pipeline run",
		summary: "run the MATS pipeline (planner, validators, fixer, selector) over a benchmark split and write its rollouts",
		usage:   "-planner SPEC -out ROLLOUTS.jsonl [flags] BENCH_DIR",
		help: `Runs every question of -split through the pipeline and writes one JSON
line per question with every stage's output, its execution result and, the
split having gold SQL, its correctness (BIRD EX, computed by sqlrl eval's
code); then prints the report ('sqlrl pipeline report').

The planner writes -k candidates: a greedy decode and k-1 samples at
-temperature and -top-p. Each runs on the database. With -validator, the
selection, condition and join validators read each distinct candidate that
ran and conclude correct or incorrect; with -fixer, each candidate that
failed (or, -fix-when incorrect, that a validator rejected) is rewritten and
the fix kept if it runs; with -selector, the most voted distinct results
(-tournament 4) are compared two at a time. Every selection strategy
(greedy, vote, validator_vote, tournament, review with -reviewer, ranker with
-ranker) is recorded; -final says which is the pipeline's answer.

-reviewer RUN scores every distinct candidate that ran by how likely the
question is given its SQL, under a model trained to write questions from
queries ('sqlrl train sft -task review'): the "review" strategy takes the
candidate with the highest log P(question | SQL) + w log P(SQL | question)
(-review-weight w, 0.5 by default, chosen on the holdout; Coder-Reviewer
reranking), and the ranker reads the reviewer's score as a feature.

-reuse FILE takes the planner's candidates from an earlier run's rollouts, so
that validators, fixers or selectors are compared on the same candidates.

-heldout-of RUN keeps the questions a 'pipeline train' run held out: with two
cross-fitted runs (-val-fraction 0.5, -fold 0 and 1) their rollouts on the
holdout give out-of-sample agent verdicts on every holdout question, which the
ranker must be fit on (agents judge the questions they were trained on too
well).

-split holdout runs the 25% of train that 'sqlrl data prepare' and SFT-75
leave out (-sft-fraction, -split-seed): rollouts on it train the ranker and
the native agents without touching dev.

An agent that fails, times out or answers garbage on a question is logged in
that question's "errors" and replaced by its stage's fallback (no
validation, no fix, the greedy or voted candidate); the run goes on.

` + agentSpecHelp,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			planner := fs.String("planner", "", "planner agent (required)")
			validator := fs.String("validator", "", "validator agent (empty: none)")
			fixer := fs.String("fixer", "", "fixer agent (empty: none)")
			selector := fs.String("selector", "", "selector agent (empty: no tournament)")
			reviewer := fs.String("reviewer", "", "reviewer checkpoint (sqlrl train sft -task review): scores each candidate by log P(question | SQL) (empty: none)")
			reviewWeight := fs.Float64("review-weight", agents.DefaultReviewWeight, "review strategy: weight w of the planner's log P(SQL | question) beside the reviewer's log P(question | SQL) (0: the reviewer alone)")
			rankerPath := fs.String("ranker", "", "learned ranker (sqlrl pipeline train-ranker) to add as a strategy")
			out := fs.String("out", "", "rollouts JSONL to write (required)")
			split := addSplitFlags(fs)
			k := fs.Int("k", 8, "candidates per question (1 greedy + k-1 samples)")
			temp := fs.Float64("temperature", 1, "sampling temperature")
			topP := fs.Float64("top-p", 0.9, "nucleus sampling mass")
			seed := fs.Uint64("seed", 1, "sampling seed")
			guide := fs.Bool("guide", true, "keep native SQL to the schema (sqlparse.Guide)")
			fixWhen := fs.String("fix-when", agents.FixIncorrect, "fix candidates that failed (failed) or also those a validator rejected (incorrect)")
			final := fs.String("final", "", "strategy whose choice is the answer (default: review, tournament, validator_vote or vote, by the agents given)")
			tour := fs.Int("tournament", 4, "distinct results the selector compares")
			prompts := fs.String("prompts", "", "folder of edited templates (native/*.tmpl, chat/*.tmpl)")
			limit := fs.Int("limit", 0, "only the first N questions (0: all)")
			reuse := fs.String("reuse", "", "take the planner's candidates from this earlier rollout file instead of decoding them")
			heldOutOf := fs.String("heldout-of", "", "only the questions this 'pipeline train' run held out (with -split holdout: out-of-sample agents for the ranker)")
			threads := fs.Int("threads", 2, "threads")
			apiKey := fs.String("api-key", os.Getenv("OPENAI_API_KEY"), "API key of remote agents ($OPENAI_API_KEY)")
			timeout := fs.Duration("remote-timeout", 2*time.Minute, "time limit of one remote call")
			remoteAPI := fs.String("remote-api", "chat", "remote agents' API: chat (a chat model, chat templates) or completions (a native checkpoint served by 'sqlrl serve-model', native templates)")
			nativePrompts := fs.String("native-prompts", "", "with -remote-api completions and no native agent: the served checkpoint, whose prompt format native prompts are written in")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one benchmark directory, got %d arguments", len(args))
				}
				if *planner == "" || *out == "" {
					return usagef("-planner and -out are required")
				}
				if *k < 1 || *temp < 0 || *topP <= 0 || *topP > 1 {
					return usagef("want -k >= 1, -temperature >= 0 and 0 < -top-p <= 1")
				}
				if *fixWhen != agents.FixFailed && *fixWhen != agents.FixIncorrect {
					return usagef("-fix-when %q: want failed or incorrect", *fixWhen)
				}
				nn.SetThreads(*threads)
				if err := split.check(args[0]); err != nil {
					return err
				}
				b, err := split.load(args[0])
				if err != nil {
					return err
				}
				exs, dbRoot := b.Examples, b.DBRoot
				if *heldOutOf != "" {
					sp, err := agenttrain.ReadSplit(*heldOutOf)
					if err != nil {
						return err
					}
					exs = slices.DeleteFunc(exs, func(ex dataset.Example) bool { return !sp.HeldOut(ex.QuestionID) })
				}
				if *limit > 0 && *limit < len(exs) {
					exs = exs[:*limit]
				}
				if *remoteAPI != "chat" && *remoteAPI != "completions" {
					return usagef("-remote-api %q: want chat or completions", *remoteAPI)
				}
				be := &agents.Backends{TemplateDir: *prompts, NativePrompts: *nativePrompts, Remote: func(spec string) (agents.Generator, error) {
					return remoteAgent(spec, *apiKey, *timeout, *remoteAPI == "chat")
				}}
				if *remoteAPI == "completions" {
					be.RemoteSet = agents.SetNative
				}
				p := &agents.Pipeline{K: *k, Temperature: *temp, TopP: *topP, Seed: *seed, Guide: *guide, FixWhen: *fixWhen, Final: *final, TournamentSize: *tour, ReviewWeight: *reviewWeight}
				sets := map[string]bool{}
				for _, x := range []struct {
					role, spec string
					dst        **agents.Agent
				}{{agents.RolePlanner, *planner, &p.Planner}, {agents.RoleValidator, *validator, &p.Validator}, {agents.RoleFixer, *fixer, &p.Fixer}, {agents.RoleSelector, *selector, &p.Selector}} {
					if x.spec == "" {
						continue
					}
					a, err := be.Agent(x.role, x.spec, 0)
					if err != nil {
						return err
					}
					*x.dst = a
					sets[a.Set] = true
				}
				if *reviewer != "" {
					if p.Reviewer, err = be.Reviewer(*reviewer); err != nil {
						return err
					}
					sets[agents.SetNative] = true
				}
				if *final != "" && !slices.Contains(agents.Strategies, *final) {
					return usagef("-final %q: want one of %s", *final, strings.Join(agents.Strategies, ", "))
				}
				if *rankerPath != "" {
					if p.Ranker, err = agents.LoadRanker(*rankerPath); err != nil {
						return err
					}
				}
				if np := be.Native(); np != nil {
					p.Words = np.Info.SQLWords
				}
				if *reuse != "" {
					old, err := agents.ReadRecords(*reuse)
					if err != nil {
						return err
					}
					p.Reuse = map[int]*agents.Record{}
					for _, r := range old {
						p.Reuse[r.QuestionID] = r
					}
				}
				eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: dbRoot, Limits: sqlexec.Limits{MaxBytes: sqlexec.DefaultMaxResultBytes}})
				defer eng.Close()
				p.Engine = eng
				p.Scorer = &eval.Scorer{Engine: eng, Mode: eval.ModeBIRD, Timeout: eval.BIRDPairTimeout, CachePredictions: true, KeepResults: true}
				fits, err := be.Prompts(ctx, eng, dbRoot, exs, sets, p.Planner.MaxTokens)
				if err != nil {
					return err
				}
				var bar *progress.Bar
				p.Progress = func(stage string) progress.Func {
					bar.Finish()
					bar = nil
					return func(done, total int) {
						if bar == nil {
							bar = progress.New(os.Stderr, stage, total)
						}
						bar.Set(done)
					}
				}
				start := time.Now()
				recs, tm, err := p.Run(ctx, exs, fits)
				bar.Finish()
				if err != nil {
					return err
				}
				el := time.Since(start)
				if err := agents.SaveRecords(*out, recs); err != nil {
					return err
				}
				fmt.Printf("wrote %d rollouts to %s in %s (%.2f questions/s on %d threads)\n", len(recs), *out, el.Round(time.Millisecond), float64(len(recs))/el.Seconds(), *threads)
				var parts []string
				for _, s := range agents.Stages {
					if v, ok := tm[s]; ok {
						parts = append(parts, fmt.Sprintf("%s %.1fs (%.0f%%)", s, v, 100*v/el.Seconds()))
					}
				}
				fmt.Printf("time per stage: %s\n\n", strings.Join(parts, ", "))
				return agents.BuildReport(recs).WriteMarkdown(os.Stdout)
			}
		},
	})
	register(&command{
		name:    "pipeline report",
		summary: "print a pipeline run's figures by difficulty from its rollout file alone",
		usage:   "[-ranker FILE] [-json OUT] [-preds DIR] ROLLOUTS.jsonl",
		help: `Prints, by difficulty: planner@1 (the greedy candidate), the fixer's gain,
pipeline@1 (the final strategy), the EX of every selection strategy, pass@K
over the planner's candidates (the oracle) and the oracle with the fixes;
then each strategy's share of the oracle and of the greedy -> oracle gap it
closes, and how often the validators' verdicts agree with execution against
the gold. Everything is computed from the rollout file: each candidate's
correctness was recorded by sqlrl eval's code when it ran.

-ranker recomputes the ranker strategy with that model (train it on other
rollouts: 'sqlrl pipeline train-ranker'); -review-weight recomputes the
review strategy with that weight. -preds DIR writes each strategy's
choices as a predictions file that 'sqlrl eval' scores to the same figures.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			rankerPath := fs.String("ranker", "", "learned ranker to apply")
			reviewWeight := fs.Float64("review-weight", agents.DefaultReviewWeight, "recompute the review strategy with this weight on the planner's log-probability")
			jsonOut := fs.String("json", "", "also write the report as JSON")
			preds := fs.String("preds", "", "write each strategy's predictions (JSONL) into this folder")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("want one rollout file, got %d arguments", len(args))
				}
				recs, err := agents.ReadRecords(args[0])
				if err != nil {
					return err
				}
				var rk *agents.Ranker
				if *rankerPath != "" {
					if rk, err = agents.LoadRanker(*rankerPath); err != nil {
						return err
					}
				}
				recompute := rk != nil
				fs.Visit(func(f *flag.Flag) { recompute = recompute || f.Name == "review-weight" })
				for _, r := range recs {
					if recompute || len(r.Selected) == 0 {
						agents.SelectAll(r, agents.Selection{Ranker: rk, ReviewWeight: *reviewWeight})
					}
				}
				rep := agents.BuildReport(recs)
				if *jsonOut != "" {
					b, _ := json.MarshalIndent(rep, "", "  ")
					if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
						return fmt.Errorf("write %s: %w", *jsonOut, err)
					}
				}
				if *preds != "" {
					if err := writeStrategyPreds(*preds, recs); err != nil {
						return err
					}
				}
				return rep.WriteMarkdown(os.Stdout)
			}
		},
	})
	register(&command{
		name:    "pipeline train-ranker",
		summary: "fit the learned selection ranker on scored rollouts (of questions other than those it will rank)",
		usage:   "-out RANKER.json ROLLOUTS.jsonl...",
		help: `Fits agents.Ranker, a conditional logit over cheap features of each
candidate (agreement, log-probability, validator verdicts, result shape,
tournament wins), so that it puts its mass on the correct candidates of each
question. Train it on rollouts of questions the ranker will not be judged on
(the train holdout: 'sqlrl pipeline run -split holdout'), then pass it to
'pipeline report -ranker' or 'pipeline run -ranker' on dev.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			out := fs.String("out", "", "ranker JSON to write (required)")
			epochs := fs.Int("epochs", 500, "gradient steps")
			l2 := fs.Float64("l2", 0.1, "L2 penalty towards the vote (agents.VotePrior); 0.1 was best in 2-fold cross-fitting on the holdout")
			folds := fs.Int("folds", 0, "also cross-fit: fit on all folds but one (by question id) and print the ranker's and the vote's EX on each held-out fold")
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 || *out == "" {
					return usagef("want -out and at least one rollout file")
				}
				var recs []*agents.Record
				for _, a := range args {
					r, err := agents.ReadRecords(a)
					if err != nil {
						return err
					}
					recs = append(recs, r...)
				}
				rk, err := agents.TrainRanker(recs, *epochs, *l2)
				if err != nil {
					return err
				}
				if err := agents.SaveRanker(*out, rk); err != nil {
					return err
				}
				fmt.Printf("ranker on %d questions (%d with a correct and a wrong candidate), %d candidates: loss %.4f\n", rk.Questions, rk.Informative, rk.Candidates, rk.Loss)
				if *folds > 0 {
					fs, err := agents.CrossFit(recs, *folds, *epochs, *l2)
					if err != nil {
						return err
					}
					for f, x := range fs {
						fmt.Printf("fold %d of %d (%d questions held out): ranker %.1f, vote %.1f\n", f+1, *folds, x.Questions, x.Ranker, x.Vote)
					}
				}
				for i, f := range rk.Features {
					fmt.Printf("  %-20s %+.3f\n", f, rk.Weights[i])
				}
				ws := []float64{0, 0.25, 0.5, 1, 2}
				if ex, n := agents.ReviewSweep(recs, ws); n > 0 {
					fmt.Printf("review strategy on these %d questions, by -review-weight:", n)
					for k, w := range ws {
						fmt.Printf(" %g: %.1f", w, ex[k])
					}
					fmt.Println()
				}
				return nil
			}
		},
	})
	register(&command{
		name:    "pipeline train",
		summary: "train the native validators, fixer and selector from scored planner rollouts (no teacher model)",
		usage:   "-planner DIR -out DIR [flags] BENCH_DIR ROLLOUTS.jsonl...",
		help: `Derives supervised examples from planner rollouts on train questions the
planner did not see ('sqlrl pipeline run -planner DIR -split holdout'),
labelled by execution against the gold (agents.BuildTrainingSet): each
validator's feedback is written by comparing the candidate's structure and
result with the gold's (agents.DeriveFeedback), the fixer learns to turn a
rejected or failing candidate into the gold, the selector to name the correct
one of two different results. One native checkpoint plays all three roles;
it is fine-tuned from the planner with the native SFT trainer, then measured
on held-out questions (-val-fraction) against the commonest-label baseline.

With -pairs, validator feedbacks are then sampled from that checkpoint and
labelled two ways (the MATS recipe's): INDEP, each feedback on its own
(chosen when its conclusion is the derived one), and COLLAB, by what it leads
to (a rejecting feedback is chosen when the fixer, given it, writes a correct
query; an accepting one when the candidate is correct). A validator is
trained by offline ORPO on each kind of pair (OUT/validator-indep,
OUT/validator-collab), and every model is measured on held-out pairs of both
kinds: the share whose chosen feedback it prefers.

Writes OUT/sft (the checkpoint: pass it as -validator, -fixer and -selector
to 'sqlrl pipeline run'), OUT/data/{train,val}.jsonl and OUT/report.json.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			planner := fs.String("planner", "", "planner checkpoint the agents start from (required)")
			out := fs.String("out", "", "run directory (required)")
			epochs := fs.Int("epochs", 2, "epochs over the examples")
			maxSteps := fs.Int("max-steps", 0, "stop after this many steps (0: epochs)")
			lr := fs.Float64("lr", 1e-3, "peak learning rate")
			batch := fs.Int("batch", 16, "sequences per step")
			val := fs.Float64("val-fraction", 0.1, "share of questions held out to measure the agents")
			fold := fs.Int("fold", 0, "1 trains on the questions fold 0 holds out and holds out the rest (cross-fitting with -val-fraction 0.5)")
			seed := fs.Uint64("seed", 1, "seed")
			threads := fs.Int("threads", 2, "threads")
			pairs := fs.Bool("pairs", false, "also train validators by ORPO on COLLAB and on INDEP preference pairs and compare them")
			pairSamples := fs.Int("pair-samples", 4, "with -pairs: feedbacks sampled per validator prompt")
			pairPrompts := fs.Int("pair-prompts", 1500, "with -pairs: training validator prompts sampled")
			pairSteps := fs.Int("pair-steps", 200, "with -pairs: ORPO steps per pair kind")
			pairLR := fs.Float64("pair-lr", 5e-5, "with -pairs: ORPO learning rate")
			return func(ctx context.Context, args []string) error {
				if len(args) < 2 {
					return usagef("want a benchmark directory and at least one rollout file")
				}
				if *planner == "" || *out == "" {
					return usagef("-planner and -out are required")
				}
				if *val < 0 || *val >= 1 {
					return usagef("-val-fraction %v: want [0, 1)", *val)
				}
				if *fold != 0 && *fold != 1 {
					return usagef("-fold %d: want 0 or 1", *fold)
				}
				rep, err := agenttrain.Train(ctx, agenttrain.Options{Dir: args[0], Rollouts: args[1:], Planner: *planner, Out: *out,
					Epochs: *epochs, MaxSteps: *maxSteps, LR: *lr, BatchSize: *batch, ValFraction: *val, Fold: *fold, Seed: *seed, Threads: *threads, Progress: os.Stderr,
					WithPairs: *pairs, Pairs: agenttrain.PairsOptions{Samples: *pairSamples, Prompts: *pairPrompts, Steps: *pairSteps, LR: *pairLR}})
				if err != nil {
					return err
				}
				fmt.Printf("agents checkpoint: %s\n\nheld-out agreement with the derived labels (greedy):\n\n| role | train | held out | accuracy | majority baseline | unreadable |\n|---|---|---|---|---|---|\n", rep.Checkpoint)
				var keys []string
				for k := range rep.Train {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if _, ok := rep.ValAccuracy[k]; !ok {
						fmt.Printf("| %s | %d | %d | - | - | - |\n", k, rep.Train[k], rep.Val[k])
						continue
					}
					fmt.Printf("| %s | %d | %d | %.1f%% | %.1f%% | %.1f%% |\n", k, rep.Train[k], rep.Val[k], rep.ValAccuracy[k], rep.Majority[k], rep.ValBad[k])
				}
				if pr := rep.Preference; pr != nil {
					fmt.Printf("\npreference pairs (train/held out): indep %d/%d, collab %d/%d; the two labellings disagree on %.1f%% of held-out samples\n",
						pr.Pairs["indep/train"], pr.Pairs["indep/val"], pr.Pairs["collab/train"], pr.Pairs["collab/val"], pr.Disagree)
					fmt.Printf("validators: indep %s, collab %s\n\n| model | held-out indep pairs | held-out collab pairs |\n|---|---|---|\n", pr.Checkpoints["indep"], pr.Checkpoints["collab"])
					for _, m := range []string{"sft", "indep", "collab"} {
						fmt.Printf("| %s | %.1f%% | %.1f%% |\n", m, pr.Accuracy[m+" model on indep pairs"], pr.Accuracy[m+" model on collab pairs"])
					}
				}
				return nil
			}
		},
	})
	register(&command{
		name:    "pipeline templates",
		summary: "write the agents' built-in prompt templates into a folder to edit",
		usage:   "-out DIR",
		help:    "Writes DIR/native/<role>.tmpl and DIR/chat/<role>.tmpl (existing files are kept); 'pipeline run -prompts DIR' reads them. Templates are Go text/template; the fields are those of agents.PromptData.",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			out := fs.String("out", "", "folder (required)")
			return func(ctx context.Context, args []string) error {
				if *out == "" {
					return usagef("-out is required")
				}
				wrote, err := agents.WriteTemplates(*out)
				if err != nil {
					return err
				}
				fmt.Printf("wrote %d templates under %s\n", len(wrote), *out)
				return nil
			}
		},
	})
}

// remoteAgent builds a remote backend from URL#MODEL.
func remoteAgent(spec, key string, timeout time.Duration, chat bool) (agents.Generator, error) {
	base, model, _ := strings.Cut(spec, "#")
	if _, err := url.ParseRequestURI(base); err != nil {
		return nil, fmt.Errorf("bad URL: %w", err)
	}
	return &agents.Remote{Chat: chat, Client: &llmclient.Client{BaseURL: strings.TrimSuffix(base, "/"), Model: model, APIKey: key, Timeout: timeout, Retries: 2}}, nil
}

// writeStrategyPreds writes, per strategy, sqlrl's JSONL predictions of
// the chosen candidates, for `sqlrl eval` to check the report.
func writeStrategyPreds(dir string, recs []*agents.Record) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	strategies := map[string]bool{}
	for _, r := range recs {
		for s := range r.Selected {
			strategies[s] = true
		}
	}
	for s := range strategies {
		preds := make([]dataset.Prediction, len(recs))
		errs := make([]string, len(recs))
		for i, r := range recs {
			preds[i] = dataset.Prediction{QuestionID: r.QuestionID, DBID: r.DBID}
			if j, ok := r.Selected[s]; ok && j >= 0 {
				preds[i].SQL = r.Candidates[j].SQL
			}
		}
		if err := writePredictions(dir+"/"+s+".jsonl", preds, errs); err != nil {
			return err
		}
	}
	return nil
}
