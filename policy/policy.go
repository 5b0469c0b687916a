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
//	config.json     format, model architecture, prompt format, provenance,
//	                model.bin's SHA-256
//	tokenizer.json  the BPE tokenizer (package tokenizer's format)
//	model.bin       the parameters (package nn's tensor file)
//
// and, when written by the trainer, optimizer.bin and state.json for an
// exact resume; a PPO run adds its value head, value.bin and
// value_optimizer.bin (SaveValueHead), which Load ignores. A run directory
// written by `sqlrl train` holds several checkpoints and a file "latest"
// naming the newest; an experiment's run directory holds its trainer's run
// in train/. Load accepts any of them (Resolve).
package policy

import (
	"crypto/sha256"
	"encoding/hex"
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
	// ModelSHA256 is the SHA-256 of model.bin, written by Save and
	// checked by Load, so that a model.bin that is not the one saved with
	// this config (copied over, edited) is refused. A checkpoint saved
	// before it existed has none and loads unchecked (the tensor file's
	// own CRC still guards against a torn or cut file).
	ModelSHA256 string `json:"model_sha256,omitempty"`
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

// RunTrainDir is the folder of an experiment's run directory that holds
// its trainer's checkpoints (runs/<ID>/train, beside the run's own
// config.json): RL and flywheel runs are named by their run directory.
const RunTrainDir = "train"

// Resolve returns the checkpoint directory dir names: dir itself, the
// checkpoint its "latest" file names (a run of `sqlrl train`), or that of
// its train/ folder (an experiment's run directory, whose own config.json
// describes the run, not a model). A "latest" that is empty, names a path
// (anything but a directory of its own, so never one outside the run), or
// names a directory that is not a checkpoint is an error that says so: the
// run directory is damaged, and reading on would load something else or
// nothing. A directory holding several checkpoints or runs is an error
// that names them, so that the caller picks one.
func Resolve(dir string) (string, error) {
	ck, found, err := resolve(dir)
	if found || err != nil {
		return ck, err
	}
	if cands := candidates(dir); len(cands) > 0 {
		return "", fmt.Errorf("%s: not a checkpoint (no %s) nor a run directory (no %s); it holds %s: name one of them",
			dir, FileConfig, FileLatest, strings.Join(cands, ", "))
	}
	return "", fmt.Errorf("%s: not a checkpoint (no %s) nor a run directory (no %s)", dir, FileConfig, FileLatest)
}

// resolve is Resolve without the search for candidates: found is false
// when dir is neither a checkpoint nor a run (nothing wrong in it).
func resolve(dir string) (ck string, found bool, err error) {
	if isCheckpoint(dir) {
		return dir, true, nil
	}
	latest := filepath.Join(dir, FileLatest)
	b, err := os.ReadFile(latest)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return "", true, err
		}
		if sub := filepath.Join(dir, RunTrainDir); isDir(sub) {
			if ck, found, err := resolve(sub); found {
				return ck, true, err
			}
		}
		return "", false, nil
	}
	name := strings.TrimSpace(string(b))
	switch {
	case name == "":
		return "", true, fmt.Errorf("%s is empty: it should name the run's newest checkpoint", latest)
	case name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") || filepath.IsAbs(name) || filepath.VolumeName(name) != "":
		return "", true, fmt.Errorf("%s names %q, not a checkpoint directory inside the run", latest, name)
	}
	ck = filepath.Join(dir, name)
	if _, err := os.Stat(filepath.Join(ck, FileConfig)); err != nil {
		return "", true, fmt.Errorf("%s names %q, which is not a checkpoint: %w", latest, name, err)
	}
	return ck, true, nil
}

// isCheckpoint reports whether dir holds a checkpoint: a config.json in
// the checkpoint format, or one beside a model.bin (Load then says what is
// wrong with it). An experiment run's config.json is neither.
func isCheckpoint(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, FileConfig)); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, FileModel)); err == nil {
		return true
	}
	info, err := ReadInfo(dir)
	return err == nil && info.Format == CheckpointFormat
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// candidates names the folders below dir (one level, or two where the
// first holds none, as an experiment's out/runs/<ID>) that are
// checkpoints or runs, relative to dir, sorted.
func candidates(dir string) []string {
	var out []string
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		entries, err := os.ReadDir(filepath.Join(dir, rel))
		if err != nil {
			return
		}
		var sub []string
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			r := filepath.Join(rel, e.Name())
			if _, found, _ := resolve(filepath.Join(dir, r)); found {
				out = append(out, r)
			} else {
				sub = append(sub, r)
			}
		}
		if depth == 0 && len(out) == 0 {
			for _, r := range sub {
				walk(r, 1)
			}
		}
	}
	walk("", 0)
	return out
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

// ReadInfo reads checkpoint directory ck's config.json: the one reader
// of a checkpoint's description, for Load and for what needs only that
// (a run's starting step) without the weights.
func ReadInfo(ck string) (Info, error) {
	var info Info
	path := filepath.Join(ck, FileConfig)
	data, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}

// Load reads a checkpoint (or the latest checkpoint of a run directory).
func Load(dir string) (*Policy, error) {
	dir, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	info, err := ReadInfo(dir)
	if err != nil {
		return nil, err
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
	params, err := loadModel(dir, info)
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
// atomically, config.json last: it records model.bin's SHA-256, and a
// directory with config.json is a checkpoint to Resolve.
func (p *Policy) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	h := sha256.New()
	if err := atomicfile.Write(filepath.Join(dir, FileModel), func(w io.Writer) error {
		h.Reset()
		return nn.WriteFloats(io.MultiWriter(w, h), p.Model.Params)
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
	p.Info.Format = CheckpointFormat
	p.Info.Model = p.Model.Cfg
	p.Info.Params = p.Model.Cfg.NumParams()
	p.Info.ModelSHA256 = hex.EncodeToString(h.Sum(nil))
	cfg, err := json.MarshalIndent(p.Info, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, FileConfig), func(w io.Writer) error {
		_, err := w.Write(append(cfg, '\n'))
		return err
	})
}

// loadModel reads dir's model.bin, checking it against the SHA-256 in
// config.json when there is one.
func loadModel(dir string, info Info) ([]float32, error) {
	path := filepath.Join(dir, FileModel)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	params, err := nn.ReadFloats(io.TeeReader(f, h), info.Model.NumParams())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if info.ModelSHA256 != "" {
		if got := hex.EncodeToString(h.Sum(nil)); got != info.ModelSHA256 {
			return nil, fmt.Errorf("%s: SHA-256 %s, but %s records %s: not the model saved with this checkpoint", path, got, FileConfig, info.ModelSHA256)
		}
	}
	return params, nil
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
