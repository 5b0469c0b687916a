// Package birdtrain holds BIRD's public train questions (Li et al. 2023,
// CC BY-SA 4.0; README.md says which copy), embedded so that every build
// of sqlrl can train on how people ask without a download: 6,601
// human-written questions with evidence and gold SQL over 69 databases,
// none of them a BIRD dev database. Their databases are not here; package
// standin builds stand-ins from the golds.
package birdtrain

import (
	"bytes"
	_ "embed"

	"github.com/sqlrl/sqlrl/dataset"
)

//go:embed train.json
var trainJSON []byte

// Name is how commands name the embedded file (specialise -general).
const Name = "bird-train"

// JSON is the question file as published (BIRD's layout, without
// difficulty).
func JSON() []byte { return bytes.Clone(trainJSON) }

// Questions reads the embedded questions.
func Questions() ([]dataset.Example, error) {
	b, err := dataset.ParseBIRDQuestions(Name, trainJSON)
	if err != nil {
		return nil, err
	}
	return b.Examples, nil
}
