//go:build unix

package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// lockRun takes the run directory's lock, so that two experiments on one
// directory (the flywheel and the studies share runs) never train the
// same run at once: the second waits for the first to finish it, and
// then finds its result. The lock is the kernel's (flock): a killed
// process holds it no more.
func lockRun(dir, name string, progress io.Writer) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, "run.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("experiment: lock %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("experiment: lock %s: %w", dir, err)
		}
		fmt.Fprintf(progress, "%s: another process is running it; waiting for it\n", name)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("experiment: lock %s: %w", dir, err)
		}
	}
	return func() { f.Close() }, nil
}
