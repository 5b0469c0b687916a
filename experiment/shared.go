package experiment

import "io"

// LockRun takes a run directory's lock as the experiment's own runs do
// (lockRun): for other commands that cache runs by config, so that two
// processes never work on one run at once.
func LockRun(dir, name string, progress io.Writer) (unlock func(), err error) {
	return lockRun(dir, name, progress)
}

// StatOf summarises xs as the reports' Stat (mean, sample standard
// deviation, range), for other commands' reports over seeds.
func StatOf(xs []float64) Stat { return stat(xs) }

// CountTestReads counts the reads recorded in out's TestReadsFile of the
// file with SHA-256 sum, and all reads, without recording one.
func CountTestReads(out, sum string) (forSum, all int, err error) {
	return testReads(out, TestRead{SHA256: sum}, false)
}

// ParseSeeds reads a comma-separated list of seeds, as -seeds takes them.
func ParseSeeds(s string) ([]uint64, error) { return parseSeeds(s) }
