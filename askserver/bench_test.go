package askserver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchConfig: the servers' config keeps the user's settings, with the
// database files made absolute, the store replaced and, for the fake
// model, the generator pointed at it.
func TestBenchConfig(t *testing.T) {
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, benchDB(t, "superhero"))
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "serve.json")
	raw := `{"databases": {"superhero": {"sqlite": "` + filepath.ToSlash(rel) + `"}},
		"generator": {"openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
		"api_keys": {"b": {"key": "` + testKey + `"}, "a": {"key": "first-key-0123456789abcdef"}}}`
	if err := os.WriteFile(orig, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(orig)
	if err != nil {
		t.Fatal(err)
	}
	if k := firstKey(cfg); k != "first-key-0123456789abcdef" {
		t.Errorf("firstKey = %q", k)
	}
	store := filepath.Join(dir, "fb.sqlite")
	path, err := benchConfig(orig, cfg, store, "http://127.0.0.1:7/v1", filepath.Join(t.TempDir(), "derived.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Store != store || got.Databases["superhero"].SQLite != benchDB(t, "superhero") ||
		got.Generator.OpenAI == nil || got.Generator.OpenAI.BaseURL != "http://127.0.0.1:7/v1" || len(got.APIKeys) != 2 {
		t.Errorf("derived config %+v", got)
	}
}

func TestBenchStore(t *testing.T) {
	for _, c := range []struct {
		store, over string
		replicas    int
		want        string
		err         error
	}{
		{"/a/fb.sqlite", "", 1, "/a/fb.sqlite", nil},
		{"/a/fb.sqlite", "postgres://u@h/db", 2, "postgres://u@h/db", nil},
		{"/a/fb.sqlite", "", 2, "", ErrReplicasNeedPostgres},
	} {
		got, err := benchStore(c.store, c.over, c.replicas)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("benchStore(%q, %q, %d) = %q, %v", c.store, c.over, c.replicas, got, err)
		}
	}
	if got, _ := benchStore("", "rel.sqlite", 1); !filepath.IsAbs(got) || !strings.HasSuffix(got, "rel.sqlite") {
		t.Errorf("relative -store not made absolute: %q", got)
	}
	if got := StoreName("postgres://u:secret@h/db"); strings.Contains(got, "secret") {
		t.Errorf("StoreName shows the password: %q", got)
	}
}
