package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/eval"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// trailingNumber is the instance suffix of a db_id: "car_rental_3" is
// domain car_rental (benchstats' rule too).
var trailingNumber = regexp.MustCompile(`_\d+$`)

// DomainOf returns the domain of a v2 db_id.
func DomainOf(dbID string) string { return trailingNumber.ReplaceAllString(dbID, "") }

// VerifyV2 checks a v2 benchmark as consumers read it, then the promises
// its splits make: each split passes v1's checks (loads with
// dataset.LoadBIRD, gold file matches, tables file matches the databases,
// unique ids and per-database wordings, tiers near 60/30/10, every gold
// runs read-only with an informative result); every gold with an ORDER BY
// returns the same rows with every output column added as a secondary
// sort key, ascending and descending; no dev split shares a db_id with train; dev shares no
// domain with train, and dev_id and dev_compositional only use train's
// domains; no dev wording occurs in train; no dev_compositional skeleton
// occurs in train. The sealed test split, where there is one, is checked
// as dev is (held-out domains, its own databases).
func VerifyV2(ctx context.Context, dir string, workers int) error {
	if workers <= 0 {
		workers = 1
	}
	loaded := map[string]*dataset.Benchmark{}
	splits := V2Splits
	if _, err := os.Stat(filepath.Join(dir, SplitTest+".json")); err == nil {
		splits = append(slices.Clone(V2Splits), SplitTest)
	}
	for _, split := range splits {
		load := dataset.LoadBIRD
		if split == SplitTest {
			load = func(dir, _ string) (*dataset.Benchmark, error) { return dataset.LoadTest(dir) } // the generator's own check reads it
		}
		b, err := load(dir, split)
		if err != nil {
			return fmt.Errorf("verify %s: %w", split, err)
		}
		if err := verifySplit(ctx, b, split, workers); err != nil {
			return fmt.Errorf("verify %s: %w", split, err)
		}
		if err := checkTies(ctx, b); err != nil {
			return fmt.Errorf("verify %s: %w", split, err)
		}
		loaded[split] = b
	}
	return checkV2Splits(loaded)
}

// checkV2Splits checks what the splits promise about each other (see
// VerifyV2), from the loaded files alone.
func checkV2Splits(loaded map[string]*dataset.Benchmark) error {
	train := loaded[SplitTrain]
	trainDoms := map[string]bool{}
	trainWords := map[string]int{}
	trainSkel := map[string]int{}
	for id := range train.Schemas {
		trainDoms[DomainOf(id)] = true
	}
	for _, ex := range train.Examples {
		trainWords[normWording(ex.Question)] = ex.QuestionID
	}
	for _, split := range append(slices.Clone(V2Splits[1:]), SplitTest) {
		b := loaded[split]
		if b == nil { // a benchmark made before the test split
			continue
		}
		ids := make([]string, 0, len(b.Schemas))
		for id := range b.Schemas {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			if _, ok := train.Schemas[id]; ok {
				return fmt.Errorf("verify: database %s is in both train and %s", id, split)
			}
			if dev := loaded[SplitDev]; split == SplitTest && dev != nil && dev.Schemas[id] != nil {
				return fmt.Errorf("verify: database %s is in both dev and test", id)
			}
			in := trainDoms[DomainOf(id)]
			heldOut := split == SplitDev || split == SplitTest
			if heldOut && in {
				return fmt.Errorf("verify: %s database %s is of domain %s, which train has", split, id, DomainOf(id))
			}
			if !heldOut && !in {
				return fmt.Errorf("verify: %s database %s is of domain %s, which train lacks", split, id, DomainOf(id))
			}
		}
		for _, ex := range b.Examples {
			if tq, ok := trainWords[normWording(ex.Question)]; ok {
				return fmt.Errorf("verify: %s question %d %q is worded as train question %d", split, ex.QuestionID, ex.Question, tq)
			}
		}
		if split != SplitDevCompositional {
			continue
		}
		if len(trainSkel) == 0 {
			for _, ex := range train.Examples {
				sh, err := sqlparse.Analyze(ex.SQL)
				if err != nil {
					return fmt.Errorf("verify: train question %d: %w", ex.QuestionID, err)
				}
				trainSkel[sh.Skeleton] = ex.QuestionID
			}
		}
		for _, ex := range b.Examples {
			sh, err := sqlparse.Analyze(ex.SQL)
			if err != nil {
				return fmt.Errorf("verify: %s question %d: %w", split, ex.QuestionID, err)
			}
			if tq, ok := trainSkel[sh.Skeleton]; ok {
				return fmt.Errorf("verify: %s question %d has the skeleton of train question %d: %s", split, ex.QuestionID, tq, sh.Skeleton)
			}
		}
	}
	return nil
}

