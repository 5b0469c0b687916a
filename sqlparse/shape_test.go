package sqlparse

import (
	"errors"
	"reflect"
	"testing"
)

// BIRD dev golds (datasets/bird-dev-sample) and model-style rewrites of them.
const (
	birdJoin3   = "SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'"
	birdRatio   = "SELECT CAST(COUNT(CASE WHEN T2.publisher_name = 'Marvel Comics' THEN 1 ELSE NULL END) AS REAL) * 100 / COUNT(T1.id) FROM superhero AS T1 INNER JOIN publisher AS T2 ON T1.publisher_id = T2.id WHERE T1.height_cm BETWEEN 150 AND 180"
	birdExcept  = "SELECT T1.event_name FROM event AS T1  INNER JOIN attendance AS T2 ON T1.event_id = T2.link_to_event GROUP BY T1.event_id  HAVING COUNT(T2.link_to_event) > 10 EXCEPT SELECT T1.event_name  FROM event AS T1  WHERE T1.type = 'Meeting'"
	birdWindow  = "SELECT colour.colour AS EyeColor, COUNT(superhero.id) AS Count, RANK() OVER (ORDER BY COUNT(superhero.id) DESC) AS PopularityRank FROM superhero INNER JOIN colour ON superhero.eye_colour_id = colour.id INNER JOIN publisher ON superhero.publisher_id = publisher.id WHERE publisher.publisher_name = 'Marvel Comics' GROUP BY colour.colour"
	birdSubDiff = "SELECT ( SELECT weight_kg FROM superhero WHERE full_name LIKE 'Emil Blonsky' ) - ( SELECT weight_kg FROM superhero WHERE full_name LIKE 'Charles Chandler' ) AS CALCULATE"
	birdNull    = "SELECT DISTINCT full_name FROM superhero WHERE full_name IS NOT NULL AND (weight_kg IS NULL OR weight_kg = 0)"
	birdOrder   = "SELECT source FROM income WHERE date_received BETWEEN '2019-09-01' and '2019-09-30' ORDER BY source DESC LIMIT 1"
	birdDate    = "SELECT DISTINCT event_name FROM event WHERE type = 'Game' AND date(SUBSTR(event_date, 1, 10)) BETWEEN '2019-03-15' AND '2020-03-20' AND status = 'Closed'"
	birdInSub   = "SELECT T1.first_name, T1.last_name FROM member AS T1 WHERE T1.member_id IN (SELECT T2.link_to_member FROM attendance AS T2 GROUP BY T2.link_to_member HAVING COUNT(*) > 5) ORDER BY T1.last_name ASC, T1.first_name"
	withCTE     = `WITH top AS (SELECT publisher_id, COUNT(*) AS n FROM superhero GROUP BY publisher_id)
		SELECT p.publisher_name FROM top t JOIN publisher p ON p.id = t.publisher_id WHERE t.n > 10;`
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want Shape
	}{
		{"three-table join with aliases", birdJoin3, Shape{
			Joins:      2,
			Tables:     []string{"hero_power", "superhero", "superpower"},
			Select:     []string{"superpower.power_name"},
			Conditions: []string{"superhero.superhero_name = '3-D Man'"},
			JoinOn:     []string{"hero_power.hero_id = superhero.id", "hero_power.power_id = superpower.id"},
			Skeleton:   "select _._ from _ as _ inner join _ as _ on _._ = _._ inner join _ as _ on _._ = _._ where _._ = ?",
		}},
		{"ratio with CASE, CAST and BETWEEN", birdRatio, Shape{
			Joins: 1, Case: 1, Cast: 1, Arithmetic: 2, Aggregates: 2,
			Tables:     []string{"publisher", "superhero"},
			Select:     []string{"cast(count(case when publisher.publisher_name = 'Marvel Comics' then 1 else null end) as real) * 100 / count(superhero.id)"},
			Conditions: []string{"superhero.height_cm between 150 and 180"},
			JoinOn:     []string{"publisher.id = superhero.publisher_id"},
			Skeleton:   "select cast(count(case when _._ = ? then ? else null end) as real) * ? / count(_._) from _ as _ inner join _ as _ on _._ = _._ where _._ between ? and ?",
		}},
		{"EXCEPT with GROUP BY/HAVING", birdExcept, Shape{
			Joins: 1, SetOps: 1, Aggregates: 1, GroupBy: 1, Having: 1,
			Tables:      []string{"attendance", "event"},
			Select:      []string{"event.event_name"},
			Conditions:  []string{"count(attendance.link_to_event) > 10", "event.type = 'Meeting'"},
			JoinOn:      []string{"attendance.link_to_event = event.event_id"},
			GroupByCols: []string{"event.event_id"},
			Skeleton:    "select _._ from _ as _ inner join _ as _ on _._ = _._ group by _._ having count(_._) > ? except select _._ from _ as _ where _._ = ?",
		}},
		{"window function", birdWindow, Shape{
			Joins: 2, Windows: 1, Aggregates: 2, GroupBy: 1,
			Tables:      []string{"colour", "publisher", "superhero"},
			Select:      []string{"colour.colour", "count(superhero.id)", "rank() over (order by count(superhero.id) desc)"},
			Conditions:  []string{"publisher.publisher_name = 'Marvel Comics'"},
			JoinOn:      []string{"colour.id = superhero.eye_colour_id", "publisher.id = superhero.publisher_id"},
			GroupByCols: []string{"colour.colour"},
			Skeleton:    "select _._ as _, count(_._) as _, rank() over (order by count(_._) desc) as _ from _ inner join _ on _._ = _._ inner join _ on _._ = _._ where _._ = ? group by _._",
		}},
		{"difference of scalar subqueries", birdSubDiff, Shape{
			Subqueries: 2, Arithmetic: 1, Like: 2,
			Tables:   []string{"superhero"},
			Select:   []string{"(select superhero.weight_kg from superhero where superhero.full_name like 'Emil Blonsky') - (select superhero.weight_kg from superhero where superhero.full_name like 'Charles Chandler')"},
			Skeleton: "select (select _ from _ where _ like ?) - (select _ from _ where _ like ?) as _",
		}},
		{"null tests and OR in parentheses", birdNull, Shape{
			Distinct: 1, NullTests: 2,
			Tables:     []string{"superhero"},
			Select:     []string{"superhero.full_name"},
			Conditions: []string{"superhero.full_name is not null", "superhero.weight_kg is null or superhero.weight_kg = 0"},
			Skeleton:   "select distinct _ from _ where _ is not null and (_ is null or _ = ?)",
		}},
		{"order by and limit", birdOrder, Shape{
			OrderBy: 1, Limit: 1,
			Tables:      []string{"income"},
			Select:      []string{"income.source"},
			Conditions:  []string{"income.date_received between '2019-09-01' and '2019-09-30'"},
			OrderByCols: []string{"income.source desc"},
			TopLimit:    "1",
			Skeleton:    "select _ from _ where _ between ? and ? order by _ desc limit ?",
		}},
		{"date function", birdDate, Shape{
			Distinct: 1, DateFuncs: 1,
			Tables:     []string{"event"},
			Select:     []string{"event.event_name"},
			Conditions: []string{"event.type = 'Game'", "date(substr(event.event_date, 1, 10)) between '2019-03-15' and '2020-03-20'", "event.status = 'Closed'"},
			Skeleton:   "select distinct _ from _ where _ = ? and date(substr(_, ?, ?)) between ? and ? and _ = ?",
		}},
		{"IN subquery with its own aliases", birdInSub, Shape{
			Subqueries: 1, Aggregates: 1, GroupBy: 1, Having: 1, OrderBy: 1,
			Tables:      []string{"attendance", "member"},
			Select:      []string{"member.first_name", "member.last_name"},
			Conditions:  []string{"member.member_id in (select attendance.link_to_member from attendance as t2 group by attendance.link_to_member having count(*) > 5)"},
			OrderByCols: []string{"member.last_name", "member.first_name"},
			Skeleton:    "select _._, _._ from _ as _ where _._ in (select _._ from _ as _ group by _._ having count(*) > ?) order by _._ asc, _._",
		}},
		{"join of a subquery without alias", "SELECT COUNT(T1.id) FROM superhero AS T1 CROSS JOIN (SELECT 1 UNION ALL SELECT 2) INNER JOIN colour AS T2 ON T1.eye_colour_id = T2.id", Shape{
			Joins: 2, Subqueries: 1, SetOps: 1, Aggregates: 1,
			Tables:   []string{"colour", "superhero"},
			Select:   []string{"count(superhero.id)"},
			JoinOn:   []string{"colour.id = superhero.eye_colour_id"},
			Skeleton: "select count(_._) from _ as _ cross join (select ? union all select ?) inner join _ as _ on _._ = _._",
		}},
		{"CTE names are not tables", withCTE, Shape{
			Joins: 1, Subqueries: 1, Aggregates: 1, GroupBy: 1,
			Tables:     []string{"publisher", "superhero"},
			Select:     []string{"publisher.publisher_name"},
			Conditions: []string{"top.n > 10"},
			JoinOn:     []string{"publisher.id = top.publisher_id"},
			Skeleton:   "with _ as (select _, count(*) as _ from _ group by _) select _._ from _ _ join _ _ on _._ = _._ where _._ > ?",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Analyze(tc.sql)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("Analyze(%q)\n got %+v\nwant %+v", tc.sql, *got, tc.want)
			}
		})
	}
}

