package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/sqlrl/sqlrl/askserver"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "answer questions over your databases: a JSON API and a web page that record every answer and verdict",
		usage:   "-config FILE [-addr HOST:PORT]",
		help: `Serves a web page and a JSON API that write SQL for a question with the
configured generator, run it read-only and record every answer and verdict in
the feedback store (docs/serve.md). 'sqlrl serve init' writes a config.`,
		flags: serveFlags,
	})
	register(&command{
		name:    "serve init",
		summary: "write a starter config for 'sqlrl serve' to stdout",
		usage:   "-db NAME=PATH [-db NAME=PATH ...] > serve.json",
		help: `Writes a config with the databases given, a placeholder generator at
http://127.0.0.1:8000/v1 ('sqlrl serve-model'), the store feedback.sqlite and
an API key read from $SQLRL_SERVE_KEY. Edit it, then:
  SQLRL_SERVE_KEY=$(openssl rand -hex 16) sqlrl serve -config serve.json`,
		flags: serveInitFlags,
	})
}

func serveFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	config := fs.String("config", "", "config file (JSON; required; 'sqlrl serve init' writes one)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	threads := threadsFlag(fs)
	quiet := fs.Bool("quiet", false, "do not log failed requests and generator errors")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v", args)
		}
		if *config == "" {
			return usagef("-config is required ('sqlrl serve init -db NAME=PATH > serve.json' writes one)")
		}
		cfg, err := askserver.LoadConfig(*config)
		if err != nil {
			return err
		}
		o := askserver.Options{Threads: *threads}
		if !*quiet {
			o.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
		}
		s, err := askserver.New(ctx, cfg, o)
		if err != nil {
			return err
		}
		defer s.Close()
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		fmt.Fprintf(os.Stderr, "serving %d databases on http://%s/ (store %s)\n", len(cfg.Databases), ln.Addr(), askserver.StoreName(cfg.Store))
		return s.Serve(ctx, ln)
	}
}

func serveInitFlags(fs *flag.FlagSet) func(context.Context, []string) error {
	dbs := askserver.DatabaseFlags{}
	fs.Var(dbs, "db", "a database, NAME=PATH to a SQLite file (repeatable)")
	return func(_ context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v", args)
		}
		if len(dbs) == 0 {
			return usagef("give at least one -db NAME=PATH")
		}
		b, err := askserver.StarterConfig(dbs)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(b)
		return err
	}
}
