package modelserver

import (
	"flag"
	"io"
	"testing"
)

// -max-body-mib is given in MiB and kept in bytes.
func TestFlags(t *testing.T) {
	s := DefaultServer()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.Flags(fs)
	if got := fs.Lookup("max-body-mib").DefValue; got != "16" {
		t.Errorf("-max-body-mib default %q, want 16", got)
	}
	if err := fs.Parse([]string{"-max-body-mib", "2", "-slots", "4"}); err != nil {
		t.Fatal(err)
	}
	if s.MaxBodyBytes != 2<<20 || s.Slots != 4 {
		t.Errorf("MaxBodyBytes %d, Slots %d", s.MaxBodyBytes, s.Slots)
	}
	if err := fs.Parse([]string{"-max-body-mib", "x"}); err == nil {
		t.Error("-max-body-mib x: no error")
	}
}
