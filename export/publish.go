package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A prepared directory is published whole or not at all. Prepare writes
// every file into a fresh staging directory beside the target, fsyncs each
// file and the directory, and only then swaps it with the target in one
// rename (RENAME_EXCHANGE on Linux). A run killed at any point leaves the
// target as it was, old manifest beside old files, never the old manifest
// beside new files (which once put 558 question ids in both sft.jsonl and
// holdout.jsonl). The staging directory of a killed run is removed by the
// next run for the same target.

// stagePart names staging directories: ".<target>.prepare-<pid>-<random>.tmp".
// The pid lets a later run tell a dead run's leftovers from a live run's.
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

// stage is the staging directory of one run and the target it replaces.
type stage struct {
	target, parent, dir string
	published           bool
}

// newStage checks that out may be replaced, removes what killed runs left
// beside it, and creates the staging directory.
func newStage(out string) (*stage, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, err)
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if base == string(filepath.Separator) || base == "." || base == ".." {
		return nil, fmt.Errorf("output directory %s: cannot replace it whole; name a directory below it", out)
	}
	if err := checkReplaceable(out, abs); err != nil {
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
	return &stage{target: abs, parent: parent, dir: dir}, nil
}

// checkReplaceable refuses to replace anything but a missing or empty
// directory or one holding only files Prepare writes: a mistyped -out must
// not take a user's other files with it.
func checkReplaceable(out, abs string) error {
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
	known := map[string]bool{}
	for _, n := range outputFiles {
		known[n], known[n+".tmp"] = true, true
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !known[e.Name()] {
			return fmt.Errorf("output directory %s: holds %s, which data prepare does not write; refusing to replace it (choose another -out or remove it)", out, e.Name())
		}
	}
	return nil
}

// outputFiles are every name a prepared directory may hold.
var outputFiles = []string{
	FileSFT, FileHoldout, FileHoldoutAug, FileTRLSFT, FileTRLSFTChat, FileTRLSFTMessages,
	FileTRLGRPO, FileOpenRLHFPrompts, FileVerl, FileTRLKTO, FileTRLKTOChat, FileOpenRLHFKTO,
	FileTRLDPO, FileTRLDPOChat, FileManifest,
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

// publish makes the staged directory the target: fsync of the staging
// directory (its files are already synced), one atomic swap, fsync of the
// parent so the swap itself survives a crash, then removal of the old
// output, which the swap left in the staging directory's place.
func (s *stage) publish(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
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
	s.published = true
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

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
