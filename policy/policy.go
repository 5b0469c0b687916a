// Package policy is sqlrl's native Text2SQL policy: a tokenizer and a
// transformer (package nn) saved together in a checkpoint directory, the
// prompt format they were trained on, batched sampling with a key/value
// cache, the decode loop over a batch of fitted questions (DecodeBatch,
// for any Generator), and batched scoring of completions for the training
// losses (LogProbScorer, ValueScorer). Its OpenAI-compatible HTTP server is
// package modelserver.
//
// A checkpoint directory holds:
//
//	config.json     format, model architecture, prompt format, provenance
//	tokenizer.json  the BPE tokenizer (package tokenizer's format)
//	model.bin       the parameters (package nn's tensor file)
//
// and, when written by the trainer, optimizer.bin and state.json for an
// exact resume; a PPO run adds its value head, value.bin and
// value_optimizer.bin (SaveValueHead), which Load ignores. A run directory
// written by `sqlrl train` holds several checkpoints and a file "latest"
// naming the newest; Load accepts either.
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlrl/sqlrl/atomicfile"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// CheckpointFormat is config.json's "format".
const CheckpointFormat = "sqlrl-policy-v1"

// File names inside a checkpoint directory.
const (
	FileConfig    = "config.json"
	FileTokenizer = "tokenizer.json"
	FileModel     = "model.bin"
	FileLatest    = "latest"
)

// Info is config.json.
type Info struct {
	Format string    `json:"format"`
	Preset string    `json:"preset,omitempty"`
	Model  nn.Config `json:"model"`
	Params int       `json:"params"`
	Prompt Format    `json:"prompt"`
	// Task is what the model writes: empty for SQL (a planner),
	// TaskReview for the question a query answers (a reviewer).
	Task string `json:"task,omitempty"`
	// Step is the training step the weights come from.
	Step int64 `json:"step"`
	// SQLWords are the SQL keywords and functions of the training SQL,
	// which guided decoding holds the model to (sqlparse.NewGuide); empty
	// means SQLite's keywords and the common functions.
	SQLWords []string `json:"sql_words,omitempty"`
	// Notes records provenance (data, seed, command line).
	Notes map[string]string `json:"notes,omitempty"`
}

// Policy is a tokenizer, a model and the prompt format they expect.
type Policy struct {
	Tok   *tokenizer.Tokenizer
	Model *nn.Model
	Info  Info
}

// New returns a policy with freshly initialised weights.
func New(tok *tokenizer.Tokenizer, preset string, cfg nn.Config, format Format, seed uint64) (*Policy, error) {
	if cfg.Vocab != tok.VocabSize() {
		return nil, fmt.Errorf("policy: model vocabulary %d, tokenizer %d", cfg.Vocab, tok.VocabSize())
	}
	m, err := nn.New(cfg, seed)
	if err != nil {
		return nil, err
	}
	return &Policy{Tok: tok, Model: m, Info: Info{Format: CheckpointFormat, Preset: preset, Model: cfg, Params: cfg.NumParams(), Prompt: format}}, nil
}

// Resolve returns the checkpoint directory dir names: dir itself, or the
// checkpoint its "latest" file names.
func Resolve(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, FileConfig)); err == nil {
		return dir, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, FileLatest))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: not a checkpoint (no %s) nor a run directory (no %s)", dir, FileConfig, FileLatest)
		}
		return "", err
	}
	name := strings.TrimSpace(string(b))
	if name == "" || strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("%s: bad %s file %q", dir, FileLatest, name)
	}
	return filepath.Join(dir, name), nil
}

// LoadTokenizer reads the tokenizer of a checkpoint or run directory
// (Resolve), or a tokenizer file itself: measuring text in a model's
// tokens needs no weights.
func LoadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return tokenizer.Load(path)
	}
	dir, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	return tokenizer.Load(filepath.Join(dir, FileTokenizer))
}

// Load reads a checkpoint (or the latest checkpoint of a run directory).
func Load(dir string) (*Policy, error) {
	dir, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	var info Info
	data, err := os.ReadFile(filepath.Join(dir, FileConfig))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileConfig), err)
	}
	if info.Format != CheckpointFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", dir, info.Format, CheckpointFormat)
	}
	tok, err := tokenizer.Load(filepath.Join(dir, FileTokenizer))
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() != info.Model.Vocab {
		return nil, fmt.Errorf("%s: tokenizer has %d tokens, model %d", dir, tok.VocabSize(), info.Model.Vocab)
	}
	params, err := nn.LoadFloats(filepath.Join(dir, FileModel), info.Model.NumParams())
	if err != nil {
		return nil, err
	}
	m, err := nn.FromParams(info.Model, params)
	if err != nil {
		return nil, err
	}
	return &Policy{Tok: tok, Model: m, Info: info}, nil
}

// LoadSQL is Load for a model that will write SQL: it refuses a
// checkpoint trained for another task (a reviewer, Info.Task), which would
// otherwise decode questions where queries are wanted.
func LoadSQL(dir string) (*Policy, error) {
	p, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if p.Info.Task != "" {
		return nil, fmt.Errorf("%s: a checkpoint trained for task %q, not to write SQL", dir, p.Info.Task)
	}
	return p, nil
}

// Save writes the checkpoint files into dir (created if needed), each
// atomically.
func (p *Policy) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p.Info.Format = CheckpointFormat
	p.Info.Model = p.Model.Cfg
	p.Info.Params = p.Model.Cfg.NumParams()
	cfg, err := json.MarshalIndent(p.Info, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, FileConfig), func(w io.Writer) error {
		_, err := w.Write(append(cfg, '\n'))
		return err
	}); err != nil {
		return err
	}
	tj, err := p.Tok.MarshalJSON()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, FileTokenizer), func(w io.Writer) error {
		_, err := w.Write(append(tj, '\n'))
		return err
	}); err != nil {
		return err
	}
	return nn.SaveFloats(filepath.Join(dir, FileModel), p.Model.Params)
}

// Sequence is a tokenized prompt and completion: the completion's tokens
// end with the end-of-text token, which is how the model learns to stop.
type Sequence struct {
	Tokens    []int32
	PromptLen int
	// Shared > 0 marks the first Shared tokens (fewer than PromptLen) as
	// a prefix other sequences of a batch may have too: a LogProbScorer computes
	// such a prefix once for all the sequences that repeat it (questions
	// on one schema, K samples of one prompt).
	Shared int
	// Support, when set, has an entry per completion token (end token
	// included): the tokens it was drawn from (Completion.Support), nil
	// for the whole vocabulary. Each token is then scored under the
	// model's distribution renormalised over its support, the
	// distribution a constrained sampler drew it from (nn.Batch.Support).
	Support [][]int32
}

// Sequence tokenizes prompt and completion separately (as sampling sees
// them) and appends the end token.
func (p *Policy) Sequence(prompt, completion string) Sequence {
	pt := p.Tok.Encode(prompt)
	ct := p.Tok.Encode(completion)
	toks := make([]int32, 0, len(pt)+len(ct)+1)
	toks = append(append(append(toks, pt...), ct...), p.Tok.EOT())
	return Sequence{Tokens: toks, PromptLen: len(pt)}
}
