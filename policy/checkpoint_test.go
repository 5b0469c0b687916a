package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveDamagedRun checks that a run directory whose "latest" is
// empty, names a path outside the run, or names no checkpoint is an error
// that says which file is wrong and how (issue 39: such a run restarted
// from step 1 over its checkpoints).
func TestResolveDamagedRun(t *testing.T) {
	p := testPolicy(t)
	run := t.TempDir()
	if err := p.Save(filepath.Join(run, "step-000055")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, latest string // latest "-": no file
		want         string // "": resolves to step-000055
	}{
		{"good", "step-000055\n", ""},
		{"empty", "", "latest is empty"},
		{"blank", " \n", "latest is empty"},
		{"outside", "../../../../etc", `names "../../../../etc", not a checkpoint directory inside the run`},
		{"parent", "..", `names "..", not a checkpoint`},
		{"absolute", "/etc", `names "/etc"`},
		{"missing checkpoint", "step-000099", `names "step-000099", which is not a checkpoint`},
		{"no latest", "-", "nor a run directory (no latest)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(run, FileLatest))
			if tc.latest != "-" {
				if err := os.WriteFile(filepath.Join(run, FileLatest), []byte(tc.latest), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ck, err := Resolve(run)
			if tc.want == "" {
				if err != nil || ck != filepath.Join(run, "step-000055") {
					t.Fatalf("Resolve = %q, %v", ck, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Resolve = %q, %v; want an error saying %q", ck, err, tc.want)
			}
		})
	}
}

// TestLoadChecksModel checks that Load refuses a model.bin that is not the
// one Save wrote (bytes appended, another checkpoint's weights), and that
// a checkpoint from before config.json recorded model.bin's SHA-256 still
// loads.
func TestLoadChecksModel(t *testing.T) {
	p := testPolicy(t)
	other := testPolicyDim(t, p.Model.Cfg.Dim)
	other.Model.Params[0] += 1
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"as saved", func(*testing.T, string) {}, ""},
		{"bytes appended", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, FileModel), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte("appended"))
			f.Close()
		}, "bytes after the tensor data's checksum"},
		{"another model", func(t *testing.T, dir string) {
			if err := other.Save(filepath.Join(dir, "other")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(dir, "other", FileModel), filepath.Join(dir, FileModel)); err != nil {
				t.Fatal(err)
			}
		}, "not the model saved with this checkpoint"},
		{"old checkpoint without a checksum", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, FileConfig))
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if _, ok := m["model_sha256"]; !ok {
				t.Fatal("config.json has no model_sha256")
			}
			delete(m, "model_sha256")
			b, _ = json.Marshal(m)
			if err := os.WriteFile(filepath.Join(dir, FileConfig), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := p.Save(dir); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, dir)
			q, err := Load(dir)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if q.Model.Params[0] != p.Model.Params[0] {
					t.Fatal("loaded other weights")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestResolveRunLayouts checks that every directory a user is likely to
// name for a model resolves to its checkpoint: the checkpoint, a step
// directory, a `sqlrl train` run (its "latest"), an experiment's run
// directory (its own config.json describes the run; the checkpoints are in
// train/); and that a folder holding several runs is an error naming them
// (issue 37: serve refused a flywheel run with `format ""`).
func TestResolveRunLayouts(t *testing.T) {
	p := testPolicy(t)
	root := t.TempDir()
	mkRun := func(run string) string {
		step := filepath.Join(run, "step-000002")
		if err := p.Save(step); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, FileLatest), []byte("step-000002\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return step
	}
	sft := mkRun(filepath.Join(root, "sft"))
	exp := filepath.Join(root, "flywheel", "runs")
	kto := mkRun(filepath.Join(exp, "kto-1", RunTrainDir))
	mkRun(filepath.Join(exp, "sft75-1", RunTrainDir))
	for _, run := range []string{"kto-1", "sft75-1"} {
		if err := os.WriteFile(filepath.Join(exp, run, FileConfig), []byte(`{"study": "flywheel"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, dir string
		want      string // the checkpoint, or an error's words
		err       bool
	}{
		{"checkpoint", sft, sft, false},
		{"train run", filepath.Join(root, "sft"), sft, false},
		{"experiment run", filepath.Join(exp, "kto-1"), kto, false},
		{"experiment run's train", filepath.Join(exp, "kto-1", RunTrainDir), kto, false},
		{"several runs", exp, "it holds kto-1, sft75-1: name one of them", true},
		{"experiment out", filepath.Join(root, "flywheel"), "it holds runs/kto-1, runs/sft75-1", true},
		{"nothing", t.TempDir(), "not a checkpoint (no config.json) nor a run directory (no latest)", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ck, err := Resolve(tc.dir)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Resolve(%s) = %q, %v; want an error saying %q", tc.dir, ck, err, tc.want)
				}
				return
			}
			if err != nil || ck != tc.want {
				t.Fatalf("Resolve(%s) = %q, %v; want %s", tc.dir, ck, err, tc.want)
			}
			if _, err := Load(tc.dir); err != nil {
				t.Fatalf("Load(%s): %v", tc.dir, err)
			}
		})
	}
}
