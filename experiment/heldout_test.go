package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportHeldOut: the okto studies with RL on half the holdout report
// the split heldout, say so in the RL line, fill its cells for the arms
// that never saw it and leave those of SFT-100 empty, without failing.
func TestReportHeldOut(t *testing.T) {
	bench, out := fakeBench(t, "dev"), t.TempDir()
	o := fixedOptions(bench, out, &fake{})
	o.Preset.RL.Pool = PoolFor(o.Preset.RL.Fraction, 0.5)
	if _, err := Execute(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, want := range []string{
		"dev splits dev, heldout.",
		"on 50% of the holdout (SFT share 0.75; the other 50% is the split heldout",
		"### final on heldout\n\n| arm | simple | moderate | challenging | total |\n|---|---|---|---|---|\n| SFT-100 | - | - | - | - |\n| SFT-75 | ",
		"(heldout): ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md does not say %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "bars-final-heldout.svg")); err != nil {
		t.Error(err)
	}
}
