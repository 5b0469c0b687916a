package askserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/nn"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/tokenizer"
)

// TestNativePromptsHaveDescriptions: a checkpoint trained with column
// descriptions in its prompts is served with them, read from the
// database_description/ folder beside each configured SQLite file. Served
// without them, the small preset answered 3 of 200 holdout questions right
// against 105 from `sqlrl generate`.
func TestNativePromptsHaveDescriptions(t *testing.T) {
	pol := describedPolicy(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "serve.json")
	conf := fmt.Sprintf(`{"databases": {"heroes": {"sqlite": %q}}, "generator": {"openai": {"base_url": "http://127.0.0.1:1/v1", "model": "m"}}}`, benchDB(t, "superhero"))
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	dbs, err := openDatabases(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer dbs.Close()
	ex := dataset.Example{DBID: "heroes", Question: "how many heroes?"}
	const desc = "[unique identifier superhero]" // the short form of superhero.csv's description of id
	for _, tt := range []struct {
		name    string
		descDir func(string) string
		want    bool
	}{
		{"beside the file", dbs.descriptionDir, true},
		{"none", nil, false},
	} {
		g, err := NewNativeGenerator(pol, dbs, tt.descDir, "tiny", 1, 8)
		if err != nil {
			t.Fatal(err)
		}
		p, err := g.pr.Prompt(context.Background(), ex)
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(p, desc); got != tt.want {
			t.Errorf("%s: prompt mentions %q: %v, want %v\n%s", tt.name, desc, got, tt.want, p)
		}
	}
}

// TestConfiguredDescriptions: a database's "descriptions" folder replaces
// the one beside its file in served prompts; a folder without
// database_description/ is refused, naming the field.
func TestConfiguredDescriptions(t *testing.T) {
	pol := describedPolicy(t)
	descs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(descs, "database_description"), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "original_column_name,column_name,column_description,data_format,value_description\nid,id,the hero's number in the catalogue,integer,\n"
	if err := os.WriteFile(filepath.Join(descs, "database_description", "superhero.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, err string
	}{
		{"configured", descs, ""},
		{"no such folder", t.TempDir(), "databases.heroes.descriptions: no folder database_description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "serve.json")
			conf := fmt.Sprintf(`{"databases": {"heroes": {"sqlite": %q, "descriptions": %q}}, "generator": {"openai": {"base_url": "http://127.0.0.1:1/v1", "model": "m"}}}`, benchDB(t, "superhero"), tc.dir)
			if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("LoadConfig: %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dbs, err := openDatabases(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			defer dbs.Close()
			g, err := NewNativeGenerator(pol, dbs, dbs.descriptionDir, "tiny", 1, 8)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			p, err := g.pr.Prompt(context.Background(), dataset.Example{DBID: "heroes", Question: "how many heroes?"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p, "catalogue") || strings.Contains(p, "[unique identifier superhero]") {
				t.Errorf("prompt should show the configured description, not the one beside the file:\n%s", p)
			}
		})
	}
}

// describedPolicy is an untrained native policy whose prompts show column
// descriptions.
func describedPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	tok, err := tokenizer.Train([]string{"SELECT id FROM superhero", "superhero: id, superhero_name"}, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	cfg := nn.Config{Vocab: tok.VocabSize(), Dim: 16, Layers: 1, Heads: 2, Hidden: 32, MaxSeq: 1024}
	pol, err := policy.New(tok, "", cfg, policy.Format{Kind: policy.FormatCompact, Descriptions: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}
