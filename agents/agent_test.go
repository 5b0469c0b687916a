package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadTemplates: a file under dir/<set>/ replaces its role's built-in
// template and only that one; a template that names a field PromptData
// lacks, or does not parse, fails at load naming the file.
func TestLoadTemplates(t *testing.T) {
	d := PromptData{Prompt: "PROMPT\nSQL: ", Question: "q", SQL: "SELECT 1", Result: "1 row", Kind: ValidateJoin}
	builtin, err := LoadTemplates(SetNative, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		set   string
		files map[string]string // path under dir -> body
		want  map[string]string // role -> rendered d; roles absent render as built-in
		err   []string          // substrings of the error, "" for the file's path
	}{
		{name: "one role replaced", set: SetNative, files: map[string]string{"native/validator.tmpl": "V {{.Kind}} {{.SQL}}"},
			want: map[string]string{RoleValidator: "V join SELECT 1"}},
		{name: "other set's file ignored", set: SetNative, files: map[string]string{"chat/planner.tmpl": "C {{.Prompt}}"}},
		{name: "unknown field", set: SetChat, files: map[string]string{"chat/fixer.tmpl": "{{.Prompt}} {{.Hint}}"},
			err: []string{"", "Hint"}},
		{name: "does not parse", set: SetNative, files: map[string]string{"native/selector.tmpl": "{{.A.SQL"}, err: []string{"", "parse template"}},
		{name: "unknown set", set: "json", err: []string{"unknown template set"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var path string
			for name, body := range tt.files {
				path = filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ts, err := LoadTemplates(tt.set, dir)
			if tt.err != nil {
				if err == nil {
					t.Fatal("no error")
				}
				for _, s := range tt.err {
					if s == "" {
						s = path
					}
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, role := range Roles {
				got, err := ts.Render(role, d)
				if err != nil {
					t.Fatal(err)
				}
				want, ok := tt.want[role]
				if !ok {
					want, _ = builtin.Render(role, d)
				}
				if got != want {
					t.Errorf("%s renders %q, want %q", role, got, want)
				}
			}
		})
	}
}

// TestWriteTemplates: the eight built-in templates are written, an
// existing (edited) file is kept, and what was written loads back as the
// built-in set.
func TestWriteTemplates(t *testing.T) {
	dir := t.TempDir()
	edited := filepath.Join(dir, "chat", "selector.tmpl")
	os.MkdirAll(filepath.Dir(edited), 0o755)
	if err := os.WriteFile(edited, []byte("mine {{.A.SQL}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	wrote, err := WriteTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 7 || slices.Contains(wrote, edited) {
		t.Errorf("wrote %v: want the 7 templates other than %s", wrote, edited)
	}
	if b, _ := os.ReadFile(edited); string(b) != "mine {{.A.SQL}}" {
		t.Errorf("the edited template was overwritten: %q", b)
	}
	os.Remove(edited)
	if wrote, err = WriteTemplates(dir); err != nil || len(wrote) != 1 || wrote[0] != edited {
		t.Fatalf("second write: %v, %v; want only %s", wrote, err, edited)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 8 {
		t.Errorf("files %v, want 8", files)
	}
	d := PromptData{Prompt: "P\nSQL: ", Context: "P", Question: "q", SQL: "SELECT 1", Result: "r", Kind: ValidateSelection,
		Feedback: []string{"f"}, A: Shown{"a", "ra"}, B: Shown{"b", "rb"}}
	for _, set := range []string{SetNative, SetChat} {
		fromDir, err := LoadTemplates(set, dir)
		if err != nil {
			t.Fatal(err)
		}
		builtin, _ := LoadTemplates(set, "")
		for _, role := range Roles {
			a, _ := fromDir.Render(role, d)
			b, _ := builtin.Render(role, d)
			if a != b {
				t.Errorf("%s/%s written differs from the built-in", set, role)
			}
		}
	}
}
