package train

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/policy"
)

// TestDamagedRunRefused damages a run killed after step 7 (checkpoints at
// 3 and 6) in the ways issue 39 found resumed wrongly: each resume must
// fail naming the file and what is wrong, and leave the run directory as
// it was (the log and every checkpoint); -restart then starts over. A
// checkpoint from before state.json and config.json carried checksums
// still resumes.
func TestDamagedRunRefused(t *testing.T) {
	ctx := context.Background()
	editJSON := func(t *testing.T, path string, edit func(map[string]any)) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		if b, err = json.MarshalIndent(m, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile := func(name, body string) func(*testing.T, string) {
		return func(t *testing.T, run string) {
			if err := os.WriteFile(filepath.Join(run, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	state := func(ck string) string { return filepath.Join(ck, stateFile) }
	tests := []struct {
		name   string
		damage func(t *testing.T, run string)
		want   []string // "": the resume succeeds
	}{
		{"negative step", func(t *testing.T, run string) {
			editJSON(t, state(filepath.Join(run, "step-000006")), func(m map[string]any) { m["step"] = -5 })
		}, []string{"step-000006", stateFile, "does not match its sha256", "-restart"}},
		{"negative step, no checksum", func(t *testing.T, run string) {
			editJSON(t, state(filepath.Join(run, "step-000006")), func(m map[string]any) { m["step"] = -5; delete(m, "sha256") })
		}, []string{"step-000006", stateFile, "step -5", "-restart"}},
		{"step edited, no checksum", func(t *testing.T, run string) {
			editJSON(t, state(filepath.Join(run, "step-000006")), func(m map[string]any) { m["step"], m["adam_step"] = 3, 3; delete(m, "sha256") })
		}, []string{stateFile, "step 3, but the checkpoint is step-000006"}},
		{"empty latest", writeFile(policy.FileLatest, ""), []string{policy.FileLatest, "is empty", "-restart"}},
		{"missing latest", func(t *testing.T, run string) {
			if err := os.Remove(filepath.Join(run, policy.FileLatest)); err != nil {
				t.Fatal(err)
			}
		}, []string{"2 checkpoints, the newest step-000006", "no latest", "-restart"}},
		{"latest outside the run", writeFile(policy.FileLatest, "../../../../etc\n"), []string{policy.FileLatest, `"../../../../etc"`, "-restart"}},
		{"latest names no checkpoint", writeFile(policy.FileLatest, "step-000055\n"), []string{policy.FileLatest, `"step-000055"`, "not a checkpoint"}},
		{"model with bytes appended", func(t *testing.T, run string) {
			f, err := os.OpenFile(filepath.Join(run, "step-000006", policy.FileModel), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte("more"))
			f.Close()
		}, []string{"step-000006", policy.FileModel, "after the tensor data's checksum", "-restart"}},
		{"old checkpoint without checksums", func(t *testing.T, run string) {
			ck := filepath.Join(run, "step-000006")
			editJSON(t, state(ck), func(m map[string]any) { delete(m, "sha256") })
			editJSON(t, filepath.Join(ck, policy.FileConfig), func(m map[string]any) { delete(m, "model_sha256") })
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			o := quadOptions(run, "")
			o.StopAfter = 7
			init := filepath.Join(t.TempDir(), "init")
			savedPolicy(t, init, 0)
			o.Init = init
			if _, err := Loop(ctx, nil, o, &quadObjective{steps: 12, empty: -1}); !errors.Is(err, ErrStopped) {
				t.Fatalf("stop: %v", err)
			}
			tc.damage(t, run)
			before := snapshot(t, run)
			o.StopAfter = 0
			_, err := Loop(ctx, nil, o, &quadObjective{steps: 12, empty: -1})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("resume: %v", err)
				}
				if lines := readLogLines(t, run); len(lines) != 12 {
					t.Errorf("%d log lines after the resume, want 12", len(lines))
				}
				return
			}
			if err == nil {
				t.Fatal("the damaged run resumed")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if after := snapshot(t, run); after != before {
				t.Errorf("the refused resume changed the run directory:\nbefore %s\nafter  %s", before, after)
			}
			o.Restart = true
			res, err := Loop(ctx, nil, o, &quadObjective{steps: 12, empty: -1})
			if err != nil || res.State.Step != 12 {
				t.Fatalf("-restart: %v", err)
			}
		})
	}
}

// snapshot lists every file under dir with its content, to tell whether
// anything changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + "=" + string(data) + ";")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSFTNegativeStep checks that SFT refuses a negative step with an
// error instead of indexing its plan with it (issue 39: a state.json with
// "step": -5 panicked with index out of range [-5]).
func TestSFTNegativeStep(t *testing.T) {
	s := newSFT(loadTiny(t), tinyOptions(t.TempDir()))
	if _, err := s.Step(context.Background(), -5); err == nil || !strings.Contains(err.Error(), "step -5") {
		t.Fatalf("Step(-5): %v", err)
	}
}
