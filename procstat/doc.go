// Package procstat reports what the running process has used: CPU time
// and peak resident memory, for reports that state a command's cost.
package procstat
