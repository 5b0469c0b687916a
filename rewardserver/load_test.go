package rewardserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/reward"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// rewardOf posts one completion for label to the endpoint and returns the
// status and, on 200, the reward and class ("" from OpenRLHF, which has no
// class).
func rewardOf(t *testing.T, base, endpoint string, label map[string]any, completion string) (int, float64) {
	t.Helper()
	if endpoint == "/v1/reward" {
		body := map[string]any{"completions": []string{completion}}
		for k, v := range label {
			body[k] = v
		}
		var ans BatchResponse
		code := postJSON(t, base+endpoint, body, &ans)
		if code != 200 {
			return code, 0
		}
		return code, ans.Results[0].Reward
	}
	lab, _ := json.Marshal(label)
	var ans OpenRLHFResponse
	code := postJSON(t, base+endpoint, map[string]any{"query": []string{completion}, "labels": []string{string(lab)}}, &ans)
	if code != 200 {
		return code, 0
	}
	return code, ans.Rewards[0]
}

// TestLoadIsNotCached: end to end through the handlers, an outcome the
// machine's load decided is not remembered by any cache on the path (eval's
// results and verdicts, reward.Memo). The database gets one connection,
// held by a runaway, so the gold or the completion times out waiting for
// it: a gold that timed out is a retryable 503 (not a 422 "bad label"), a
// completion that timed out scores as a timeout (-1); once the load is
// gone, the same label and completion score 1.
func TestLoadIsNotCached(t *testing.T) {
	root, _ := copyDB(t)
	label := map[string]any{"db_id": "superhero", "gold_sql": "SELECT COUNT(*) FROM superhero"}
	// Correct, but not the gold up to spacing: it must run to be scored.
	const good = "SELECT count(*) AS n FROM superhero"
	tests := []struct {
		endpoint string
		kind     string
		loadGold bool
		want     int // status under load
	}{
		{"/v1/reward", reward.KindGate, true, http.StatusServiceUnavailable},
		{"/get_reward", reward.KindMATS, true, http.StatusServiceUnavailable},
		{"/v1/reward", reward.KindMATS, false, 200},
		{"/get_reward", reward.KindGate, false, 200},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s gold=%v", tt.endpoint, tt.kind, tt.loadGold), func(t *testing.T) {
			hs, _, st := newTestServer(t, reward.StackOptions{DBRoot: root, QueryTimeout: 200 * time.Millisecond, ConnsPerDB: 1,
				Reward: reward.Config{Kind: tt.kind, ErrorValue: -1}}, nil)
			if !tt.loadGold {
				if code, r := rewardOf(t, hs.URL, tt.endpoint, label, "SELECT 1"); code != 200 || r == 1 {
					t.Fatalf("warming the gold: status %d reward %v", code, r)
				}
			}
			release := testkit.HoldConn(t, st.Engine.(*sqlexec.SQLite), "superhero")
			code, r := rewardOf(t, hs.URL, tt.endpoint, label, good)
			if code != tt.want || (code == 200 && r != -1) {
				t.Errorf("under load: status %d reward %v, want %d and (on 200) -1", code, r, tt.want)
			}
			release()
			if code, r := rewardOf(t, hs.URL, tt.endpoint, label, good); code != 200 || r != 1 {
				t.Errorf("after the load: status %d reward %v, want 200 and 1", code, r)
			}
		})
	}
}

// TestHungJudgeFallsBackInTime: an LLM judge that hangs until the test ends,
// with an attempt timeout and retries that add up to far more than the
// request's deadline, and one request slot for three completions: the
// judge gives up early enough for the analytic fallback to answer, so both
// APIs answer 200 with fallback rewards marked judge_fallback = 1, never
// 504.
func TestHungJudgeFallsBackInTime(t *testing.T) {
	release := make(chan struct{})
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // ignores its client: hangs until the test ends
	}))
	t.Cleanup(judge.Close)
	t.Cleanup(func() { close(release) }) // runs first
	j := reward.NewLLMJudge(judge.URL+"/v1", "m", "")
	j.Timeout, j.Retries, j.MaxConcurrent = time.Minute, 2, 1
	hs, _, _ := newTestServer(t, reward.StackOptions{Reward: reward.Config{Kind: reward.KindGate, ErrorValue: -1, Judge: j}}, func(c *Config) {
		c.RequestTimeout = 1500 * time.Millisecond
	})
	gold := "SELECT superhero_name FROM superhero WHERE id < 10"
	// Wrong but executing: the gate asks the judge about each.
	completions := []string{
		"SELECT superhero_name FROM superhero WHERE id < 5",
		"SELECT superhero_name FROM superhero WHERE id < 6",
		"SELECT superhero_name FROM superhero WHERE id < 7",
	}
	check := func(api string, rewards, fallback []float64) {
		t.Helper()
		if len(rewards) != len(completions) || len(fallback) != len(completions) {
			t.Fatalf("%s: %d rewards, %d judge_fallback for %d completions", api, len(rewards), len(fallback), len(completions))
		}
		for i := range rewards {
			if fallback[i] != 1 || rewards[i] <= 0 || rewards[i] >= 1 {
				t.Errorf("%s %d: reward %v judge_fallback %v, want the analytic fallback's grade in (0, 1), marked", api, i, rewards[i], fallback[i])
			}
		}
	}

	var ans BatchResponse
	if code := postJSON(t, hs.URL+"/v1/reward", map[string]any{"db_id": "superhero", "gold_sql": gold, "completions": completions}, &ans); code != 200 {
		t.Fatalf("batch: status %d, want 200", code)
	}
	var rewards, fallback []float64
	for _, r := range ans.Results {
		rewards, fallback = append(rewards, r.Reward), append(fallback, r.Components["judge_fallback"])
	}
	check("batch", rewards, fallback)

	// Other completions: the judge caches nothing it did not grade, but
	// fresh ones make sure every item asks it again.
	for i := range completions {
		completions[i] += " ORDER BY 1"
	}
	lab, _ := json.Marshal(map[string]any{"db_id": "superhero", "gold_sql": gold})
	labels := []string{string(lab), string(lab), string(lab)}
	var or OpenRLHFResponse
	if code := postJSON(t, hs.URL+"/get_reward", map[string]any{"query": completions, "labels": labels}, &or); code != 200 {
		t.Fatalf("openrlhf: status %d, want 200", code)
	}
	check("openrlhf", or.Rewards, or.ExtraLogs["judge_fallback"])
}
