package export

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// snapshot maps each file of dir to its checksum; subdirectories are
// reported as such, so a mixed or nested output never compares equal.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if e.IsDir() {
			out[e.Name()] = "dir"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

// leftovers lists what is in parent besides the output directory itself.
func leftovers(t *testing.T, parent, out string) []string {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, e := range ents {
		if e.Name() != filepath.Base(out) {
			extra = append(extra, e.Name())
		}
	}
	return extra
}

// TestPrepareCrashConsistent fails, and separately cancels, each write step
// of a run over an existing output and checks that the output is then the
// old one or the new one, whole, and that no staging directory is left.
func TestPrepareCrashConsistent(t *testing.T) {
	t.Cleanup(func() { testFault = nil })
	dir := fixture(t)
	roll := rollouts(t, dir)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	// The old output has the rollout files, the new one has not and uses
	// another seed: a mix would show as a file set or checksum of neither.
	oldOpts := Options{Dir: dir, Out: out, Seed: 5, Rollouts: roll}
	if _, err := Prepare(context.Background(), oldOpts); err != nil {
		t.Fatal(err)
	}
	old := snapshot(t, out)

	// Record the steps of a run; files are written in parallel.
	var steps []string
	newOut := filepath.Join(t.TempDir(), "new")
	var mu chanMutex = make(chan struct{}, 1)
	testFault = func(step string) error {
		mu <- struct{}{}
		steps = append(steps, step)
		<-mu
		return nil
	}
	if _, err := Prepare(context.Background(), Options{Dir: dir, Out: newOut, Seed: 6}); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, newOut)
	slices.Sort(steps)
	for _, s := range []string{"stage", "write " + FileSFT, "sync " + FileHoldout, "write " + FileManifest, "sync " + FileManifest, "sync dir", "publish"} {
		if !slices.Contains(steps, s) {
			t.Fatalf("step %q never reached; steps: %v", s, steps)
		}
	}

	check := func(t *testing.T, err error) {
		t.Helper()
		got := snapshot(t, out)
		switch {
		case maps.Equal(got, old):
			if err == nil {
				t.Errorf("Prepare returned no error but left the old output")
			}
		case maps.Equal(got, want):
		default:
			t.Errorf("output is neither the old nor the new one: %v", slices.Sorted(maps.Keys(got)))
		}
		if extra := leftovers(t, parent, out); len(extra) > 0 {
			t.Errorf("left behind: %v", extra)
		}
	}
	restore := func(t *testing.T) {
		t.Helper()
		testFault = nil
		if !maps.Equal(snapshot(t, out), old) {
			if _, err := Prepare(context.Background(), oldOpts); err != nil {
				t.Fatal(err)
			}
		}
	}
	injected := errors.New("injected failure")
	for _, step := range steps {
		t.Run("fail "+step, func(t *testing.T) {
			restore(t)
			testFault = func(s string) error {
				if s == step {
					return injected
				}
				return nil
			}
			_, err := Prepare(context.Background(), Options{Dir: dir, Out: out, Seed: 6})
			testFault = nil
			if !errors.Is(err, injected) {
				t.Fatalf("error %v, want the injected one", err)
			}
			check(t, err)
			if !maps.Equal(snapshot(t, out), old) {
				t.Errorf("a failed run changed the output")
			}
		})
		t.Run("cancel "+step, func(t *testing.T) {
			restore(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			testFault = func(s string) error {
				if s == step {
					cancel()
				}
				return nil
			}
			_, err := Prepare(ctx, Options{Dir: dir, Out: out, Seed: 6})
			testFault = nil
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want a cancellation or none", err)
			}
			check(t, err)
		})
	}
}

type chanMutex chan struct{}

