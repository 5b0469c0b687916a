package dataset

import (
	"errors"
	"fmt"
	"path/filepath"
)

// SplitTest is the sealed split of a benchmark in BIRD's layout (sqlrl's
// generated benchmarks have one, `sqlrl bench generate`): questions on
// databases no other split uses, kept for a claim's final evaluation.
// Training, selection and dev evaluation never read it: the loaders
// (Load, LoadBIRD, LoadSplit, and every command built on them) refuse it,
// and LoadTest is the one reader, so that each read is an explicit act
// (grep LoadTest) that `sqlrl experiment` counts in its report. A
// Spider-layout directory's "test" is that benchmark's own and is not
// sealed.
const SplitTest = "test"

// ErrSealed is what the loaders return (errors.Is) for SplitTest.
var ErrSealed = errors.New("the test split is sealed")

// sealedError says which directory's test split was refused and how a
// final evaluation reads it.
func sealedError(dir string) error {
	return fmt.Errorf("load %s: %w: training, selection and dev evaluation never read it; a pre-registered study's final evaluation does (sqlrl experiment study -final-test, docs/results.md \"Protocol\"), and counts each read", filepath.Join(dir, SplitTest+".json"), ErrSealed)
}

// LoadTest reads the sealed test split of the BIRD-layout benchmark in
// dir. It is the one way to read it: call it only for a final evaluation
// whose reads are recorded.
func LoadTest(dir string) (*Benchmark, error) { return loadBIRD(dir, SplitTest) }
