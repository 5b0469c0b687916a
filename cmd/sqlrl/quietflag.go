package main

import (
	"flag"
	"io"
	"os"
)

// quietFlag declares -q for every command that reports progress on stderr.
func quietFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("q", false, "no progress on stderr")
}

// progressTo is where progress goes: stderr unless quiet.
func progressTo(quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return os.Stderr
}
