//go:build !unix

package experiment

import "io"

// lockRun is a no-op where flock is not available: do not run two
// experiments on one directory at once there.
func lockRun(dir, name string, progress io.Writer) (func(), error) { return func() {}, nil }
