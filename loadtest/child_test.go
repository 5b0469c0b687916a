package loadtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestMain runs this test binary as a tiny server when asked to: it says
// where it serves as sqlrl serve does and drains on SIGTERM.
func TestMain(m *testing.M) {
	if addr := os.Getenv("LOADTEST_CHILD_ADDR"); addr != "" {
		// SIGTERM is caught before the server says it serves, so that a
		// Stop right after Start drains instead of killing.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "listen:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "serving test on http://%s/\n", ln.Addr())
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
		go srv.Serve(ln)
		<-ctx.Done()
		srv.Shutdown(context.Background())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestChild starts a server, kills it, restarts it on its port and stops
// it.
func TestChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := func(addr string) []string {
		return []string{"/usr/bin/env", "LOADTEST_CHILD_ADDR=" + addr, exe, "-test.run=^$"}
	}
	ctx := context.Background()
	c, err := Start(ctx, argv, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	n, err := c.Restart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n.Addr != c.Addr {
		t.Errorf("restarted on %s, want %s", n.Addr, c.Addr)
	}
	if err := n.Stop(10 * time.Second); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := Start(ctx, func(string) []string { return []string{"/bin/false"} }, "127.0.0.1:0"); err == nil {
		t.Error("a process that exits started")
	}
}
