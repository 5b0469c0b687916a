package birdtrain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	b, data, err := Load(Name)
	if err != nil {
		t.Fatal(err)
	}
	dbs := map[string]bool{}
	for _, ex := range b.Examples {
		dbs[ex.DBID] = true
		if ex.DBID == "superhero" || ex.DBID == "student_club" {
			t.Fatalf("question %d is on %s, a BIRD dev database: the human test's databases must stay unseen", ex.QuestionID, ex.DBID)
		}
	}
	if len(b.Examples) != 6601 || len(dbs) != 69 || len(data) != len(trainJSON) {
		t.Errorf("%d questions over %d databases, want 6601 over 69", len(b.Examples), len(dbs))
	}
	file := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(file, []byte(`[{"question_id": 3, "db_id": "zoo", "question": "q", "SQL": "SELECT 1"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _, err := Load(file); err != nil || len(b.Examples) != 1 {
		t.Errorf("a file: %v, %v", b, err)
	}
	if _, _, err := Load("no/such.json"); err == nil || !strings.Contains(err.Error(), "no/such.json") || !strings.Contains(err.Error(), Name) {
		t.Errorf("a missing file: %v", err)
	}
}
