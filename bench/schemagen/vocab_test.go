package schemagen

import "testing"

// TestVocabularyLoads fails with the parser's message when a domain line
// is malformed.
func TestVocabularyLoads(t *testing.T) {
	v, err := loadVocab()
	if err != nil {
		t.Fatal(err)
	}
	if len(v) < 40 {
		t.Errorf("%d domains, want at least 40", len(v))
	}
}
