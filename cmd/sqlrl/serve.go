package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "answer questions over your databases: a JSON API and a web page that record every answer and verdict",
		usage:   "-config FILE [-addr HOST:PORT]",
		help: `Serves a web page on / and a JSON API (POST /api/ask, ...) that write SQL for
a question with the configured generator, run it read-only and record every
answer and verdict in the feedback store (docs/serve.md). 'sqlrl serve init'
writes a config.`,
		args:  argsNone,
		flags: serveFlags,
	})
	register(&command{
		name:    "serve init",
		summary: "write a starter config for 'sqlrl serve' to stdout",
		usage:   "[-native DIR] -db NAME=PATH [-db NAME=PATH ...] > serve.json",
		help: `Writes a config with the SQLite databases given, the store feedback.sqlite
and an API key read from $SQLRL_SERVE_KEY. The generator is the native
policy -native DIR (a checkpoint or run directory of 'sqlrl train'; checked
now), or without it a placeholder OpenAI-compatible server at
http://127.0.0.1:8000/v1 to edit (docs/serve.md, Config). Then:
  SQLRL_SERVE_KEY=$(openssl rand -hex 16) sqlrl serve -config serve.json`,
		args:  argsNone,
		flags: serveInitFlags,
	})
	register(&command{
		name:    "serve bench",
		summary: "load-test 'sqlrl serve': concurrent clients asking and giving feedback, p50/p99, nothing acknowledged lost, optionally a SIGKILL",
		usage:   "-config FILE [-clients 50] [-duration 60s] [-feedback-share 0.5] [-kill-after 20s] [-replicas 2] [-questions FILE] [-model fake|config] [-store LOC] [-json FILE]",
		help: `Starts 'sqlrl serve -config FILE' as child processes, runs clients that ask
and give feedback, then checks that every write the servers acknowledged is in
the store (askserver.Bench); exits 1 on any HTTP error or lost write.
-kill-after SIGKILLs the first server mid-run and restarts it; -model fake
answers from a fake model in this process, so the run measures the server.`,
		args:  argsNone,
		flags: serveBenchFlags,
	})
	register(&command{
		name:    "serve-model",
		summary: "serve the native policy behind an OpenAI-compatible API (/v1/completions, /v1/chat/completions)",
		usage:   "-model DIR [-addr HOST:PORT] [-name ID] [-request-timeout D]",
		help: `Serves POST /v1/completions and /v1/chat/completions and GET /v1/models, so
OpenAI clients work with only their base URL changed (e.g.
OPENAI_BASE_URL=http://127.0.0.1:8000/v1), vLLM's POST /tokenize (token counts
and the context, max_model_len, which 'sqlrl serve' fits its prompts with),
and GET /healthz and /metrics. -model takes a checkpoint, a run directory or an
experiment's run directory. Bodies are capped, each request has a deadline,
and SIGINT/SIGTERM drain requests in flight. Chat replies are the SQL
(docs/policy.md, Serving).`,
		args:  argsNone,
		flags: serveModelFlags,
	})
}

func serveFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	config := fs.String("config", "", "config file (JSON; required; 'sqlrl serve init' writes one)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	threads := threadsFlag(fs)
	quiet := fs.Bool("quiet", false, "do not log failed requests and generator errors")
	return func(ctx context.Context, args []string) error {
		if *config == "" {
			return usagef("-config is required ('sqlrl serve init -db NAME=PATH > serve.json' writes one)")
		}
		cfg, err := askserver.LoadConfig(*config)
		if err != nil {
			return err
		}
		s, err := askserver.New(ctx, cfg, askserver.Options{Threads: *threads, Log: logTo(*quiet)})
		if err != nil {
			return err
		}
		defer s.Close()
		return serveOn(ctx, *addr, s.Serve, func(a net.Addr) string {
			return fmt.Sprintf("serving %d databases on http://%s/ (store %s)", len(cfg.Databases), a, askserver.StoreName(cfg.Store))
		})
	}
}

func serveInitFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	dbs := askserver.DatabaseFlags{}
	fs.Var(dbs, "db", "a database, NAME=PATH to a SQLite file (repeatable)")
	native := fs.String("native", "", "the generator: the native policy in this checkpoint or run directory (default: a placeholder OpenAI-compatible server to edit)")
	return func(_ context.Context, args []string) error {
		if len(dbs) == 0 {
			return usagef("give at least one -db NAME=PATH")
		}
		b, err := askserver.StarterConfig(askserver.Starter{DBs: dbs, Native: *native})
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(b)
		return err
	}
}

// serveBenchFlags declares `serve bench`'s flags.
func serveBenchFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	o := askserver.DefaultBenchOptions()
	o.Flags(fs)
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	return func(ctx context.Context, args []string) error {
		if err := o.Check(); err != nil {
			return usagef("%v", err)
		}
		o.Log, o.Serve = os.Stderr, askserver.ServeSelf
		rep, err := askserver.Bench(ctx, o)
		if errors.Is(err, askserver.ErrReplicasNeedPostgres) {
			return usagef("-replicas %d: %v", o.Replicas, err)
		}
		if rep != nil {
			rep.WriteText(os.Stdout)
			if werr := writeJSON(*jsonOut, rep, true); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			return err
		}
		return rep.Failure()
	}
}

// serveModelFlags declares `serve-model`'s flags.
func serveModelFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	model := fs.String("model", "", "checkpoint or run directory (required)")
	addr := fs.String("addr", "127.0.0.1:8000", "listen address")
	ms := modelserver.DefaultServer()
	ms.Flags(fs)
	threads := threadsFlag(fs)
	quiet := fs.Bool("quiet", false, "do not log failed requests")
	return func(ctx context.Context, args []string) error {
		if *model == "" {
			return usagef("-model is required")
		}
		nn.SetThreads(*threads)
		pol, err := policy.LoadSQL(*model)
		if err != nil {
			return err
		}
		ms.Policy, ms.Log = pol, logTo(*quiet)
		return serveOn(ctx, *addr, ms.Serve, func(a net.Addr) string {
			return fmt.Sprintf("serving %s (%d params, step %d) on http://%s/v1 (GET /healthz, /metrics)", *model, pol.Info.Params, pol.Info.Step, a)
		})
	}
}
