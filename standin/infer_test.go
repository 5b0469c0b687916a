package standin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/internal/testkit"
	"github.com/sqlrl/sqlrl/sqlexec"
)

func TestInfer(t *testing.T) {
	for _, tc := range []struct {
		name string
		sqls []string
		want []string // CREATE TABLE statements, in order
	}{
		{"aliases, join key, value, numeric",
			[]string{"SELECT T1.title FROM movies AS T1 INNER JOIN ratings AS T2 ON T2.movie_id = T1.movie_id WHERE T2.score > 3 AND T1.title = 'Heat'"},
			[]string{
				`CREATE TABLE "movies" ("title" TEXT, "movie_id" INTEGER PRIMARY KEY)`,
				`CREATE TABLE "ratings" ("movie_id" INTEGER, "score" REAL, FOREIGN KEY ("movie_id") REFERENCES "movies" ("movie_id"))`,
			}},
		{"one table: bare columns, IN values, aggregates, column alias",
			[]string{"SELECT COUNT(id) AS n, SUM(price) FROM item WHERE colour IN ('red', 'blue') ORDER BY n"},
			[]string{`CREATE TABLE "item" ("id" TEXT PRIMARY KEY, "price" REAL, "colour" TEXT)`}},
		{"keyword column, quoted names, double-quoted string",
			[]string{"SELECT T1.first, T2.`Sub-product` FROM client T1 JOIN events T2 ON T1.client_id = T2.Client_ID WHERE T1.last = \"Hicks\""},
			[]string{
				`CREATE TABLE "client" ("first" TEXT, "client_id" INTEGER PRIMARY KEY, "last" TEXT)`,
				`CREATE TABLE "events" ("Sub-product" TEXT, "Client_ID" INTEGER, FOREIGN KEY ("Client_ID") REFERENCES "client" ("client_id"))`,
			}},
		{"a subquery's alias is no table; comma joins",
			[]string{"SELECT T.n FROM (SELECT COUNT(*) AS n FROM a) AS T", "SELECT a.x FROM a, b WHERE a.x = b.y"},
			[]string{`CREATE TABLE "a" ("x" TEXT, FOREIGN KEY ("x") REFERENCES "b" ("y"))`, `CREATE TABLE "b" ("y" TEXT)`}},
		{"a table no gold reads a column of gets a key",
			[]string{"SELECT COUNT(*) FROM visit"},
			[]string{`CREATE TABLE "visit" ("id" INTEGER PRIMARY KEY)`}},
		{"a bare column of a two-table query goes where another query put it",
			[]string{"SELECT name FROM p JOIN q ON p.qid = q.id", "SELECT name FROM q"},
			[]string{`CREATE TABLE "p" ("qid" INTEGER, FOREIGN KEY ("qid") REFERENCES "q" ("id"))`, `CREATE TABLE "q" ("id" INTEGER PRIMARY KEY, "name" TEXT)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Infer(map[string][]string{"db": tc.sqls})
			var got []string
			for _, tb := range s[0].Tables {
				got = append(got, ddl(tb))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	exs := []dataset.Example{
		{QuestionID: 7, DBID: "shop", Question: "How many red\titems?", Evidence: "red refers to colour = 'red'", SQL: "SELECT COUNT(*) FROM item WHERE colour = 'red'"},
		{QuestionID: 9, DBID: "shop", Question: "Which colours?", SQL: "SELECT DISTINCT colour FROM item"},
		{QuestionID: 11, DBID: "shop", Question: "Broken", SQL: "SELECT item.colour FROM item WHERE EXISTS (SELECT 1 FROM nowhere WHERE"},
		{QuestionID: 12, DBID: "zoo", Question: "Two lines", SQL: "SELECT name\nFROM animal"},
	}
	var calls int
	sum, err := Build(context.Background(), exs, Options{Dir: dir, Split: "train", Progress: func(done, total int) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != 2 || sum.Dropped["does not run on the stand-in"] != 1 || sum.Dropped["line break in the gold"] != 1 || calls != 3 {
		t.Errorf("summary %+v, progress calls %d", sum, calls)
	}
	b, err := dataset.Load(dir, "train")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Examples) != 2 || b.Examples[0].QuestionID != 7 || b.Examples[0].Question != "How many red items?" {
		t.Fatalf("examples %+v", b.Examples)
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot})
	defer eng.Close()
	r, err := eng.Query(context.Background(), "shop", "SELECT colour FROM item")
	if err != nil || len(r.Rows) != 1 || r.Rows[0][0].Display() != "red" {
		t.Fatalf("stand-in rows %v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "train_databases", "zoo")); err == nil {
		t.Error("zoo, none of whose questions is kept, has a stand-in")
	}
	if _, err := Build(context.Background(), exs, Options{Dir: dir, Split: "train"}); !errors.Is(err, ErrExists) {
		t.Errorf("a second Build into the same split: %v, want ErrExists", err)
	}
	if _, err := Build(context.Background(), exs, Options{Dir: dir, Split: "general", DBRoot: b.DBRoot}); !errors.Is(err, ErrExists) {
		t.Errorf("a Build over an existing database: %v, want ErrExists", err)
	}
}

// TestInferNeverPanics: every prefix of the sample's golds (cut SQL, as
// a file may hold) is read without a panic, and the whole golds give a
// stand-in on which every one runs.
func TestInferNeverPanics(t *testing.T) {
	b, err := dataset.LoadQuestions(filepath.Join(testkit.BirdSample(), "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cut []string
	for _, ex := range b.Examples {
		for i := 0; i < len(ex.SQL); i += 7 {
			cut = append(cut, ex.SQL[:i])
		}
	}
	Infer(map[string][]string{"cut": cut, "odd": {"", "SELECT", "FROM", "a.", "JOIN (", ") AS", "SELECT * FROM t AS", "x = 'y"}})
	sum, err := Build(context.Background(), b.Examples, Options{Dir: t.TempDir(), Split: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != len(b.Examples) {
		t.Errorf("%d of %d golds run on their stand-ins: %v", sum.Kept, len(b.Examples), sum.Dropped)
	}
}