// TestAnalyzeEquivalentSpellings checks that what a model may write
// differently from the gold without changing the meaning reads the same.
func TestAnalyzeEquivalentSpellings(t *testing.T) {
	pairs := []struct{ a, b string }{
		{birdJoin3, `select superpower.power_name from superhero join hero_power on hero_power.hero_id = superhero.id
			join superpower on superpower.id = hero_power.power_id where '3-D Man' = superhero.superhero_name;`},
		{"SELECT COUNT(id) FROM superhero WHERE full_name IS NULL", `SELECT count("T"."id") AS n FROM superhero T WHERE (T.full_name IS NULL)`},
	}
	for _, p := range pairs {
		a, err := Analyze(p.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Analyze(p.b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Select, b.Select) || !reflect.DeepEqual(a.Conditions, b.Conditions) ||
			!reflect.DeepEqual(a.JoinOn, b.JoinOn) || !reflect.DeepEqual(a.Tables, b.Tables) {
			t.Errorf("%q and %q differ:\n%+v\n%+v", p.a, p.b, *a, *b)
		}
	}
	// Same skeleton when only names and values differ.
	a, _ := Analyze("SELECT T1.name FROM people AS T1 WHERE T1.age > 30 AND T1.city = 'Oslo'")
	b, _ := Analyze("select t9.title from  books as t9 where t9.year > 1999 and t9.lang = 'fr'")
	if a.Skeleton != b.Skeleton {
		t.Errorf("skeletons differ: %q vs %q", a.Skeleton, b.Skeleton)
	}
}

func TestAnalyzeRejects(t *testing.T) {
	for _, sql := range []string{
		"", ";", "SELECT", "SELECT FROM t", "SELECT a FROM", "SELECT a FROM t WHERE",
		"SELECT (a FROM t", "SELECT a FROM t)", "SELECT 'abc FROM t", "DELETE FROM t",
		"I think the answer is 42.", "SELECT a FROM t JOIN", "SELECT CASE WHEN a THEN b FROM t",
		"SELECT a FROM t UNION", "WITH x AS (SELECT 1) DELETE FROM x",
	} {
		if s, err := Analyze(sql); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("Analyze(%q) = %+v, %v; want an ErrSyntax error", sql, s, err)
		}
	}
}

// TestAnalyzeNeverPanics feeds every prefix of the queries above: model
// output is cut off mid-query all the time.
func TestAnalyzeNeverPanics(t *testing.T) {
	for _, sql := range []string{birdJoin3, birdRatio, birdExcept, birdWindow, birdSubDiff, birdNull, birdOrder, birdDate, birdInSub, withCTE,
		"SELECT a FROM t AS x INDEXED BY i, json_each(t.j) NATURAL LEFT OUTER JOIN (u CROSS JOIN v USING (id)) WHERE a IS NOT DISTINCT FROM b"} {
		for i := 0; i <= len(sql); i++ {
			_, _ = Analyze(sql[:i])
			_, _ = Analyze(sql[i:])
		}
	}
}
