package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

func init() {
	register(&command{
		name:    "serve-model",
		summary: "serve the native policy behind an OpenAI-compatible API (/v1/completions, /v1/chat/completions)",
		usage:   "-model DIR [-addr HOST:PORT] [-name ID] [-request-timeout D]",
		help: `Serves POST /v1/completions and /v1/chat/completions and GET /v1/models, so
OpenAI clients work with only their base URL changed (e.g.
OPENAI_BASE_URL=http://127.0.0.1:8000/v1), and GET /healthz and /metrics.
Bodies are capped, each request has a deadline, and SIGINT/SIGTERM drain
requests in flight. Chat replies are the SQL (docs/policy.md, Serving).`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			model := fs.String("model", "", "checkpoint or run directory (required)")
			addr := fs.String("addr", "127.0.0.1:8000", "listen address")
			ms := modelserver.DefaultServer()
			ms.Flags(fs)
			threads := threadsFlag(fs)
			quiet := fs.Bool("quiet", false, "do not log failed requests")
			return func(ctx context.Context, args []string) error {
				switch {
				case len(args) > 0:
					return usagef("unexpected arguments %v", args)
				case *model == "":
					return usagef("-model is required")
				}
				nn.SetThreads(*threads)
				pol, err := policy.LoadSQL(*model)
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", *addr)
				if err != nil {
					return fmt.Errorf("listen: %w", err)
				}
				if ms.Policy = pol; !*quiet {
					ms.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
				}
				fmt.Fprintf(os.Stderr, "serving %s (%d params, step %d) on http://%s/v1 (GET /healthz, /metrics)\n", *model, pol.Info.Params, pol.Info.Step, ln.Addr())
				return ms.Serve(ctx, ln)
			}
		},
	})
}
