//go:build unix

package export

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid may still be running (signal 0 reaches
// it, or it exists under another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