// sharedTableNames lists dev's table names that train databases also have
// (lower case, sorted): the held-out rule avoids them where the vocabulary
// allows, and the README reports any left.
func sharedTableNames(dev, train []*v2Inst) []string {
	names := map[string]bool{}
	for _, inst := range train {
		for _, t := range inst.db.Tables {
			names[strings.ToLower(t.Name)] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, inst := range dev {
		for _, t := range inst.db.Tables {
			n := strings.ToLower(t.Name)
			if names[n] && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// writeV2Notes writes README.md (what each split tests, counts, held-out
// domains, what the filters dropped) and LICENSE.
func writeV2Notes(dir string, sum *Summary, plan map[string][]*v2Inst) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# sqlrl Text2SQL benchmark v2 (preset %s, seed %d)\n\n", sum.Preset, sum.Seed)
	b.WriteString("A synthetic Text2SQL benchmark in BIRD's layout, generated by `sqlrl bench generate`: procedural\n")
	b.WriteString("SQLite databases (6-15 tables, abbreviated names explained in `database_description/`, NULLs, codes,\n")
	b.WriteString("inconsistent case and formats) in 40 domains, and questions composed by a grammar, in BIRD's tiers\n")
	b.WriteString("(about 60/30/10 simple/moderate/challenging). Design: docs/benchmark-v2.md in the sqlrl repository.\n\n")
	fmt.Fprintf(&b, "Rebuild with:\n\n    sqlrl bench generate --preset %s --seed %d --out DIR\n\n", sum.Preset, sum.Seed)
	b.WriteString("The same sqlrl version gives byte-identical question, schema and gold files (and `.sqlite` files with\n")
	b.WriteString("the same SQLite library). Every gold query was executed read-only before the files were written, returns\n")
	b.WriteString("an informative result, and returns the same rows when ties in ORDER BY are broken either way.\n\n")
	b.WriteString("## Splits\n\n| split | what it tests |\n|---|---|\n")
	b.WriteString("| `train` | several database instances of each train domain |\n")
	b.WriteString("| `dev` | cross-domain: databases of held-out domains that train never sees (as BIRD and Spider) |\n")
	b.WriteString("| `dev_compositional` | new databases of train's domains; only questions whose SQL skeleton (names and literals masked) occurs nowhere in train |\n")
	b.WriteString("| `dev_id` | new databases of train's domains, any skeleton: the in-distribution regression check |\n")
	b.WriteString("| `test` | sealed: dev's kind and size on new databases of the held-out domains; only a claim's final evaluation reads it |\n\n")
	b.WriteString("No dev question's wording (lower-cased, spaces collapsed) occurs in train.\n\n")
	fmt.Fprintf(&b, "Held-out domains (dev): %s. They are %d of schemagen's domains, picked by a shuffle seeded by the\n", strings.Join(sum.HeldOut, ", "), len(sum.HeldOut))
	b.WriteString("benchmark seed among the domains whose table names (SQL names and nouns, in designs 1-4) no other domain uses.\n")
	if shared := sharedTableNames(plan[SplitDev], plan[SplitTrain]); len(shared) > 0 {
		fmt.Fprintf(&b, "Table names dev databases share with train databases anyway: %s.\n", strings.Join(shared, ", "))
	} else {
		b.WriteString("No dev table name occurs in a train database.\n")
	}
	b.WriteString("\n## Files\n\n| file | what |\n|---|---|\n")
	b.WriteString("| `<split>.json` | questions: `question_id`, `db_id`, `question`, `evidence`, `SQL`, `difficulty` |\n")
	b.WriteString("| `<split>_tables.json` | schemas, Spider/BIRD style |\n")
	b.WriteString("| `<split>_gold.sql` | gold SQL as `SQL<TAB>db_id` lines, in question order |\n")
	b.WriteString("| `<split>_databases/<db>/<db>.sqlite` | the databases |\n")
	b.WriteString("| `<split>_databases/<db>/database_description/<table>.csv` | BIRD's column descriptions and value notes |\n\n")
	b.WriteString("## Counts\n\n| split | databases | domains | rows | questions | simple | moderate | challenging | dropped: wording in train | dropped: skeleton in train | quota unfilled |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sum.Splits {
		doms := map[string]bool{}
		for _, db := range s.DBs {
			doms[db.Domain] = true
		}
		d := sum.Dropped[s.Name]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", s.Name, len(s.DBs), len(doms), s.Rows, s.Questions,
			s.ByTier[0], s.ByTier[1], s.ByTier[2], d.Wording, d.Skeleton, d.Short)
	}
	b.WriteString("\n### Databases\n\n| split | db_id | domain | tables | rows | simple | moderate | challenging |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range sum.Splits {
		for _, db := range s.DBs {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d |\n", s.Name, db.ID, db.Domain, db.Tables, db.Rows, db.ByTier[0], db.ByTier[1], db.ByTier[2])
		}
	}
	b.WriteString("\n## Licence\n\nGenerated data, no third-party content; licensed under the Apache License 2.0, the same\n")
	b.WriteString("licence as the sqlrl project (see LICENSE). All people and records are fictional.\n")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "LICENSE"), []byte(licenseText), 0o644)
}

// topOrderBy returns the offset of the outermost ORDER BY of sql (outside
// parentheses and quotes), or -1.
func topOrderBy(sql string) int {
	depth, pos := 0, -1
	var quote byte
	up := strings.ToUpper(sql)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && strings.HasPrefix(up[i:], "ORDER BY") && (i == 0 || up[i-1] == ' '):
			pos = i
		}
	}
	return pos
}

