package rewardserver

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
	"github.com/sqlrl/sqlrl/textclip"
)

// Client asks a running reward server (`sqlrl reward serve`) through its
// batch API (POST /v1/reward: one question's label and its K
// completions), so that a trainer on one machine can use a reward server
// on another, or one shared by several trainers: the scores are the ones
// the server's reward.Stack computes, the same code as in process. Its
// ScoreGroup and Health make it a trainer's reward source.
type Client struct {
	// URL is the server's root, such as http://127.0.0.1:5000.
	URL string
	// HTTP defaults to a client with a 180 s timeout (OpenRLHF's).
	HTTP *http.Client
	// Retries is how many times ScoreGroup retries a 503 (a gold the
	// server could not run just now, or a server busy) or a failed
	// connection, 1 s apart: 0 means 3, a negative count none.
	Retries int
}

// NewClient returns a Client for the server at url.
func NewClient(url string) *Client {
	return &Client{URL: strings.TrimRight(url, "/")}
}

func (c *Client) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 180 * time.Second}
}

// Health asks the server's /healthz: a server that is down or is not a
// reward server is an error here, before any training work.
func (c *Client) Health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("reward server %s: %w", c.URL, err)
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return fmt.Errorf("reward server %s is not answering (start it with 'sqlrl reward serve'): %w", c.URL, err)
	}
	defer resp.Body.Close()
	var h struct {
		Status string `json:"status"`
		Reward string `json:"reward"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &h) != nil || h.Status != "ok" {
		return fmt.Errorf("reward server %s: /healthz answered %s %q: not a healthy sqlrl reward server", c.URL, resp.Status, textclip.Clip(string(b), 200))
	}
	return nil
}

// ScoreGroup posts one question's completions, retrying as Retries says.
// A 422 (the gold fails, an unknown database) is reward.ErrGold, which RL
// answers by skipping the prompt, as with an in-process stack; other
// failures stop the run.
func (c *Client) ScoreGroup(ctx context.Context, s reward.Sample, completions []string) ([]reward.Score, error) {
	req := BatchRequest{Label: Label{DBID: s.DBID, GoldSQL: s.GoldSQL, Question: s.Question, Evidence: s.Evidence}, Completions: completions}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	retries := c.Retries
	if retries == 0 {
		retries = 3
	}
	for attempt := 0; ; attempt++ {
		out, retry, err := c.post(ctx, body, len(completions))
		if err == nil {
			scores := make([]reward.Score, len(out.Results))
			for i, res := range out.Results {
				scores[i] = reward.Score{Value: res.Reward, Components: res.Components, Class: res.Class, Error: res.Error}
			}
			return scores, nil
		}
		if !retry || attempt >= retries {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Batch sends one batch request, once, and returns the server's answer,
// one result per completion. A 422 is reward.ErrGold, a 503
// reward.ErrTransient.
func (c *Client) Batch(ctx context.Context, req BatchRequest) (*BatchResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, _, err := c.post(ctx, body, len(req.Completions))
	return out, err
}

// post sends one batch request body for n completions; retry says
// whether a failure may pass on a retry (a 503, a failed connection).
func (c *Client) post(ctx context.Context, body []byte, n int) (*BatchResponse, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+"/v1/reward", bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client().Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, fmt.Errorf("reward server %s: %w", c.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, true, fmt.Errorf("reward server %s: %w", c.URL, err)
	}
	var out BatchResponse
	jerr := json.Unmarshal(b, &out)
	var failed struct {
		Error string `json:"error"`
	}
	if resp.StatusCode != http.StatusOK {
		json.Unmarshal(b, &failed)
	}
	switch {
	case resp.StatusCode == http.StatusUnprocessableEntity:
		return nil, false, fmt.Errorf("reward server %s: %s: %w", c.URL, failed.Error, reward.ErrGold)
	case resp.StatusCode == http.StatusServiceUnavailable:
		return nil, true, fmt.Errorf("reward server %s: %s: %w", c.URL, failed.Error, reward.ErrTransient)
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("reward server %s: %s: %s", c.URL, resp.Status, textclip.Clip(string(b), 300))
	case jerr != nil:
		return nil, false, fmt.Errorf("reward server %s: %w", c.URL, jerr)
	case len(out.Results) != n:
		return nil, false, fmt.Errorf("reward server %s: %d results for %d completions", c.URL, len(out.Results), n)
	}
	return &out, false, nil
}
