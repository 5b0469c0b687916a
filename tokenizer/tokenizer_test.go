package tokenizer

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var corpus = []string{
	"CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, unit_price REAL)",
	"SELECT first_name, last_name FROM customer WHERE customer_id = 42 AND unit_price > 250",
	"SELECT COUNT(*) FROM orders AS T1 INNER JOIN customer AS T2 ON T1.customer_id = T2.customer_id",
	"Which customers have the first name 'Donald' and the last name 'Harris'?",
	"SELECT AVG(unit_price) FROM product WHERE brand = 'Peakform' AND productName LIKE '%Deluxe%'",
	"Quelle est la moyenne? Größe: 3,5 € — 価格",
}

func train(t testing.TB) *Tokenizer {
	var texts []string
	for range 20 {
		texts = append(texts, corpus...)
	}
	tok, err := Train(texts, TrainOptions{VocabSize: 400})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestChunks(t *testing.T) {
	for in, want := range map[string][]string{
		"given_name":          {"given", "_", "name"},
		"camelCaseName":       {"camel", "Case", "Name"},
		"HTTPServer2":         {"HTTP", "Server", "2"},
		"T1.customer_id = 42": {"T", "1", ".", "customer", "_", "id", " = ", "4", "2"},
		"= 'Beauty' AND":      {"= '", "Beauty", "' ", "AND"},
		"Größe":               {"Gr", "\xc3\xb6\xc3\x9f", "e"},
		"":                    nil,
	} {
		if got := Chunks(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Chunks(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tok := train(t)
	for _, s := range append(corpus, "", " ", "\x00\xff\xfe", "<|endoftext|>", strings.Repeat("a", 100), strings.Repeat(" ", 77), "zzz_qqq_unseen_Identifier9") {
		if got := tok.Decode(tok.Encode(s)); got != s {
			t.Errorf("round trip %q -> %q", s, got)
		}
	}
}

// TestIdentifierPieces checks that an unseen identifier made of known
// words tokenizes into the same pieces as those words elsewhere, so a
// model can copy it.
func TestIdentifierPieces(t *testing.T) {
	tok := train(t)
	name := tok.Encode("name")
	first := tok.Encode("first")
	if len(name) != 1 || len(first) != 1 {
		t.Fatalf("corpus words should be single tokens: name %v first %v", name, first)
	}
	got := tok.Encode("name_first")
	want := slices.Concat(name, tok.Encode("_"), first)
	if !slices.Equal(got, want) {
		t.Errorf("name_first = %v, want %v", got, want)
	}
	// the same word after a space, a quote, a dot or a parenthesis
	for _, ctx := range []string{" first", "'first", ".first", "(first"} {
		ids := tok.Encode(ctx)
		if ids[len(ids)-1] != first[0] {
			t.Errorf("%q ends in %v, want the token of first %v", ctx, ids, first)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	tok := train(t)
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := tok.Save(p); err != nil {
		t.Fatal(err)
	}
	tok2, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if tok2.VocabSize() != tok.VocabSize() || tok2.EOT() != tok.EOT() || tok.EOT() != int32(tok.VocabSize()-1) {
		t.Fatalf("vocab %d/%d eot %d/%d", tok2.VocabSize(), tok.VocabSize(), tok2.EOT(), tok.EOT())
	}
	for _, s := range corpus {
		if !slices.Equal(tok.Encode(s), tok2.Encode(s)) {
			t.Errorf("ids differ after reload for %q", s)
		}
	}
	again := train(t)
	if !reflect.DeepEqual(again.merges, tok.merges) {
		t.Error("training is not deterministic")
	}
	if _, err := Parse([]byte(`{"format":"other"}`)); err == nil {
		t.Error("wrong format accepted")
	}
}

func FuzzRoundTrip(f *testing.F) {
	tok := train(f)
	for _, s := range corpus {
		f.Add(s)
	}
	f.Add("\xff\x00abc_DEF9")
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if got := tok.Decode(ids); got != s {
			t.Fatalf("round trip %q -> %q", s, got)
		}
		for _, id := range ids {
			if tok.IsSpecial(id) {
				t.Fatalf("%q encodes to special token %d", s, id)
			}
		}
	})
}
