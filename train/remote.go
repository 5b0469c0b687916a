package train

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sqlrl/sqlrl/reward"
)

// RemoteReward is a RewardSource that asks a running `sqlrl reward serve`
// (its batch API, POST /v1/reward: one question's label and its K
// completions), so that a trainer on one machine can use a reward server
// on another, or one shared by several trainers: the scores are the ones
// the server's reward.Stack computes, the same code as in process.
type RemoteReward struct {
	// URL is the server's root, such as http://127.0.0.1:5000.
	URL string
	// Client defaults to one with a 180 s timeout (OpenRLHF's).
	Client *http.Client
	// Retries is how many times a 503 (a gold the server could not run
	// just now) or a failed connection is retried, 1 s apart (default 3).
	Retries int
}

// NewRemoteReward returns a RemoteReward for the server at url.
func NewRemoteReward(url string) *RemoteReward {
	return &RemoteReward{URL: strings.TrimRight(url, "/")}
}

func (r *RemoteReward) client() *http.Client {
	if r.Client != nil {
		return r.Client
	}
	return &http.Client{Timeout: 180 * time.Second}
}

// Health asks the server's /healthz: a server that is down or is not a
// reward server is an error here, before any training work.
func (r *RemoteReward) Health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("reward server %s: %w", r.URL, err)
	}
	resp, err := r.client().Do(req)
	if err != nil {
		return fmt.Errorf("reward server %s is not answering (start it with 'sqlrl reward serve'): %w", r.URL, err)
	}
	defer resp.Body.Close()
	var h struct {
		Status string `json:"status"`
		Reward string `json:"reward"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &h) != nil || h.Status != "ok" {
		return fmt.Errorf("reward server %s: /healthz answered %s %q: not a healthy sqlrl reward server", r.URL, resp.Status, truncate(string(b), 200))
	}
	return nil
}

// remoteRequest is the batch API's request: a label and completions.
type remoteRequest struct {
	DBID        string   `json:"db_id"`
	GoldSQL     string   `json:"gold_sql"`
	Question    string   `json:"question,omitempty"`
	Evidence    string   `json:"evidence,omitempty"`
	Completions []string `json:"completions"`
}

type remoteResponse struct {
	Results []struct {
		Reward     float64            `json:"reward"`
		Class      string             `json:"class"`
		Error      string             `json:"error"`
		Components map[string]float64 `json:"components"`
	} `json:"results"`
	Error string `json:"error"`
}

// ScoreGroup posts one question's completions. A 422 (the gold fails, an
// unknown database) is reward.ErrGold, which RL answers by skipping the
// prompt, as with an in-process stack; other failures stop the run.
func (r *RemoteReward) ScoreGroup(ctx context.Context, s reward.Sample, completions []string) ([]reward.Score, error) {
	body, err := json.Marshal(remoteRequest{DBID: s.DBID, GoldSQL: s.GoldSQL, Question: s.Question, Evidence: s.Evidence, Completions: completions})
	if err != nil {
		return nil, err
	}
	retries := r.Retries
	if retries == 0 {
		retries = 3
	}
	for attempt := 0; ; attempt++ {
		out, retry, err := r.post(ctx, body, len(completions))
		if err == nil || !retry || attempt >= retries {
			return out, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (r *RemoteReward) post(ctx context.Context, body []byte, n int) ([]reward.Score, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL+"/v1/reward", bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.client().Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, fmt.Errorf("reward server %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, true, fmt.Errorf("reward server %s: %w", r.URL, err)
	}
	var out remoteResponse
	jerr := json.Unmarshal(b, &out)
	switch {
	case resp.StatusCode == http.StatusUnprocessableEntity:
		return nil, false, fmt.Errorf("reward server %s: %s: %w", r.URL, out.Error, reward.ErrGold)
	case resp.StatusCode == http.StatusServiceUnavailable:
		return nil, true, fmt.Errorf("reward server %s: %s: %w", r.URL, out.Error, reward.ErrTransient)
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("reward server %s: %s: %s", r.URL, resp.Status, truncate(string(b), 300))
	case jerr != nil:
		return nil, false, fmt.Errorf("reward server %s: %w", r.URL, jerr)
	case len(out.Results) != n:
		return nil, false, fmt.Errorf("reward server %s: %d results for %d completions", r.URL, len(out.Results), n)
	}
	scores := make([]reward.Score, n)
	for i, res := range out.Results {
		scores[i] = reward.Score{Value: res.Reward, Components: res.Components, Class: res.Class, Error: res.Error}
	}
	return scores, false, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