// TestPrepareStaleAndForeign checks that a run removes the staging
// directory of a dead run, keeps one whose process lives, and refuses to
// replace a directory holding files it does not write.
func TestPrepareStaleAndForeign(t *testing.T) {
	dir := fixture(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	// pid 1 is alive; 2^30 is above Linux's pid_max, so dead.
	live := filepath.Join(parent, ".out"+stagePart+"1-abc.tmp")
	dead := filepath.Join(parent, ".out"+stagePart+strconv.Itoa(1<<30)+"-abc.tmp")
	other := filepath.Join(parent, ".other"+stagePart+strconv.Itoa(1<<30)+"-abc.tmp")
	for _, d := range []string{live, dead, other} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Prepare(context.Background(), Options{Dir: dir, Out: out, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	for d, keep := range map[string]bool{live: true, dead: false, other: true} {
		if _, err := os.Stat(d); (err == nil) != keep {
			t.Errorf("%s: exists %v, want %v", filepath.Base(d), err == nil, keep)
		}
	}

	foreign := filepath.Join(parent, "mine")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(foreign, "notes.txt")
	if err := os.WriteFile(notes, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Prepare(context.Background(), Options{Dir: dir, Out: foreign, Seed: 5})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("error %v, want a refusal naming notes.txt", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "keep me" {
		t.Fatalf("notes.txt: %q, %v", b, err)
	}
}

// TestPublishDir checks PublishDir on its own, over an existing output: a
// writer's error, a file it did not declare or a name that is not plain
// fails the run and leaves the old output whole with nothing beside it; a
// run that succeeds replaces the output whole, files the new writer did
// not write included.
func TestPublishDir(t *testing.T) {
	injected := errors.New("injected failure")
	files := func(content map[string]string) func(dir string) error {
		return func(dir string) error {
			for _, n := range slices.Sorted(maps.Keys(content)) {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(content[n]), 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	names := []string{"a.jsonl", "b.jsonl", "manifest.json"}
	old := map[string]string{"a.jsonl": "old a\n", "b.jsonl": "old b\n", "manifest.json": "{\"old\": true}\n"}
	for _, tc := range []struct {
		name  string
		names []string
		write func(dir string) error
		want  map[string]string // nil: the old output stays and the run fails
		err   string
	}{
		{name: "replace whole", names: names,
			write: files(map[string]string{"a.jsonl": "new a\n", "manifest.json": "{}\n"}),
			want:  map[string]string{"a.jsonl": "new a\n", "manifest.json": "{}\n"}},
		{name: "writer fails", names: names, err: "injected failure",
			write: func(dir string) error {
				files(map[string]string{"a.jsonl": "new a\n"})(dir)
				return injected
			}},
		{name: "undeclared file", names: names, err: "c.jsonl",
			write: files(map[string]string{"a.jsonl": "new a\n", "c.jsonl": "x\n"})},
		{name: "subdirectory", names: names, err: "sub",
			write: func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) }},
		{name: "name with a slash", names: append([]string{"x/a.jsonl"}, names...), err: "x/a.jsonl",
			write: files(nil)},
		{name: "dot-dot name", names: append([]string{".."}, names...), err: `".."`,
			write: files(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			if err := PublishDir(context.Background(), out, names, files(old)); err != nil {
				t.Fatal(err)
			}
			err := PublishDir(context.Background(), out, tc.names, tc.write)
			want := tc.want
			if want == nil {
				want = old
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one naming %s", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for n := range snapshot(t, out) {
				b, _ := os.ReadFile(filepath.Join(out, n))
				got[n] = string(b)
			}
			if !maps.Equal(got, want) {
				t.Errorf("output %v, want %v", got, want)
			}
			if extra := leftovers(t, parent, out); len(extra) > 0 {
				t.Errorf("left behind: %v", extra)
			}
		})
	}
	t.Run("writer error returned as is", func(t *testing.T) {
		err := PublishDir(context.Background(), filepath.Join(t.TempDir(), "out"), names, func(string) error { return injected })
		if err != injected {
			t.Errorf("error %v, want the writer's own", err)
		}
	})
	t.Run("leftover .tmp of a declared name is replaceable", func(t *testing.T) {
		out := t.TempDir()
		if err := os.WriteFile(filepath.Join(out, "a.jsonl.tmp"), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := PublishDir(context.Background(), out, names, files(old)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(out, "a.jsonl.tmp")); err == nil {
			t.Error("the .tmp file survived the replacement")
		}
	})
}
