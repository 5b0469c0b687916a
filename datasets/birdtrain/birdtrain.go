// Package birdtrain holds BIRD's public train questions (Li et al. 2023,
// CC BY-SA 4.0; README.md says which copy), embedded so that every build
// of sqlrl can train on how people ask without a download: 6,601
// human-written questions with evidence and gold SQL over 69 databases,
// none of them a BIRD dev database. Their databases are not here; package
// standin builds stand-ins from the golds.
package birdtrain

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/sqlrl/sqlrl/dataset"
)

//go:embed train.json
var trainJSON []byte

// Name is how commands name the embedded file (specialise -general,
// bench from-questions -questions).
const Name = "bird-train"

// Load reads a BIRD-layout question file, or the embedded questions when
// name is Name, and returns them with the file's bytes (for a stamp of
// what was read).
func Load(name string) (*dataset.Benchmark, []byte, error) {
	data := trainJSON
	if name != Name {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, fmt.Errorf("load %w (or %s: BIRD's train questions, built in)", err, Name)
		}
		data = b
	}
	b, err := dataset.ParseBIRDQuestions(name, data)
	if err != nil {
		return nil, nil, err
	}
	return b, data, nil
}
