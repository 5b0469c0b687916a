package askserver

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/httpserve"
	"github.com/sqlrl/sqlrl/sqlexec"
	"github.com/sqlrl/sqlrl/sqlparse"
)

// result runs sql read-only on db under the configured caps (rows kept,
// bytes; the engines add the statement timeout): what every route that
// shows a result runs.
func (s *Server) result(ctx context.Context, db, sql string) (*sqlexec.Result, bool, error) {
	return s.dbs.run(ctx, db, sql, s.cfg.Limits.MaxRows, s.cfg.Limits.MaxBytes)
}

// parsePage reads a page number from a query string ("" is page 1).
func parsePage(v string) (int, error) {
	if v == "" {
		return 1, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 1 {
		return 0, httpserve.Errorf(http.StatusBadRequest, "page %q: want an integer from 1", clip(v, 32))
	}
	return p, nil
}

// pageOf is page p of res sorted by order (nil: as it came), or 404 past
// the last page (page 1 of an empty result exists).
func (s *Server) pageOf(res *sqlexec.Result, truncated bool, p int, order *rowOrder) (Rows, error) {
	res, err := order.sorted(res)
	if err != nil {
		return Rows{}, err
	}
	out := s.page(res, truncated, p)
	if order != nil && res != nil {
		out.Sort, out.Desc = &order.Col, order.Desc
	}
	if p > 1 && p > out.Pages {
		return out, httpserve.Errorf(http.StatusNotFound, "page %d of %d", p, out.Pages)
	}
	return out, nil
}

// answerResult runs answer {id}'s SQL again; 409 when the answer has no
// result (its SQL failed, its database is gone, it fails now).
func (s *Server) answerResult(ctx context.Context, r *http.Request) (feedback.Entry, *sqlexec.Result, bool, error) {
	e, err := s.entry(ctx, r)
	if err != nil {
		return e, nil, false, err
	}
	if e.Outcome != feedback.OutcomeOK {
		return e, nil, false, httpserve.Errorf(http.StatusConflict, "answer %d has no result: its SQL failed (%s)", e.ID, e.ErrorClass)
	}
	if _, err := s.db(e.DBID); err != nil {
		return e, nil, false, httpserve.Errorf(http.StatusConflict, "answer %d's database %q is no longer served", e.ID, e.DBID)
	}
	res, truncated, err := s.result(ctx, e.DBID, e.SQL)
	if err != nil {
		if ctx.Err() != nil {
			return e, nil, false, ctx.Err()
		}
		ei := s.execError(err)
		return e, nil, false, httpserve.Errorf(http.StatusConflict, "answer %d's SQL failed this time: %s: %s", e.ID, ei.Class, ei.Message)
	}
	return e, res, truncated, nil
}

// answerCSV: GET /api/answers/{id}/csv[?sort=C[&desc=1]]: the answer's
// whole result (the rows kept, as rows?page=N runs it again, sorted as
// rows sorts them) as a CSV download.
func (s *Server) answerCSV(ctx context.Context, r *http.Request) (any, error) {
	order, err := sortQuery(r.URL.Query())
	if err != nil {
		return nil, err
	}
	e, res, _, err := s.answerResult(ctx, r)
	if err != nil {
		return nil, err
	}
	if res, err = order.sorted(res); err != nil {
		return nil, err
	}
	return csvResponse(res, fmt.Sprintf("answer-%d.csv", e.ID)), nil
}

type runRequest struct {
	DB     string `json:"db"`
	SQL    string `json:"sql"`
	Page   int    `json:"page,omitempty"`
	Format string `json:"format,omitempty"`
	// Sort (a column index from 0) and Desc sort the kept rows before
	// the page is cut or the CSV written.
	Sort *int `json:"sort,omitempty"`
	Desc bool `json:"desc,omitempty"`
}

// RunResponse is POST /api/run's JSON answer: a page of the result, or
// the error the SQL met.
type RunResponse struct {
	DB    string     `json:"db"`
	SQL   string     `json:"sql"`
	Error *ErrorInfo `json:"error,omitempty"`
	Chart *Chart     `json:"chart,omitempty"`
	Rows
}

// run: POST /api/run runs an analyst's SQL (edited from an answer, or a
// correction before it is sent) as answers are run: one read statement of
// the database's own tables, read-only, under the same caps. Nothing is
// recorded: a run is not an answer of the model.
func (s *Server) run(ctx context.Context, r *http.Request) (any, error) {
	if _, err := s.authorize(r, RoleAnalyst); err != nil {
		return nil, err
	}
	var req runRequest
	if err := httpserve.DecodeStrictJSON(r.Body, &req); err != nil {
		return nil, err
	}
	d, err := s.db(req.DB)
	if err != nil {
		return nil, err
	}
	sql := strings.TrimSpace(req.SQL)
	switch {
	case sql == "":
		return nil, httpserve.Errorf(http.StatusBadRequest, "\"sql\" is empty")
	case len(sql) > MaxSQLChars:
		return nil, httpserve.Errorf(http.StatusBadRequest, "sql: at most %d bytes", MaxSQLChars)
	case req.Page < 0:
		return nil, httpserve.Errorf(http.StatusBadRequest, "page %d: want an integer from 1", req.Page)
	case req.Format != "" && req.Format != "json" && req.Format != "csv":
		return nil, httpserve.Errorf(http.StatusBadRequest, "format %q: want \"json\" or \"csv\"", clip(req.Format, 32))
	}
	order, err := runOrder(req.Sort, req.Desc)
	if err != nil {
		return nil, err
	}
	if err := sqlparse.CheckRead(sql); err != nil {
		return nil, httpserve.Errorf(http.StatusUnprocessableEntity, "sql was refused and not run: %v", err)
	}
	res, truncated, err := s.result(ctx, d.name, sql)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var ei *ErrorInfo
	if err != nil {
		ei = s.execError(err)
		if ei.Class == string(sqlexec.ClassNotReadOnly) {
			return nil, httpserve.Errorf(http.StatusUnprocessableEntity, "sql was refused: %s", ei.Message)
		}
	}
	if req.Format == "csv" {
		if ei != nil {
			return nil, httpserve.Errorf(http.StatusUnprocessableEntity, "the SQL failed: %s: %s", ei.Class, ei.Message)
		}
		if res, err = order.sorted(res); err != nil {
			return nil, err
		}
		return csvResponse(res, "result-"+d.name+".csv"), nil
	}
	out := RunResponse{DB: d.name, SQL: sql, Error: ei}
	if out.Rows, err = s.pageOf(res, truncated, max(req.Page, 1), order); err != nil {
		return nil, err
	}
	if res != nil {
		out.Chart = chartOf(res)
	}
	return out, nil
}

// csvResponse writes res as CSV (RFC 4180: CRLF, fields quoted where
// needed, by encoding/csv): a header row of
// the column names, then every row kept; NULL is an empty field, numbers
// and text as the JSON API gives them.
func csvResponse(res *sqlexec.Result, filename string) httpserve.Responder {
	return httpserve.RespondFunc(func(w http.ResponseWriter) {
		startDownload(w, "text/csv; charset=utf-8", filename)
		// A write error is the client gone mid-download: nothing to tell.
		_ = writeCSV(w, res)
	})
}

// startDownload writes the headers of a file to save, and status 200.
func startDownload(w http.ResponseWriter, contentType, filename string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// writeCSV writes res's header and rows.
func writeCSV(w io.Writer, res *sqlexec.Result) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	head := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		head[i] = defuseFormula(c)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, len(res.Columns))
	for _, row := range res.Rows {
		for i := range rec {
			rec[i] = ""
			if i < len(row) {
				rec[i] = csvField(row[i])
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvField is a cell as CSV text: what jsonValue makes of it, NULL empty,
// floats in plain decimal where they are not huge or tiny.
func csvField(v sqlexec.Value) string {
	switch x := jsonValue(v).(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if a := max(x, -x); a == 0 || a >= 1e-6 && a < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return defuseFormula(x)
	}
	return ""
}

// defuseFormula keeps a spreadsheet from running a text cell as a formula
// (CSV injection): text starting with =, +, -, @, a tab or a carriage
// return gets a leading apostrophe, which spreadsheets show as text and
// hide. Numbers are never text here, so -5 stays -5.
func defuseFormula(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
