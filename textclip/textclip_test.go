package textclip

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc..."},
		{"abcd", 0, "..."},
		{"abcd", -1, "..."},
		{"héllo", 2, "hé..."}, // é is two bytes: kept whole
		{"日本語のテキスト", 3, "日本語..."}, // three-byte runes
		{"日本語", 3, "日本語"},         // 9 bytes but 3 runes: not cut
		{"a😀b", 2, "a😀..."},       // four-byte rune
		{"a\xffb", 1, "a..."},     // invalid byte counts as one rune
		{"line one\nline two", 8, "line one..."},
	}
	for _, tc := range tests {
		got := Clip(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if utf8.ValidString(tc.s) && !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q: cut inside a rune", tc.s, tc.n, got)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"  a\n\tb  ", 10, "a b"},
		{"SELECT *\nFROM t\nWHERE x = 'ü'", 12, "SELECT * FRO..."},
		{"ü ü ü", 3, "ü ü..."},
	}
	for _, tc := range tests {
		if got := Line(tc.s, tc.n); got != tc.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
