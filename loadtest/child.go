package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Child is a server process started by Start. Its address is known once
// it printed "serving ... on http://ADDR/" on stderr and answered 200 on
// /healthz.
type Child struct {
	Addr string
	argv func(addr string) []string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done
	mu   sync.Mutex
	tail []string // its last lines of stderr
}

// Start runs argv(addr) (addr may be "127.0.0.1:0" for a free port) and
// waits until the server says where it serves and is healthy.
func Start(ctx context.Context, argv func(addr string) []string, addr string) (*Child, error) {
	args := argv(addr)
	c := &Child{argv: argv, done: make(chan struct{})}
	c.cmd = exec.Command(args[0], args[1:]...)
	c.cmd.Stdout = io.Discard
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	addrCh := make(chan string, 1)
	go c.read(stderr, addrCh)
	select {
	case c.Addr = <-addrCh:
	case <-c.done:
		return nil, fmt.Errorf("%s exited (%v):\n%s", args[0], c.err, c.lastLines())
	case <-ctx.Done():
		c.Kill()
		return nil, ctx.Err()
	case <-time.After(2 * time.Minute):
		c.Kill()
		return nil, fmt.Errorf("%s did not say where it serves within 2 minutes:\n%s", args[0], c.lastLines())
	}
	if err := c.waitHealthy(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// read keeps the last lines of the process's stderr, sends the address of
// its "serving ... on http://ADDR/" line, and closes done at its exit.
func (c *Child) read(stderr io.Reader, addrCh chan<- string) {
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if _, rest, ok := strings.Cut(line, " on http://"); ok && strings.HasPrefix(line, "serving ") {
			if a, _, ok := strings.Cut(rest, "/"); ok {
				select {
				case addrCh <- a:
				default:
				}
			}
		}
		c.mu.Lock()
		c.tail = append(c.tail, line)
		if len(c.tail) > 20 {
			c.tail = c.tail[1:]
		}
		c.mu.Unlock()
	}
	c.err = c.cmd.Wait()
	close(c.done)
}

func (c *Child) waitHealthy(ctx context.Context) error {
	for {
		resp, err := http.Get("http://" + c.Addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-c.done:
			return fmt.Errorf("server exited (%v):\n%s", c.err, c.lastLines())
		case <-ctx.Done():
			c.Kill()
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (c *Child) lastLines() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}

// Restart starts the same command on the address c used (c having been
// killed), retrying while the port is not yet free again.
func (c *Child) Restart(ctx context.Context) (*Child, error) {
	var err error
	for range 50 {
		var n *Child
		if n, err = Start(ctx, c.argv, c.Addr); err == nil {
			return n, nil
		}
		if ctx.Err() != nil || !strings.Contains(err.Error(), "listen") {
			return nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, err
}

// Kill SIGKILLs the process and waits for it.
func (c *Child) Kill() error {
	select {
	case <-c.done:
		return nil
	default:
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return fmt.Errorf("kill %s: %w", c.Addr, err)
	}
	<-c.done
	return nil
}

// Stop asks the process to drain (SIGTERM) and kills it past grace.
func (c *Child) Stop(grace time.Duration) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		if c.err != nil {
			return fmt.Errorf("exit %v:\n%s", c.err, c.lastLines())
		}
		return nil
	case <-time.After(grace):
		c.Kill()
		return fmt.Errorf("did not stop within %v; killed", grace)
	}
}
