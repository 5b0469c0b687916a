package loadtest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRunMergesClients: every client's routes are merged, with the
// percentiles of all their latencies and the first error seen.
func TestRunMergesClients(t *testing.T) {
	rep := Run(context.Background(), Options{Clients: 3, Duration: time.Millisecond}, func(ctx context.Context, i int, rs Routes) {
		<-ctx.Done()
		r := rs.Get("ask")
		r.Answered(time.Duration(i+1) * time.Millisecond)
		if i == 1 {
			r.Failed(500, "HTTP 500")
			r.Unanswered(errors.New("refused"))
		}
	})
	r := rep.Routes["ask"]
	if rep.Clients != 3 || r == nil || r.Requests != 5 || r.OK != 3 || r.HTTPErrors() != 1 || r.ConnErrors != 1 || r.FirstError != "HTTP 500" {
		t.Fatalf("report %+v, route %+v", rep, r)
	}
	if r.P50MS != 2 || r.MaxMS != 3 || r.PerSecond <= 0 {
		t.Errorf("latencies %+v", r)
	}
	var sb strings.Builder
	r.WriteText(&sb, "ask")
	if !strings.Contains(sb.String(), "HTTP errors 500: 1") {
		t.Errorf("text %q", sb.String())
	}
}

func TestPost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "k" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	for _, c := range []struct {
		key  string
		code int
	}{{"k", 200}, {"", 401}} {
		code, body, err := Post(context.Background(), srv.Client(), srv.URL, c.key, []byte(`{}`))
		if err != nil || code != c.code {
			t.Errorf("key %q: %d %s %v", c.key, code, body, err)
		}
	}
	if _, _, err := Post(context.Background(), srv.Client(), "http://127.0.0.1:1/", "", nil); err == nil {
		t.Error("no error from a closed port")
	}
}