// tieVariants returns gold with every output column (1..ncols, by
// position) added after its outermost ORDER BY keys, ascending and
// descending: if either returns other rows, a tie decides the answer.
func tieVariants(gold string, ncols int) []string {
	p := topOrderBy(gold)
	if p < 0 || ncols == 0 {
		return nil
	}
	tail := gold[p+len("ORDER BY"):]
	keys, rest := tail, ""
	if k := strings.Index(strings.ToUpper(tail), " LIMIT "); k >= 0 {
		keys, rest = tail[:k], tail[k:]
	}
	var out []string
	for _, dir := range []string{"ASC", "DESC"} {
		var extra []string
		for c := 1; c <= ncols; c++ {
			extra = append(extra, fmt.Sprintf("%d %s", c, dir))
		}
		out = append(out, gold[:p]+"ORDER BY"+keys+", "+strings.Join(extra, ", ")+rest)
	}
	return out
}

// rowSet is a result's rows as sorted keys, order ignored.
func rowSet(rows [][]sqlexec.Value) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		var b []byte
		for _, v := range r {
			b = v.AppendKey(b)
		}
		out[i] = string(b)
	}
	sort.Strings(out)
	return out
}

// checkTies re-runs every gold with an outermost ORDER BY with its tie
// variants (the check; sqlgen checks each question as it writes
// it, this checks the files).
func checkTies(ctx context.Context, b *dataset.Benchmark) error {
	byDB := map[string][]dataset.Example{}
	var dbs []string
	for _, ex := range b.Examples {
		if topOrderBy(ex.SQL) < 0 {
			continue
		}
		if byDB[ex.DBID] == nil {
			dbs = append(dbs, ex.DBID)
		}
		byDB[ex.DBID] = append(byDB[ex.DBID], ex)
	}
	for _, id := range dbs {
		eng := sqlexec.NewSQLite(sqlexec.SQLiteOptions{Root: b.DBRoot, Limits: sqlexec.Limits{Timeout: eval.BIRDPairTimeout}, MaxConnsPerDB: 1})
		err := func() error {
			for _, ex := range byDB[id] {
				res, err := eng.Query(ctx, id, ex.SQL)
				if err != nil {
					return fmt.Errorf("question %d: %w", ex.QuestionID, err)
				}
				want := strings.Join(rowSet(res.Rows), "\x00")
				for _, v := range tieVariants(ex.SQL, len(res.Columns)) {
					r, err := eng.Query(ctx, id, v)
					if err != nil {
						return fmt.Errorf("question %d: tie variant %s: %w", ex.QuestionID, v, err)
					}
					if strings.Join(rowSet(r.Rows), "\x00") != want {
						return fmt.Errorf("question %d on %s: the answer depends on ties: %s", ex.QuestionID, id, ex.SQL)
					}
				}
			}
			return nil
		}()
		eng.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
