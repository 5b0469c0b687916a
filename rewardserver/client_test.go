package rewardserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/reward"
)

// TestClient: the client gives the scores of the stack behind the server,
// a failing gold is reward.ErrGold, a 503 is retried, and Health tells a
// reward server from one that is down or is something else.
func TestClient(t *testing.T) {
	hs, _, st := newTestServer(t, reward.StackOptions{}, nil)
	ex := loadSample(t).Examples[0]
	s := reward.Sample{DBID: ex.DBID, Question: ex.Question, GoldSQL: ex.SQL}
	comps := []string{ex.SQL, "SELECT 1", "SELECT nope FROM nowhere", "no sql at all"}
	ctx := context.Background()

	c := NewClient(hs.URL + "/")
	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := st.ScoreGroup(ctx, s, comps)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ScoreGroup(ctx, s, comps)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].Value != want[i].Value || got[i].Class != want[i].Class || got[i].Error != want[i].Error {
			t.Errorf("completion %d: client %+v, stack %+v", i, got[i], want[i])
		}
	}
	resp, err := c.Batch(ctx, BatchRequest{Label: Label{DBID: ex.DBID, GoldSQL: ex.SQL}, Completions: comps[:1]})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].Class != "correct" {
		t.Errorf("batch: %+v, %v", resp, err)
	}

	var calls atomic.Int32
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error": "busy"}`, http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	down := httptest.NewServer(nil)
	downURL := down.URL
	down.Close()
	bad := s
	bad.GoldSQL = "SELECT nope FROM nowhere"
	tests := []struct {
		name   string
		client *Client
		sample reward.Sample
		is     error  // the error wraps it
		want   string // the error says it
		calls  int32  // requests busy got
	}{
		{name: "failing gold", client: c, sample: bad, is: reward.ErrGold},
		{name: "503 retried", client: &Client{URL: busy.URL, Retries: 1}, sample: s, is: reward.ErrTransient, want: "busy", calls: 2},
		{name: "down", client: &Client{URL: downURL, Retries: -1}, sample: s, want: "reward server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls.Store(0)
			_, err := tt.client.ScoreGroup(ctx, tt.sample, comps)
			if err == nil || tt.is != nil && !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %v saying %q", err, tt.is, tt.want)
			}
			if calls.Load() != tt.calls {
				t.Errorf("%d requests to the busy server, want %d", calls.Load(), tt.calls)
			}
		})
	}

	for _, url := range []string{downURL, busy.URL} {
		if err := (&Client{URL: url, HTTP: &http.Client{Timeout: 5 * time.Second}}).Health(ctx); err == nil {
			t.Errorf("%s: healthy", url)
		}
	}
}
