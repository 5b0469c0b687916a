//go:build !unix

package export

// processAlive cannot tell here, so it says yes: a staging directory is
// only removed when its run is known to be dead.
func processAlive(pid int) bool { return true }
