package benchstats

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
)

var instanceSuffix = regexp.MustCompile(`_[0-9]+$`)

// domainOf is a db_id without a trailing instance number: retail_2 is an
// instance of retail.
func domainOf(dbID string) string { return instanceSuffix.ReplaceAllString(dbID, "") }

// schemaStats sizes the databases the split's questions use.
func schemaStats(b *dataset.Benchmark) Schema {
	var s Schema
	dbs, domains := map[string]bool{}, map[string]bool{}
	for _, ex := range b.Examples {
		dbs[ex.DBID] = true
		domains[domainOf(ex.DBID)] = true
	}
	s.Databases, s.Domains = len(dbs), len(domains)
	var tables, cols, fks []int
	ids := make([]string, 0, len(dbs))
	for id := range dbs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		sc := b.Schemas[id]
		if sc == nil {
			continue
		}
		s.Described++
		tables = append(tables, len(sc.TableNames))
		cols = append(cols, realColumns(sc))
		fks = append(fks, len(sc.ForeignKeys))
	}
	s.Tables, s.Columns, s.ForeignKeys = minMax(tables), minMax(cols), minMax(fks)
	return s
}

// realColumns counts columns without Spider's "*" entry.
func realColumns(s *dataset.Schema) int {
	n := 0
	for _, c := range s.Columns {
		if c.Table >= 0 {
			n++
		}
	}
	return n
}

func minMax(xs []int) MinMax {
	if len(xs) == 0 {
		return MinMax{}
	}
	m := MinMax{Min: xs[0], Max: xs[0]}
	sum := 0
	for _, x := range xs {
		sum += x
		m.Min, m.Max = min(m.Min, x), max(m.Max, x)
	}
	m.Mean = float64(sum) / float64(len(xs))
	return m
}

// schemaShape is a schema with its names ignored: for each table its
// column count and how many foreign keys leave and enter it, sorted. Two
// databases of one generator domain with renamed tables and columns have
// the same shape; it is not a full isomorphism test (which table a key
// points to is not kept), so unrelated schemas can collide, rarely.
func schemaShape(s *dataset.Schema) string {
	n := len(s.TableNames)
	cols, out, in := make([]int, n), make([]int, n), make([]int, n)
	for _, c := range s.Columns {
		if c.Table >= 0 && c.Table < n {
			cols[c.Table]++
		}
	}
	tableOf := func(col int) int {
		if col < 0 || col >= len(s.Columns) {
			return -1
		}
		return s.Columns[col].Table
	}
	for _, fk := range s.ForeignKeys {
		if t := tableOf(fk[0]); t >= 0 && t < n {
			out[t]++
		}
		if t := tableOf(fk[1]); t >= 0 && t < n {
			in[t]++
		}
	}
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf("%d/%d/%d", cols[i], out[i], in[i])
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}
