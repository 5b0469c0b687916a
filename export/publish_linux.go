//go:build linux && (amd64 || arm64)

package export

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

const renameExchange = 1 << 1 // RENAME_EXCHANGE from <linux/fs.h>

// exchange swaps a and b in one renameat2(RENAME_EXCHANGE): at every
// instant b is either the old or the new directory.
func exchange(a, b string) error {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return err
	}
	atFDCWD := -100
	_, _, e := syscall.Syscall6(sysRenameat2, uintptr(atFDCWD), uintptr(unsafe.Pointer(pa)),
		uintptr(atFDCWD), uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	switch {
	case e == 0:
		return nil
	case e == syscall.ENOSYS || e == syscall.EINVAL:
		// An old kernel, or a file system without exchange support.
		return errors.Join(errNoExchange, e)
	}
	return &os.LinkError{Op: "renameat2", Old: a, New: b, Err: e}
}
