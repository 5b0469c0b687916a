package train

import (
	"context"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/policy"
	"github.com/sqlrl/sqlrl/sqlexec"
)

// EvalQuestions decodes exs greedily (or as o says: by vote, EvalDevWith) under the schema guide with the
// checkpoint (or run directory) dir, as every dev evaluation does, and
// scores them by execution over the databases under root
// (root/<db_id>/<db_id>.sqlite): for question files that are no
// benchmark's split, such as a user's own questions.
func EvalQuestions(ctx context.Context, dir, root string, exs []dataset.Example, o EvalOptions) (*Eval, error) {
	ck, err := policy.Resolve(dir)
	if err != nil {
		return nil, err
	}
	pol, err := policy.Load(ck)
	if err != nil {
		return nil, err
	}
	eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: root, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}})
	defer eng.Close()
	pr, err := policy.NewPrompter(eng, root, pol.Info.Prompt)
	if err != nil {
		return nil, err
	}
	d := &Data{DevEngine: eng, DevPrompter: pr}
	for _, ex := range exs {
		d.Dev = append(d.Dev, Example{Example: ex})
	}
	return EvalDevWith(ctx, pol, d, 0, 1, true, o)
}
