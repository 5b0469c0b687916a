package askserver

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestCompareCells: the one ordering of cells, both ways round.
func TestCompareCells(t *testing.T) {
	const maxInt = int64(math.MaxInt64)
	for _, tt := range []struct {
		a, b any
		want int
	}{
		{nil, nil, 0},
		{nil, int64(1), 1},
		{"x", nil, -1},
		{int64(2), int64(10), -1},
		{int64(2), 2.0, 0},
		{2.5, int64(2), 1},
		{-0.5, int64(0), -1},
		{-0.5, int64(-1), 1},
		{maxInt, 9223372036854775807.0, -1}, // the float is 2^63: naive conversion would call them equal
		{int64(math.MinInt64), -9223372036854775808.0, 0},
		{int64(math.MinInt64), -1e19, 1},
		{1e20, maxInt, 1},
		{int64(5), "1", -1}, // numbers before text, whatever the text says
		{"", "a", -1},
		{"a", "A", 0},
		{"apple", "Banana", -1},
		{"item 9", "item 10", -1},
		{"Item 9", "item 009", 0},
		{"a10", "apple", -1}, // a digit before a letter
		{"a 1", "a1", -1},    // a space before a digit
		{"x99999999999999999999999", "x100000000000000000000000", -1},
		{"É", "é", 0},
		{"abc", "ab", 1},
	} {
		if got := compareCells(tt.a, tt.b); got != tt.want {
			t.Errorf("compareCells(%#v, %#v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := compareCells(tt.b, tt.a); got != -tt.want {
			t.Errorf("compareCells(%#v, %#v) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// sortSQL is a result of 25 rows (three pages of 10) whose column v mixes
// NULLs, integers, floats and text, with ties; label names the row.
const sortSQL = `SELECT column1 AS label, column2 AS v FROM (VALUES
	('r01', 10), ('r02', NULL), ('r03', 'item 10'), ('r04', 2.5), ('r05', 'Item 9'),
	('r06', -3), ('r07', NULL), ('r08', 'apple'), ('r09', 10), ('r10', 2),
	('r11', 'Banana'), ('r12', 9223372036854775807.0), ('r13', 'item 009'), ('r14', 9223372036854775807), ('r15', 2.0),
	('r16', ''), ('r17', -0.5), ('r18', 'zebra'), ('r19', NULL), ('r20', 0),
	('r21', 'Apple'), ('r22', 'a10'), ('r23', 'a9'), ('r24', 3), ('r25', 1e20))`

// labels r01..r25 in order, from their numbers.
func labels(ns ...int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("r%02d", n)
	}
	return out
}

// sortCase is one order of sortSQL's rows the routes must give.
type sortCase struct {
	name string
	sort int // -1: none
	desc bool
	want []string
}

// query is the case's sort as GET's query, with page p when p > 0.
func (c sortCase) query(p int) string {
	q := url.Values{}
	if p > 0 {
		q.Set("page", fmt.Sprint(p))
	}
	if c.sort >= 0 {
		q.Set("sort", fmt.Sprint(c.sort))
	}
	if c.desc {
		q.Set("desc", "1")
	}
	return q.Encode()
}

// body is /api/run's body for sortSQL with the case's sort and extra.
func (c sortCase) body(extra string, v any) map[string]any {
	b := map[string]any{"db": "superhero", "sql": sortSQL, "desc": c.desc, extra: v}
	if c.sort >= 0 {
		b["sort"] = c.sort
	}
	return b
}

var sortCases = []sortCase{
	{"unsorted", -1, false, labels(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25)},
	// Numbers (ties 10/10 and 2/2.0 in the result's order; int64's max
	// before the float 2^63), then text (""; a9 before a10; apple/Apple
	// and Item 9/item 009 tied), then NULLs.
	{"v ascending", 1, false, labels(6, 17, 20, 10, 15, 4, 24, 1, 9, 14, 12, 25, 16, 23, 22, 8, 21, 11, 5, 13, 3, 18, 2, 7, 19)},
	// The reverse, NULLs first, ties still in the result's order.
	{"v descending", 1, true, labels(2, 7, 19, 18, 3, 5, 13, 11, 8, 21, 22, 23, 16, 25, 12, 14, 1, 9, 24, 4, 10, 15, 20, 17, 6)},
	{"label descending", 0, true, labels(25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)},
}

// TestSortedResults: GET rows?sort= and POST /api/run with "sort" sort the
// whole result before cutting each page, so that pages 1 to 3 read in turn
// are the whole result in order; both CSV downloads follow the same sort.
func TestSortedResults(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"mixed": sortSQL}}
	_, ts := newAnalystTest(t, gen, nil)
	id := int(ask(t, ts, "superhero", "mixed")["answer_id"].(float64))
	for _, tt := range sortCases {
		// page is page p's labels by the answer's rows route or by a run.
		page := func(t *testing.T, route string, p int) []string {
			var code int
			var out map[string]any
			if route == "rows" {
				code, out = call(t, ts, "GET", fmt.Sprintf("/api/answers/%d/rows?%s", id, tt.query(p)), "", nil)
			} else {
				code, out = call(t, ts, "POST", "/api/run", analystKey, tt.body("page", p))
			}
			if code != 200 {
				t.Fatalf("page %d: %d %v", p, code, out)
			}
			if out["pages"] != 3.0 || out["total_rows"] != 25.0 || out["page"] != float64(p) {
				t.Fatalf("page %d: page %v of %v, %v rows; want page %d of 3, 25 rows", p, out["page"], out["pages"], out["total_rows"], p)
			}
			wantSort := any(float64(tt.sort))
			if tt.sort < 0 {
				wantSort = nil
			}
			if out["sort"] != wantSort || (out["desc"] == true) != tt.desc {
				t.Errorf("page %d: sort %v desc %v, want %v %v", p, out["sort"], out["desc"], wantSort, tt.desc)
			}
			var got []string
			for _, row := range out["rows"].([]any) {
				got = append(got, row.([]any)[0].(string))
			}
			return got
		}
		// csvRows is the labels of the answer's or a run's CSV.
		csvRows := func(t *testing.T, route string) []string {
			path, method, body := fmt.Sprintf("/api/answers/%d/csv?%s", id, tt.query(0)), "GET", any(nil)
			if route == "csv run" {
				path, method, body = "/api/run", "POST", tt.body("format", "csv")
			}
			code, raw := callRaw(t, ts, method, path, analystKey, body)
			if code != 200 {
				t.Fatalf("%d %s", code, raw)
			}
			recs, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs[1:] {
				got = append(got, r[0])
			}
			return got
		}
		for _, route := range []string{"rows", "run", "csv answer", "csv run"} {
			t.Run(tt.name+"/"+route, func(t *testing.T) {
				var got []string
				if strings.HasPrefix(route, "csv") {
					got = csvRows(t, route)
				} else {
					for p := 1; p <= 3; p++ {
						got = append(got, page(t, route, p)...)
					}
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("rows\n%v\nwant\n%v", got, tt.want)
				}
			})
		}
	}
	// The chart keeps the result's own order, whatever the sort.
	_, out := call(t, ts, "POST", "/api/run", analystKey, map[string]any{"db": "superhero", "sql": "SELECT colour, id FROM colour ORDER BY id", "sort": 1, "desc": true})
	if ch, _ := out["chart"].(map[string]any); ch == nil || ch["values"].([]any)[0] != 1.0 || out["rows"].([]any)[0].([]any)[1] != 35.0 {
		t.Errorf("sorted run: first row %v, chart %v; want id 35 first and the chart from id 1", out["rows"].([]any)[0], out["chart"])
	}
}

// TestSortErrors: a bad sort is a 400 that says what to send.
func TestSortErrors(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"mixed": sortSQL}}
	_, ts := newAnalystTest(t, gen, nil)
	id := int(ask(t, ts, "superhero", "mixed")["answer_id"].(float64))
	rows := fmt.Sprintf("/api/answers/%d/rows", id)
	csvPath := fmt.Sprintf("/api/answers/%d/csv", id)
	run := func(extra map[string]any) map[string]any {
		b := map[string]any{"db": "superhero", "sql": sortSQL}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	for _, tt := range []struct {
		name, method, path string
		body               any
		code               int
		want               string // part of the error, or of the body
	}{
		{"rows sort not a number", "GET", rows + "?sort=v", nil, 400, `sort "v": want a column index from 0`},
		{"rows sort negative", "GET", rows + "?sort=-1", nil, 400, `sort "-1": want a column index from 0`},
		{"rows sort past the columns", "GET", rows + "?sort=2", nil, 400, "sort 2: the result has 2 columns (sort=0 to 1)"},
		{"rows desc not 0 or 1", "GET", rows + "?sort=1&desc=yes", nil, 400, `desc "yes": want 1 (descending) or 0`},
		{"rows desc without sort", "GET", rows + "?desc=1", nil, 400, "desc=1 without sort"},
		{"rows desc=0", "GET", rows + "?sort=1&desc=0", nil, 200, `"sort":1`},
		{"rows sorted past the last page", "GET", rows + "?sort=1&page=4", nil, 404, "page 4 of 3"},
		{"csv sort past the columns", "GET", csvPath + "?sort=7", nil, 400, "sort 7: the result has 2 columns"},
		{"csv desc without sort", "GET", csvPath + "?desc=1", nil, 400, "desc=1 without sort"},
		{"run sort negative", "POST", "/api/run", run(map[string]any{"sort": -1}), 400, "sort -1: want a column index from 0"},
		{"run sort past the columns", "POST", "/api/run", run(map[string]any{"sort": 2}), 400, "sort 2: the result has 2 columns"},
		{"run sort not a number", "POST", "/api/run", run(map[string]any{"sort": "v"}), 400, "malformed JSON"},
		{"run desc without sort", "POST", "/api/run", run(map[string]any{"desc": true}), 400, `"desc" without "sort"`},
		{"run csv sort past the columns", "POST", "/api/run", run(map[string]any{"sort": 2, "format": "csv"}), 400, "sort 2: the result has 2 columns"},
		// SQL that fails has no columns to sort: its error, as without a sort.
		{"run failing SQL", "POST", "/api/run", map[string]any{"db": "superhero", "sql": "SELECT nope FROM colour", "sort": 3}, 200, "unknown_column"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := callRaw(t, ts, tt.method, tt.path, analystKey, tt.body)
			text := string(raw)
			var e struct{ Error string }
			if json.Unmarshal(raw, &e) == nil && e.Error != "" {
				text = e.Error
			}
			if code != tt.code || !strings.Contains(text, tt.want) {
				t.Errorf("%d %s, want %d with %q", code, raw, tt.code, tt.want)
			}
		})
	}
}
