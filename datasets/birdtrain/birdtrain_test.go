package birdtrain

import "testing"

func TestQuestions(t *testing.T) {
	exs, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	dbs := map[string]bool{}
	for _, ex := range exs {
		dbs[ex.DBID] = true
		if ex.DBID == "superhero" || ex.DBID == "student_club" {
			t.Fatalf("question %d is on %s, a BIRD dev database: the human test's databases must stay unseen", ex.QuestionID, ex.DBID)
		}
	}
	if len(exs) != 6601 || len(dbs) != 69 {
		t.Errorf("%d questions over %d databases, want 6601 over 69", len(exs), len(dbs))
	}
}
