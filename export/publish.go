package export

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// PublishDir makes out a directory holding what write puts in the
// directory it is given, whole or not at all. It exists so that every
// command that writes a set of files meant to be read together (data
// prepare, data from-feedback) gets the same crash consistency: a run that
// fails, is cancelled or is killed at any point leaves out as it was, old
// manifest beside old files, never the old manifest beside new files
// (which once put 558 question ids in both sft.jsonl and holdout.jsonl).
//
// write fills a fresh staging directory beside out, named with the pid
// (".<out>.prepare-<pid>-<random>.tmp"), with files whose names are in
// names and nothing else. PublishDir then fsyncs every file and the
// directory, so a writer cannot forget to, swaps the directory with out in
// one step (renameat2 RENAME_EXCHANGE on Linux; elsewhere two renames,
// which a crash between leaves out missing but never mixed), and fsyncs
// the parent so the swap itself survives a power cut. The old output,
// which the swap left in the staging directory's place, is then removed,
// as is the staging directory of a failed run. Staging directories of
// runs for the same out whose process is dead (SIGKILL, a crash) are
// removed first.
//
// names are every file the writer may write. out must be missing, empty,
// or hold only such files (and their ".tmp" names): a mistyped -out must
// not take a user's other files with it. Errors of write are returned as
// they are, so the caller's wrapping names its own step.
func PublishDir(ctx context.Context, out string, names []string, write func(dir string) error) error {
	st, err := newStage(out, names)
	if err != nil {
		return err
	}
	defer st.cleanup()
	if err := write(st.dir); err != nil {
		return err
	}
	return st.publish(ctx)
}

// stagePart names staging directories: ".<target>.prepare-<pid>-<random>.tmp".
// The pid lets a later run tell a dead run's leftovers from a live run's.
// It says "prepare" for every writer so that the leftovers of runs of
// older data prepare binaries are still recognised and removed.
const stagePart = ".prepare-"

// testFault, when set by a test, is called at each write step and may fail
// it, to check that a failure at any step leaves no mixed output.
var testFault func(step string) error

func fault(step string) error {
	if testFault != nil {
		return testFault(step)
	}
	return nil
}

// stage is the staging directory of one run, the target it replaces and
// the names the writer may put in it.
type stage struct {
	target, parent, dir string
	names               map[string]bool
}

// newStage checks that out may be replaced, removes what killed runs left
// beside it, and creates the staging directory.
func newStage(out string, names []string) (*stage, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, err)
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if base == string(filepath.Separator) || base == "." || base == ".." {
		return nil, fmt.Errorf("output directory %s: cannot replace it whole; name a directory below it", out)
	}
	known := map[string]bool{}
	for _, n := range names {
		if n == "" || n != filepath.Base(n) || n == "." || n == ".." {
			return nil, fmt.Errorf("output directory %s: file name %q is not a plain name", out, n)
		}
		known[n] = true
	}
	if err := checkReplaceable(out, abs, known); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, err)
	}
	removeStale(parent, base)
	if err := fault("stage"); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "."+base+stagePart+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("output directory %s: staging: %w", out, err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("output directory %s: staging: %w", out, err)
	}
	return &stage{target: abs, parent: parent, dir: dir, names: known}, nil
}

// checkReplaceable refuses to replace anything but a missing or empty
// directory or one holding only files the writer writes (known), or their
// ".tmp" names, which an older sqlrl that wrote in place left when killed:
// a mistyped -out must not take a user's other files with it.
func checkReplaceable(out, abs string, known map[string]bool) error {
	st, err := os.Lstat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("output directory %s: exists and is not a directory", out)
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !known[strings.TrimSuffix(e.Name(), ".tmp")] {
			return fmt.Errorf("output directory %s: holds %s, which this command does not write; refusing to replace it (choose another -out or remove it)", out, e.Name())
		}
	}
	return nil
}

// removeStale removes the staging directories of runs for the same target
// whose process is gone (killed by SIGKILL, or the machine went down).
func removeStale(parent, base string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := "." + base + stagePart
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !strings.HasSuffix(name, ".tmp") || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(parent, name))
	}
}

// publish makes the staged directory the target: a check that it holds
// only known names (anything else would make the next run refuse to
// replace it), fsync of each file and of the directory, one atomic swap,
// fsync of the parent so the swap itself survives a crash. The old output,
// which the swap left in the staging directory's place, is removed by
// cleanup.
func (s *stage) publish(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("publish %s: %w", s.target, err)
	}
	if err := fault("sync files"); err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !s.names[e.Name()] {
			return fmt.Errorf("publish %s: the writer made %s, which is not among its declared names %v", s.target, e.Name(), slices.Sorted(maps.Keys(s.names)))
		}
		if err := syncFile(filepath.Join(s.dir, e.Name())); err != nil {
			return err
		}
	}
	if err := fault("sync dir"); err != nil {
		return err
	}
	if err := syncDir(s.dir); err != nil {
		return fmt.Errorf("sync %s: %w", s.dir, err)
	}
	if err := fault("publish"); err != nil {
		return err
	}
	if err := swapDirs(s.dir, s.target); err != nil {
		return fmt.Errorf("publish %s: %w", s.target, err)
	}
	if err := syncDir(s.parent); err != nil {
		return fmt.Errorf("sync %s: %w", s.parent, err)
	}
	return nil
}

// cleanup removes the staging directory: the unpublished output after a
// failure, the old output after a publish.
func (s *stage) cleanup() {
	os.RemoveAll(s.dir)
}

// swapDirs puts dir at target atomically. A missing target is a plain
// rename; an existing one is exchanged with dir in one step where the
// system can (Linux), leaving the old output at dir. Elsewhere the old
// target is moved to dir first, so a crash between the two renames leaves
// the target missing, but never mixed.
func swapDirs(dir, target string) error {
	if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
		return os.Rename(dir, target)
	}
	err := exchange(dir, target)
	if err == nil || !errors.Is(err, errNoExchange) {
		return err
	}
	old := dir + ".old"
	if err := os.Rename(target, old); err != nil {
		return err
	}
	if err := os.Rename(dir, target); err != nil {
		os.Rename(old, target)
		return err
	}
	return os.Rename(old, dir)
}

// errNoExchange says the system or file system cannot swap two paths.
var errNoExchange = errors.New("atomic exchange not supported")

// syncFile fsyncs a file the writer has closed: data written through
// one descriptor is made durable by fsync through another.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
