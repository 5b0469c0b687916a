package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainLog summarises a run directory's log as tables and as JSON,
// and refuses a call without a run or with a log that is not there.
func TestTrainLog(t *testing.T) {
	dir := t.TempDir()
	log := `{"step":1,"loss":0.5,"metrics":{"sample_s":1,"reward_s":0.02,"score_s":2,"update_s":0.98,"share_correct":0.25}}
{"step":2,"loss":0.3,"metrics":{"sample_s":3,"reward_s":0.04,"score_s":2,"update_s":0.96,"share_correct":0.75}}
`
	if err := os.WriteFile(filepath.Join(dir, "train_log.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := sqlrlOS(t, "train", "log", "-window", "2", "-metrics", "share_correct,loss", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// steps of 4 and 6 s: median 5; the reward .5% and .67% of them, 0.06 of 10 s
	for _, want := range []string{"2 steps, median step 5 s", "| reward | 0.03 | 0.6% | 0.6% | 0.7% |", "| steps | share_correct | loss |", "| 1-2 | 0.5 | 0.4 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, errs, code = sqlrlOS(t, "train", "log", "-json", dir)
	if code != 0 {
		t.Fatalf("-json: exit %d: %s", code, errs)
	}
	var got struct {
		Run         string  `json:"run"`
		Steps       int     `json:"steps"`
		StepMedianS float64 `json:"step_median_s"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Run != dir || got.Steps != 2 || got.StepMedianS != 5 {
		t.Errorf("-json: %+v, %v from %q", got, err, out)
	}
	for _, bad := range [][]string{{"train", "log"}, {"train", "log", filepath.Join(dir, "missing")}, {"train", "log", "-window", "-1", dir}} {
		if _, errs, code := sqlrlOS(t, bad...); code == 0 || errs == "" {
			t.Errorf("%q: exit %d, stderr %q; want a refusal", bad, code, errs)
		}
	}
}
