// Package textclip shortens text for messages, logs and prompts that quote
// it: whole runes only (a cut never splits a UTF-8 sequence), and a cut is
// marked so a reader knows the quote is partial.
package textclip

import (
	"strings"
	"unicode/utf8"
)

// Mark ends a clipped text.
const Mark = "..."

// Clip returns s when it has at most n runes, and otherwise its first n
// runes followed by Mark. n < 0 counts as 0.
func Clip(s string, n int) string {
	n = max(n, 0)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + Mark
}

// Line is Clip of s on one line: runs of white space, newlines included,
// become one space and the ends are trimmed first.
func Line(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}
