package translate

import (
	"context"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// OpenPostgresGold opens PostgreSQL as o says and rewrites the gold SQL of
// exs for it (Catalog.Gold): a line of dialectFile (ReadGoldDialectFile)
// wins, then "SQL_postgres" in the question file questions
// (ReadSQLPostgres), else the SQLite gold is translated. Empty names read
// nothing. The catalog is returned to translate predictions as the gold
// was.
func OpenPostgresGold(ctx context.Context, o sqlexec.PostgresOptions, exs []dataset.Example, questions, dialectFile string) (*sqlexec.Postgres, *Catalog, error) {
	eng, err := sqlexec.NewPostgres(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	var over GoldOverrides
	if questions != "" {
		if over.ByIndex, err = ReadSQLPostgres(questions); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	if dialectFile != "" {
		if over.ByQuestionID, err = ReadGoldDialectFile(dialectFile); err != nil {
			eng.Close()
			return nil, nil, err
		}
	}
	cat := NewCatalog(eng)
	if err := cat.Gold(ctx, exs, over); err != nil {
		eng.Close()
		return nil, nil, err
	}
	return eng, cat, nil
}
