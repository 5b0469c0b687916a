// Package tokenizer is sqlrl's byte-level BPE tokenizer, trained on the
// project's own corpus (prompts and SQL) and saved beside a checkpoint in
// its own JSON format.
//
// Text is first split into chunks that merges never cross, chosen so that
// a model can copy schema names it has never seen from its prompt into its
// SQL token by token:
//
//   - runs of ASCII letters, split at case changes ("camelCase" -> "camel",
//     "Case"; "HTTPServer" -> "HTTP", "Server"), so identifier pieces are
//     shared between names;
//   - "_" alone, so "given_name" is "given", "_", "name" wherever it occurs;
//   - each digit alone, so numbers copy digit by digit;
//   - runs of other ASCII bytes (spaces, punctuation, newlines), so " = '"
//     or ", " can become one token while a word is the same token after a
//     space, a quote, a dot or a parenthesis;
//   - runs of non-ASCII bytes (UTF-8 text).
//
// Long runs are cut every 32 bytes. Every byte has a token, so any byte
// string, valid UTF-8 or not, encodes and decodes back exactly.
package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/sqlrl/sqlrl/atomicfile"
)

// Format is the "format" field of a saved tokenizer.
const Format = "sqlrl-bpe-v1"

// EndOfText is the name of the end token a model emits after a completion.
const EndOfText = "<|endoftext|>"

const maxChunk = 32

// Tokenizer is a trained byte-level BPE. It is safe for concurrent use.
type Tokenizer struct {
	merges  [][2]int32
	rank    map[[2]int32]int32 // pair -> merged token id
	pieces  [][]byte           // token id -> bytes (nil for specials)
	special []string

	mu    sync.RWMutex
	cache map[string][]int32
}

// VocabSize is the number of token ids, specials included.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// EOT is the id of EndOfText.
func (t *Tokenizer) EOT() int32 { return t.SpecialID(EndOfText) }

// SpecialID returns the id of a special token, or -1.
func (t *Tokenizer) SpecialID(name string) int32 {
	for i, s := range t.special {
		if s == name {
			return int32(256 + len(t.merges) + i)
		}
	}
	return -1
}

// IsSpecial reports whether id is a special token.
func (t *Tokenizer) IsSpecial(id int32) bool { return int(id) >= 256+len(t.merges) }

// Piece returns the bytes of token id (nil for a special token).
func (t *Tokenizer) Piece(id int32) []byte { return t.pieces[id] }

func newTokenizer(merges [][2]int32, special []string) (*Tokenizer, error) {
	t := &Tokenizer{merges: merges, rank: make(map[[2]int32]int32, len(merges)), special: special, cache: map[string][]int32{}}
	t.pieces = make([][]byte, 256, 256+len(merges)+len(special))
	for i := range 256 {
		t.pieces[i] = []byte{byte(i)}
	}
	for i, m := range merges {
		id := int32(256 + i)
		if m[0] < 0 || m[1] < 0 || m[0] >= id || m[1] >= id {
			return nil, fmt.Errorf("tokenizer: merge %d (%d, %d) refers to a later token", i, m[0], m[1])
		}
		if _, dup := t.rank[m]; dup {
			return nil, fmt.Errorf("tokenizer: merge %d (%d, %d) repeats", i, m[0], m[1])
		}
		t.rank[m] = id
		t.pieces = append(t.pieces, append(append([]byte(nil), t.pieces[m[0]]...), t.pieces[m[1]]...))
	}
	for range special {
		t.pieces = append(t.pieces, nil)
	}
	return t, nil
}

// class is a byte's chunk class.
func class(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return 1
	case c >= 'A' && c <= 'Z':
		return 2
	case c >= '0' && c <= '9':
		return 3
	case c == '_':
		return 4
	case c >= 0x80:
		return 5
	}
	return 0
}

