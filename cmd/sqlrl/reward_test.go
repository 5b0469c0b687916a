package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRewardBenchCommand(t *testing.T) {
	report := filepath.Join(t.TempDir(), "bench.json")
	_, errs, code := sqlrl(t, "reward", "bench", "--questions", "20", "--clients", "8", "--duration", "300ms", "--reward", "arctic", "--json", report)
	if code != 0 {
		t.Fatalf("code %d\nstderr:\n%s", code, errs)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Questions   int     `json:"questions"`
		Completions int     `json:"completions"`
		Ratio       float64 `json:"ratio"`
		Load        struct {
			Requests, Errors, Lost int64
			P99                    float64 `json:"p99_ms"`
		} `json:"load"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 20 || rep.Completions != 160 || rep.Ratio <= 0 || rep.Load.Requests == 0 || rep.Load.Errors != 0 || rep.Load.Lost != 0 || rep.Load.P99 <= 0 {
		t.Errorf("report %s", data)
	}
}

func TestRewardServeFlags(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("SQLRL_JUDGE_MODEL", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"reward", "serve", "--reward", "nope"}, `unknown reward "nope"`},
		{[]string{"reward", "serve", "--judge", "llm"}, "-judge llm needs -judge-url"},
		{[]string{"reward", "serve", "--judge", "oracle"}, `-judge "oracle"`},
		{[]string{"reward", "serve", "--judge", "llm", "--judge-url", "http://x/v1", "--judge-model", "m", "--judge-fallback", "99"}, "-judge-fallback"},
		{[]string{"reward", "serve", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		_, errs, code := sqlrl(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: code %d, stderr:\n%s", tt.args, code, errs)
		}
	}
	_, errs, code := sqlrl(t, "reward", "serve", "--data", "", "--db-root", "no/such/dir")
	if code != 1 || !strings.Contains(errs, "not a directory") {
		t.Errorf("missing db root: code %d: %s", code, errs)
	}
}
