package prompt

import (
	"unicode"
	"unicode/utf8"
)

// TokenCounter counts the tokens a text costs in a model's context. The
// budget and the pruning only need a count, not the tokens, so any tokenizer
// (sqlrl's own, when it lands, or a model's) plugs in through this one method.
type TokenCounter interface {
	Count(s string) int
}

// Approx is the default TokenCounter: an estimate that needs no vocabulary,
// so prompts can be budgeted before any model is chosen. It follows how the
// byte-pair vocabularies of current chat models split text: a run of ASCII
// letters costs one token per 6 letters (rounded up: common words are one
// token, long identifiers several), a run of digits one per 3 digits, every
// punctuation mark and every non-ASCII character one token, and whitespace
// nothing except that a run containing line breaks costs one.
//
// It leans high on purpose, so that a budget computed with it holds with a
// real tokenizer: on the BIRD dev-sample prompts it counts more than
// tiktoken's cl100k_base and o200k_base do; short SQL strings can come out
// a little low. Vocabularies that split numbers into
// single digits (Qwen's) cost more on digit-heavy text than it estimates.
type Approx struct{}

// Count implements TokenCounter.
func (Approx) Count(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isASCIILetter(c):
			j := i + 1
			for j < len(s) && isASCIILetter(s[j]) {
				j++
			}
			n += (j - i + 5) / 6
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			j, nl := i, false
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				nl = nl || s[j] == '\n'
				j++
			}
			if nl {
				n++
			}
			i = j
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				n++
			}
			i += size
		}
	}
	return n
}

func isASCIILetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
