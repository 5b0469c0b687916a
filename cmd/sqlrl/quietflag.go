package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
)

// quietFlag declares -q for every command that reports progress on stderr.
func quietFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("q", false, "no progress on stderr")
}

// progressTo is where progress goes: stderr unless quiet.
func progressTo(quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return os.Stderr
}

// logTo is a server's log of failed requests: stderr unless quiet.
func logTo(quiet bool) *slog.Logger {
	if quiet {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, nil))
}

// serveOn listens on addr, says on stderr what is served there (banner
// words it from the address listened on) and serves until ctx ends.
func serveOn(ctx context.Context, addr string, serve func(context.Context, net.Listener) error, banner func(net.Addr) string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintln(os.Stderr, banner(ln.Addr()))
	return serve(ctx, ln)
}
