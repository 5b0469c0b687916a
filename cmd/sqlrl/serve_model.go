package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sqlrl/sqlrl/modelserver"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
)

func init() {
	register(&command{
		name:    "serve-model",
		summary: "serve the native policy behind an OpenAI-compatible API (/v1/completions, /v1/chat/completions)",
		usage:   "-model DIR [-addr HOST:PORT] [-name ID]",
		help: `Serves POST /v1/completions and /v1/chat/completions (n, temperature, top_p,
max_tokens, stop, seed, stream) and GET /v1/models, so OpenAI clients work with
only their base URL changed (e.g. OPENAI_BASE_URL=http://127.0.0.1:8000/v1).

The chat endpoint joins the system and user messages with blank lines and
appends the prompt cue the model was trained with ("SQL: " for compact
prompts) unless the text already ends with it; the reply is the SQL.`,
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			model := fs.String("model", "", "checkpoint or run directory (required)")
			addr := fs.String("addr", "127.0.0.1:8000", "listen address")
			name := fs.String("name", "sqlrl-policy", "model id reported by /v1/models")
			maxTok := fs.Int("max-tokens", 256, "default max_tokens")
			threads := fs.Int("threads", 2, "threads")
			slots := fs.Int("slots", 32, "sequences decoded at once, across concurrent requests")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %v", args)
				}
				if *model == "" {
					return usagef("-model is required")
				}
				nn.SetThreads(*threads)
				pol, err := policy.Load(*model)
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", *addr)
				if err != nil {
					return err
				}
				ps := &modelserver.Server{Policy: pol, Name: *name, MaxTokens: *maxTok, Slots: *slots}
				defer ps.Close()
				srv := &http.Server{Handler: ps.Handler(), ReadHeaderTimeout: 10 * time.Second}
				fmt.Fprintf(os.Stderr, "serving %s (%d params, step %d) on http://%s/v1\n", *model, pol.Info.Params, pol.Info.Step, ln.Addr())
				go func() {
					<-ctx.Done()
					sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					srv.Shutdown(sctx)
				}()
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				return nil
			}
		},
	})
}
