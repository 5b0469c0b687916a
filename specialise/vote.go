package specialise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/consensus"
	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/export"
	"github.com/sqlrl/sqlrl/progress"
	"github.com/sqlrl/sqlrl/train"
)

// DefaultVote is how the served model answers unless told otherwise:
// its greedy decode and the 8 samples the server draws for an answer's
// confidence anyway (askserver.DefaultSamples at its default temperature
// and nucleus), executed, the largest group of equal results winning.
// Chosen on the synthetic dev split (docs/dbgen.md, "Answering by vote").
func DefaultVote() consensus.Sampling {
	return consensus.Sampling{Samples: askserver.DefaultSamples, Temperature: askserver.DefaultSampleTemp, TopP: consensus.TopP}
}

// QuickVote is -quick's vote: two samples, enough to run the machinery.
func QuickVote() consensus.Sampling {
	v := DefaultVote()
	v.Samples = 2
	return v
}

// DevVote is the served model's synthetic dev EX answering by Vote, kept
// in DevVoteFile so that a rerun does not decode it again.
type DevVote struct {
	Model   string             `json:"model"`
	Vote    consensus.Sampling `json:"vote"`
	SHA256  string             `json:"dev_sha256"`
	Eval    *train.Eval        `json:"eval"`
	Seconds float64            `json:"seconds"`
}

// devVote scores model on every synthetic dev question answering by
// o.Vote, or returns the record of the same evaluation made before.
func devVote(ctx context.Context, o Options, model string) (*DevVote, error) {
	dev := filepath.Join(o.Out, DataDir, "dev.json")
	path := filepath.Join(o.Out, DevVoteFile)
	sum, err := export.FileSHA256(dev)
	if err != nil {
		return nil, fmt.Errorf("specialise: dev by vote: %w", err)
	}
	var have DevVote
	if b, err := os.ReadFile(path); err == nil {
		if json.Unmarshal(b, &have) == nil && have.Model == model && have.Vote == o.Vote && have.SHA256 == sum && have.Eval != nil {
			stage(o.Progress, "dev by vote: done before")
			return &have, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("specialise: %w", err)
	}
	bench, err := dataset.LoadQuestions(dev)
	if err != nil {
		return nil, fmt.Errorf("specialise: dev by vote: %w", err)
	}
	stage(o.Progress, fmt.Sprintf("evaluate the served model on %d dev questions, answering by %s", len(bench.Examples), o.Vote))
	o.setThreads()
	start := time.Now()
	bar := progress.New(o.Progress, "dev by vote", len(bench.Examples))
	ev, err := train.EvalQuestions(ctx, model, filepath.Join(o.Out, DataDir, "dev_databases"), bench.Examples, train.EvalOptions{Vote: o.Vote, Progress: bar.Func()})
	bar.Finish()
	if err != nil {
		return nil, fmt.Errorf("specialise: dev by vote: %w", err)
	}
	stage(o.Progress, "dev by vote: "+ev.String())
	dv := &DevVote{Model: model, Vote: o.Vote, SHA256: sum, Eval: ev, Seconds: time.Since(start).Seconds()}
	out, err := json.MarshalIndent(dv, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(path, append(out, '\n')); err != nil {
		return nil, fmt.Errorf("specialise: %w", err)
	}
	return dv, nil
}
