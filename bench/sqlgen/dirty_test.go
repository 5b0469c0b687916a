package sqlgen

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestDirtyGolds: on the shop fixture's dirty columns (city in mixed case
// and padded, signup dates in two formats, balances stored as "$1,234.50")
// the expressions golds use count the right rows, computed here from the
// stored values; the naive expression a template would write counts wrong
// ones, which shows the fixture is dirty enough to tell.
func TestDirtyGolds(t *testing.T) {
	f := fixtures(t)[0]
	m, err := buildModel(f.db)
	if err != nil {
		t.Fatal(err)
	}
	cust := m.byName["customer"]
	col := func(name string) *col {
		for _, c := range cust.cols {
			if c.c.Name == name {
				return c
			}
		}
		t.Fatalf("column %s not usable", name)
		return nil
	}
	city, signup, balance := col("city"), col("signup_dt"), col("balance")
	count := func(where string) int64 {
		res, err := f.eng.Query(context.Background(), f.db.ID, "SELECT COUNT(*) FROM customer AS T1 WHERE "+where)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		return res.Rows[0][0].I
	}
	rows := cust.t.Rows
	type check struct {
		name        string
		gold, naive string
		want        func(r []any) bool
	}
	var checks []check
	for _, v := range city.vals {
		checks = append(checks, check{"city " + v, city.catExpr("T1") + " = " + city.catLit(v), "T1.city = '" + v + "'", func(r []any) bool {
			s, _ := r[city.i].(string)
			return strings.ToLower(strings.TrimSpace(s)) == v
		}})
	}
	for _, y := range signup.years {
		checks = append(checks, check{"signup year " + y, signup.yearExpr("T1") + " = '" + y + "'", "strftime('%Y', T1.signup_dt) = '" + y + "'", func(r []any) bool {
			s, _ := r[signup.i].(string)
			return strings.HasPrefix(s, y) || strings.HasSuffix(s, "/"+y)
		}})
	}
	for _, th := range []float64{500, 1500, 3000} {
		checks = append(checks, check{fmt.Sprint("balance > ", th), balance.numExpr("T1") + " > " + fmtNum(th), "T1.balance > " + fmtNum(th), func(r []any) bool {
			s, ok := r[balance.i].(string)
			if !ok {
				return false
			}
			v, _ := stripNum(s, []string{"$", ","})
			return v > th
		}})
	}
	naiveWrong := map[string]bool{}
	for _, c := range checks {
		want := int64(0)
		for _, r := range rows {
			if c.want(r) {
				want++
			}
		}
		if got := count(c.gold); got != want {
			t.Errorf("%s: gold %s counts %d, want %d", c.name, c.gold, got, want)
		}
		if count(c.naive) != want {
			naiveWrong[strings.Fields(c.name)[0]] = true
		}
	}
	for _, k := range []string{"city", "signup", "balance"} {
		if !naiveWrong[k] {
			t.Errorf("the naive gold on %s is never wrong: the fixture is not dirty enough to test", k)
		}
	}
	// Every generated gold that reads a dirty column reads it safely.
	for _, q := range f.qs {
		for _, c := range []struct{ col, safe string }{{"city", "LOWER(TRIM("}, {"signup_dt", "CASE WHEN"}, {"balance", "REPLACE("}} {
			// A NULL test reads no value; every other read must be safe.
			rest := strings.NewReplacer("."+c.col+" IS NOT NULL", "", "."+c.col+" IS NULL", "").Replace(q.SQL)
			if strings.Contains(rest, "."+c.col) && !strings.Contains(rest, c.safe) {
				t.Errorf("gold reads dirty %s without %s: %s", c.col, c.safe, q.SQL)
			}
		}
	}
	_ = math.NaN
}