// Chunks splits s into the pieces that merges never cross.
func Chunks(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := chunkEnd(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// chunkEnd returns the end of the chunk starting at s[i].
func chunkEnd(s string, i int) int {
	c := class(s[i])
	j := i + 1
	switch c {
	case 3, 4: // a digit or "_" alone
		return j
	case 1, 2: // letters with case splits
		for j < len(s) && j-i < maxChunk {
			cj := class(s[j])
			if cj == 1 {
				j++
				continue
			}
			if cj != 2 {
				break
			}
			// an uppercase letter continues only an uppercase run, and
			// not when it starts a capitalised word ("HTTPServer")
			if class(s[j-1]) != 2 {
				break
			}
			if j+1 < len(s) && class(s[j+1]) == 1 {
				break
			}
			j++
		}
		return j
	}
	for j < len(s) && j-i < maxChunk && class(s[j]) == c {
		j++
	}
	return j
}

// Encode returns the token ids of s. Special-token names in s are encoded
// as ordinary text.
func (t *Tokenizer) Encode(s string) []int32 {
	var out []int32
	for i := 0; i < len(s); {
		j := chunkEnd(s, i)
		out = append(out, t.encodeChunk(s[i:j])...)
		i = j
	}
	return out
}

func (t *Tokenizer) encodeChunk(c string) []int32 {
	t.mu.RLock()
	ids, ok := t.cache[c]
	t.mu.RUnlock()
	if ok {
		return ids
	}
	ids = make([]int32, len(c))
	for i := 0; i < len(c); i++ {
		ids[i] = int32(c[i])
	}
	for len(ids) > 1 {
		best, at := int32(-1), -1
		for i := 0; i+1 < len(ids); i++ {
			if id, ok := t.rank[[2]int32{ids[i], ids[i+1]}]; ok && (best < 0 || id < best) {
				best, at = id, i
			}
		}
		if at < 0 {
			break
		}
		pair := [2]int32{ids[at], ids[at+1]}
		w := at
		for r := at; r < len(ids); {
			if r+1 < len(ids) && ids[r] == pair[0] && ids[r+1] == pair[1] {
				ids[w] = best
				r += 2
			} else {
				ids[w] = ids[r]
				r++
			}
			w++
		}
		ids = ids[:w]
	}
	t.mu.Lock()
	if len(t.cache) > 1<<17 {
		t.cache = map[string][]int32{}
	}
	t.cache[c] = ids
	t.mu.Unlock()
	return ids
}

// Decode returns the text of ids; special tokens are left out.
func (t *Tokenizer) Decode(ids []int32) string {
	var b []byte
	for _, id := range ids {
		if id >= 0 && int(id) < len(t.pieces) {
			b = append(b, t.pieces[id]...)
		}
	}
	return string(b)
}

// saved is the JSON form.
type saved struct {
	Format      string     `json:"format"`
	Pretokenize string     `json:"pretokenizer"`
	VocabSize   int        `json:"vocab_size"`
	Merges      [][2]int32 `json:"merges"`
	Special     []string   `json:"special"`
}

const pretokenizer = "ascii-letters-case-split,underscore,digit,punct-run,nonascii-run;max32"

// MarshalJSON writes the tokenizer in sqlrl's format: the merges in rank
// order (token 256+i is merge i) and the special tokens, which follow.
func (t *Tokenizer) MarshalJSON() ([]byte, error) {
	return json.Marshal(saved{Format: Format, Pretokenize: pretokenizer, VocabSize: t.VocabSize(), Merges: t.merges, Special: t.special})
}

// Parse reads a tokenizer written by MarshalJSON.
func Parse(data []byte) (*Tokenizer, error) {
	var s saved
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if s.Format != Format {
		return nil, fmt.Errorf("tokenizer: format %q, want %q", s.Format, Format)
	}
	if s.Pretokenize != pretokenizer {
		return nil, fmt.Errorf("tokenizer: pre-tokenizer %q, this build has %q", s.Pretokenize, pretokenizer)
	}
	t, err := newTokenizer(s.Merges, s.Special)
	if err != nil {
		return nil, err
	}
	if s.VocabSize != t.VocabSize() {
		return nil, fmt.Errorf("tokenizer: vocab_size %d, merges and specials give %d", s.VocabSize, t.VocabSize())
	}
	return t, nil
}

// Load reads a tokenizer file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Save writes the tokenizer to path atomically.
func (t *Tokenizer) Save(path string) error {
	data, err := t.MarshalJSON()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// TrainOptions configure Train.
type TrainOptions struct {
	// VocabSize is the target number of tokens, the 256 bytes and the
	// specials included.
	VocabSize int
	// MinCount stops merging when the best pair occurs fewer times
	// (default 2).
	MinCount int
	// Special lists special tokens (default: EndOfText).
	Special []string
}

// Train learns merges from texts: the most frequent adjacent pair inside
// chunks is merged first (ties broken by the smaller ids), until the
// vocabulary is full or no pair occurs MinCount times. The same texts and
// options always give the same tokenizer.
func Train(texts []string, opts TrainOptions) (*Tokenizer, error) {
	if opts.MinCount <= 0 {
		opts.MinCount = 2
	}
	if opts.Special == nil {
		opts.Special = []string{EndOfText}
	}
	nMerges := opts.VocabSize - 256 - len(opts.Special)
	if nMerges < 0 {
		return nil, errors.New("tokenizer: vocabulary smaller than 256 bytes plus the special tokens")
	}
	counts := map[string]int{}
	for _, s := range texts {
		for i := 0; i < len(s); {
			j := chunkEnd(s, i)
			counts[s[i:j]]++
			i = j
		}
	}
	type word struct {
		ids []int32
		n   int
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	words := make([]word, 0, len(keys))
	for _, k := range keys {
		if len(k) < 2 {
			continue
		}
		ids := make([]int32, len(k))
		for i := 0; i < len(k); i++ {
			ids[i] = int32(k[i])
		}
		words = append(words, word{ids, counts[k]})
	}
	var merges [][2]int32
	pairs := map[[2]int32]int{}
	for len(merges) < nMerges {
		clear(pairs)
		for _, w := range words {
			for i := 0; i+1 < len(w.ids); i++ {
				pairs[[2]int32{w.ids[i], w.ids[i+1]}] += w.n
			}
		}
		var best [2]int32
		bestN := 0
		for p, n := range pairs {
			if n > bestN || n == bestN && (p[0] < best[0] || p[0] == best[0] && p[1] < best[1]) {
				best, bestN = p, n
			}
		}
		if bestN < opts.MinCount {
			break
		}
		id := int32(256 + len(merges))
		merges = append(merges, best)
		for wi := range words {
			ids := words[wi].ids
			w := 0
			for r := 0; r < len(ids); {
				if r+1 < len(ids) && ids[r] == best[0] && ids[r+1] == best[1] {
					ids[w] = id
					r += 2
				} else {
					ids[w] = ids[r]
					r++
				}
				w++
			}
			words[wi].ids = ids[:w]
		}
		// drop words that are one token: they hold no pairs any more
		k := 0
		for _, w := range words {
			if len(w.ids) > 1 {
				words[k] = w
				k++
			}
		}
		words = words[:k]
	}
	return newTokenizer(merges, opts.Special)
}
