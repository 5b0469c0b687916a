package mutate

import "math/rand"

// Gold is one benchmark question's gold query.
type Gold struct {
	// QuestionID is the benchmark's id (BIRD question_id); informational.
	QuestionID int
	// DBID names the database the query runs on.
	DBID string
	// SQL is the gold query.
	SQL string
	// Difficulty is BIRD's difficulty label, copied to the predictions.
	Difficulty string
}

// Prediction pairs a predicted query with the gold it is scored against.
type Prediction struct {
	// GoldIndex is the index of the gold in the slice given to BuildSet.
	GoldIndex  int
	QuestionID int
	DBID       string
	Difficulty string
	// Gold is the gold SQL, Pred the prediction to score against it.
	Gold string
	Pred string
	// Kind is KindGold for the gold itself, otherwise the mutation kind.
	Kind string
}

// BuildSet builds an evaluation set: for every gold, in order, the gold
// itself as a prediction (kind KindGold) followed by up to perQuestion
// mutations of different kinds. kinds restricts the kinds used; with none
// given it means KindGold plus SafeKinds() (no writes, no runaways). Passing
// kinds without KindGold leaves the gold out.
//
// Kinds are drawn per gold without replacement, each with weight 1/n where n
// is the number of golds the kind applies to, so that kinds that rarely apply
// (ORDER BY direction, CAST, column reordering) are not drowned by kinds that
// always apply (syntax errors, keyword case). The same inputs and seed give
// the same set.
func BuildSet(golds []Gold, perQuestion int, seed int64, kinds ...string) []Prediction {
	if len(kinds) == 0 {
		kinds = append([]string{KindGold}, SafeKinds()...)
	}
	allowed := map[string]bool{}
	for _, k := range kinds {
		allowed[k] = true
	}
	rng := rand.New(rand.NewSource(seed))
	perGold := make([][]Mutation, len(golds))
	applies := map[string]int{}
	for gi, g := range golds {
		for _, m := range Mutations(g.SQL, rng) {
			if allowed[m.Kind] {
				perGold[gi] = append(perGold[gi], m)
				applies[m.Kind]++
			}
		}
	}
	var out []Prediction
	for gi, g := range golds {
		base := Prediction{GoldIndex: gi, QuestionID: g.QuestionID, DBID: g.DBID, Difficulty: g.Difficulty, Gold: g.SQL}
		if allowed[KindGold] {
			p := base
			p.Pred, p.Kind = g.SQL, KindGold
			out = append(out, p)
		}
		for _, m := range weightedSample(perGold[gi], applies, perQuestion, rng) {
			p := base
			p.Pred, p.Kind = m.SQL, m.Kind
			out = append(out, p)
		}
	}
	return out
}

// weightedSample draws up to n mutations without replacement, mutation m
// having weight 1/applies[m.Kind].
func weightedSample(ms []Mutation, applies map[string]int, n int, rng *rand.Rand) []Mutation {
	pool := append([]Mutation(nil), ms...)
	var out []Mutation
	for len(out) < n && len(pool) > 0 {
		total := 0.0
		for _, m := range pool {
			total += 1 / float64(applies[m.Kind])
		}
		x := rng.Float64() * total
		k := len(pool) - 1
		for i, m := range pool {
			x -= 1 / float64(applies[m.Kind])
			if x < 0 {
				k = i
				break
			}
		}
		out = append(out, pool[k])
		pool = append(pool[:k], pool[k+1:]...)
	}
	return out
}
