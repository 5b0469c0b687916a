package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

func init() {
	register(&command{
		name:    "serve-model",
		summary: "serve the native policy behind an OpenAI-compatible API (/v1/completions, /v1/chat/completions)",
		usage:   "-model DIR [-addr HOST:PORT] [-name ID] [-request-timeout D]",
		help: `Serves POST /v1/completions and /v1/chat/completions (n, temperature, top_p,
max_tokens, stop, seed, stream) and GET /v1/models, so OpenAI clients work with
only their base URL changed (e.g. OPENAI_BASE_URL=http://127.0.0.1:8000/v1).
GET /healthz and /metrics (Prometheus text) watch it; bodies are capped,
each request has a deadline, and SIGINT/SIGTERM drain requests in flight.

The chat endpoint joins the system and user messages with blank lines and
appends the prompt cue the model was trained with ("SQL: " for compact
prompts) unless the text already ends with it; the reply is the SQL.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			model := fs.String("model", "", "checkpoint or run directory (required)")
			addr := fs.String("addr", "127.0.0.1:8000", "listen address")
			name := fs.String("name", "sqlrl-policy", "model id reported by /v1/models")
			maxTok := fs.Int("max-tokens", 256, "default max_tokens")
			threads := threadsFlag(fs)
			slots := fs.Int("slots", 32, "sequences decoded at once, across concurrent requests")
			maxBody := fs.Int("max-body-mib", modelserver.DefaultMaxBodyBytes>>20, "largest request body in MiB (larger: 413)")
			requestTimeout := fs.Duration("request-timeout", modelserver.DefaultRequestTimeout, "deadline for one request (past it: 504, and its slots are freed)")
			maxRequests := fs.Int("max-requests", httpserve.DefaultMaxConcurrent, "requests answered at once (more: 503, retry)")
			quiet := fs.Bool("quiet", false, "do not log failed requests")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %v", args)
				}
				if *model == "" {
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
				ms := &modelserver.Server{Policy: pol, Name: *name, MaxTokens: *maxTok, Slots: *slots,
					MaxBodyBytes: int64(*maxBody) << 20, RequestTimeout: *requestTimeout, MaxRequests: *maxRequests}
				if !*quiet {
					ms.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
				}
				fmt.Fprintf(os.Stderr, "serving %s (%d params, step %d) on http://%s/v1 (GET /healthz, /metrics)\n", *model, pol.Info.Params, pol.Info.Step, ln.Addr())
				return ms.Serve(ctx, ln)
			}
		},
	})
}
