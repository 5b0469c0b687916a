package rewardserver

import (
	"flag"
	"io"
	"testing"
)

// TestStackSourceLoad: the databases come from -db-root, else from the
// benchmark; a benchmark that does not load is an error only without
// -db-root.
func TestStackSourceLoad(t *testing.T) {
	for _, tt := range []struct {
		name               string
		args               []string
		wantRoot           string
		wantBench, wantErr bool
	}{
		{"benchmark", nil, sampleDir + "/dev_databases", true, false},
		{"db root overrides", []string{"-db-root", "dbs"}, "dbs", true, false},
		{"no benchmark", []string{"-data", "", "-db-root", "dbs"}, "dbs", false, false},
		{"bad benchmark, db root", []string{"-data", "no/such", "-db-root", "dbs"}, "dbs", false, false},
		{"bad benchmark", []string{"-data", "no/such"}, "", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s StackSource
			fs := flag.NewFlagSet("", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			s.Flags(fs, sampleDir)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			so, b, err := s.Load()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (so.DBRoot != tt.wantRoot || (b != nil) != tt.wantBench) {
				t.Errorf("db root %q, benchmark %v; want %q, %v", so.DBRoot, b != nil, tt.wantRoot, tt.wantBench)
			}
		})
	}
}

// TestConfigFlags: -max-body-mib is in MiB, its default New's.
func TestConfigFlags(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Flags(fs)
	if c.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Errorf("default body %d, want %d", c.MaxBodyBytes, DefaultMaxBodyBytes)
	}
	if err := fs.Parse([]string{"-max-body-mib", "2"}); err != nil || c.MaxBodyBytes != 2<<20 {
		t.Errorf("-max-body-mib 2: %d, %v", c.MaxBodyBytes, err)
	}
	if err := fs.Parse([]string{"-max-body-mib", "-1"}); err == nil {
		t.Error("-max-body-mib -1 parsed")
	}
}
