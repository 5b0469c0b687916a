//go:build linux

package askserver_test

// The page in a real browser: headless Chromium, driven through chromedriver's
// W3C WebDriver HTTP API, asks questions over a bundled database, reads the
// table, gives one-click feedback, runs and sends a correction, edits and
// re-runs the SQL, downloads CSV, browses the schema, reopens answers from
// History, and does it again by keyboard alone. It runs where SQLRL_CHROMIUM
// names a Chromium binary (scripts/browser.sh installs Debian's and
// scripts/test.sh exports it) and skips elsewhere.
//
// Why WebDriver and not the DevTools protocol: WebDriver is plain JSON over
// HTTP, so the test needs nothing beyond net/http, while CDP speaks over a
// WebSocket, which would mean a new module dependency or a hand-written
// WebSocket client; WebDriver's clicks and typing are also real input events
// that refuse hidden or disabled elements. The price is one more Debian
// package (chromium-driver, same version as chromium).

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrl/sqlrl/askserver"
	"github.com/sqlrl/sqlrl/feedback"
)

const (
	browserKey = "browser-key-0123456789abcdef"
	adminKey   = "browser-admin-key-0123456789"
	// The question and the result carry markup that would run if the page
	// ever parsed them as HTML; each payload sets window.__xss and alerts.
	xssQuestion = `<img src=x onerror="window.__xss='question';alert(1)">`
	xssCell     = `<script>window.__xss='cell';alert(1)</script>`
	xssHeader   = `<img src=x onerror="window.__xss='header'">`
	xssComment  = `<b onmouseover="window.__xss='comment'">looks right</b>`
	xssEvidence = `<img src=x onerror="window.__xss='evidence'"> weight_g refers to weight_kg * 1000`
	correction  = "SELECT superhero_name FROM superhero WHERE id <= 2 ORDER BY id"

	// The other questions the fake model knows, each for one thing the
	// page shows.
	qNumbers   = "How heavy are the first three heroes, in grams?"
	sqlNumbers = `SELECT superhero_name AS hero, weight_kg * 1000 AS weight_g, weight_kg / 7.0 AS ratio, 1999 + id AS year FROM superhero WHERE id <= 3 ORDER BY id`
	qChart     = "How many heroes do the biggest publishers have?"
	sqlChart   = `SELECT p.publisher_name AS publisher, COUNT(*) AS heroes FROM superhero s JOIN publisher p ON p.id = s.publisher_id WHERE p.publisher_name <> '' GROUP BY p.publisher_name ORDER BY heroes DESC, publisher LIMIT 4`
	qWrong     = "How many female superheroes are there?"
	sqlWrong   = `SELECT superhero_name FROM superhero WHERE superhero_name = 'superhero Maps'`
	qError     = "What is the nickname of 3-D Man?"
	sqlError   = `SELECT nickname FROM superhero WHERE superhero_name = '3-D Man'`
	qLine      = "How tall were the heroes, month by month?"
	sqlLine    = `SELECT '2020-0' || id || '-01' AS month, height_cm FROM superhero WHERE id <= 6 ORDER BY id`
	sqlEdited  = `SELECT superhero_name, weight_kg FROM superhero WHERE id IN (4, 5) ORDER BY id`
	// Three pages of 10: sorting must sort all 25 rows, not the page shown.
	qPages   = "How tall are the first 25 heroes?"
	sqlPages = `SELECT superhero_name AS hero, height_cm FROM superhero WHERE id <= 25 ORDER BY id`
)

// browserGen is the fake model: a fixed SQL per question, so that what the
// page shows is known.
type browserGen struct{ sql map[string]string }

func (g browserGen) Name() string { return "fake-browser" }

func (g browserGen) Generate(_ context.Context, q askserver.Question) (string, error) {
	if s, ok := g.sql[q.Question]; ok {
		return s, nil
	}
	return "", fmt.Errorf("no SQL for question %q", q.Question)
}

var browserSQL = map[string]string{
	xssQuestion: `SELECT superhero_name AS hero, height_cm, '` + strings.ReplaceAll(xssCell, "'", "''") + `' AS "` +
		strings.ReplaceAll(xssHeader, `"`, `""`) + `" FROM superhero ORDER BY id LIMIT 3`,
	qNumbers: sqlNumbers,
	qChart:   sqlChart,
	qWrong:   sqlWrong,
	qError:   sqlError,
	qLine:    sqlLine,
	qPages:   sqlPages,
}

func TestServeBrowser(t *testing.T) {
	b, base, store := newBrowserTest(t, "serve-browser-failure.png")
	walkPage(b, base, store)
}

// walkPage is TestServeBrowser's walk through the page with the mouse, on a
// server over the bundled superhero database whose model answers
// browserSQL; store is the server's feedback store.
func walkPage(b *browser, base, store string) {
	t, ctx := b.t, b.ctx

	// Ask: pick the database, type the question, click Ask, wait for rows.
	b.open(base + "/")
	b.click(`#db option[value="superhero"]`)
	id := b.ask(xssQuestion, "", 3)
	answerID := strconv.FormatInt(id, 10)
	var table struct {
		Head []string   `json:"head"`
		Rows [][]string `json:"rows"`
	}
	b.evalInto(&table, `const t = document.getElementById('result-table');
		return {head: [...t.tHead.rows[0].cells].map(c => c.querySelector('button').firstChild.textContent),
			rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))}`)
	wantRows := [][]string{{"3-D Man", "188", xssCell}, {"A-Bomb", "203", xssCell}, {"Abe Sapien", "191", xssCell}}
	if fmt.Sprint(table.Head) != fmt.Sprint([]string{"hero", "height_cm", xssHeader}) || fmt.Sprint(table.Rows) != fmt.Sprint(wantRows) {
		b.fatalf("result table shows %q %q, want the header and cells as text: %q", table.Head, table.Rows, wantRows)
	}
	if got := b.evalString(`return document.getElementById('answer-question').textContent`); got != xssQuestion {
		b.fatalf("answer-question %q, want the question as text", got)
	}
	b.noXSS("after the answer")

	// A thumb without a key says where the key goes.
	b.click("#thumb-up")
	b.waitTrue("the thumb asking for a key", `return document.getElementById('feedback-status').textContent.startsWith('Enter your API key')`)

	// The key: saved once, the header says whose it is and the role.
	b.typeInto("#api-key", "not-a-key-0123456789abcdef")
	b.click("#save-key")
	b.waitTrue("a wrong key refused", `const s = document.getElementById('key-status');
		return s.textContent === 'key not recognised' && s.classList.contains('error') && !document.getElementById('api-key').hidden`)
	b.typeInto("#api-key", browserKey)
	b.click("#save-key")
	b.waitTrue("the key's owner and role", `const s = document.getElementById('key-status');
		return s.textContent === 'key of alice (analyst)' && s.dataset.name === 'alice' && s.dataset.role === 'analyst'`)
	if got := b.evalString(`return localStorage.getItem('sqlrl-serve-api-key')`); got != browserKey {
		b.fatalf("localStorage holds key %q, want the one typed", got)
	}

	// One-click thumbs: a click records the verdict; the other thumb
	// changes it.
	b.click("#thumb-up")
	b.waitTrue("the thumbs up recorded", `return /^feedback #\d+ recorded: 👍/.test(document.getElementById('feedback-status').textContent)
		&& document.getElementById('thumb-up').getAttribute('aria-pressed') === 'true'`)
	b.click("#thumb-down")
	b.waitTrue("the verdict changed to thumbs down", `return /^feedback #\d+ recorded: 👎/.test(document.getElementById('feedback-status').textContent)
		&& document.getElementById('thumb-down').getAttribute('aria-pressed') === 'true'
		&& document.getElementById('thumb-up').getAttribute('aria-pressed') === 'false'
		&& document.querySelectorAll('#feedback-list li').length === 2`)

	// A correction is run and its rows shown before it can be sent.
	b.typeInto("#corrected-sql", correction)
	b.typeInto("#comment", xssComment)
	b.click("#send-feedback")
	b.waitTrue("the correction held back until it ran", `return document.getElementById('feedback-status').textContent.startsWith('Run the corrected SQL first')`)
	b.click("#run-correction")
	b.waitTrue("the corrected SQL's rows", `return !document.getElementById('correction-table').hidden
		&& document.querySelectorAll('#correction-table tbody tr').length === 2
		&& document.getElementById('correction-status').textContent.startsWith('ran: 2 rows')`)
	if got := b.evalString(`return [...document.querySelectorAll('#correction-table tbody td')].map(c => c.textContent).join('|')`); got != "3-D Man|A-Bomb" {
		b.fatalf("correction table %q, want 3-D Man|A-Bomb", got)
	}
	b.click("#send-feedback")
	b.waitTrue("the correction recorded", `return document.getElementById('feedback-status').textContent.endsWith('recorded; the corrected SQL ran')
		&& document.querySelectorAll('#feedback-list li').length === 3`)
	b.noXSS("after the correction")
	b.screenshotAt("#answer", "serve-browser-answer.png")

	// Numbers: thousands separators, two decimals, years as they are, the
	// raw value in the title; a header click sorts numerically.
	numbersID := b.ask(qNumbers, xssEvidence, 3)
	var cells [][]struct{ Text, Title string }
	b.evalInto(&cells, `return [...document.querySelectorAll('#result-table tbody tr')].map(r => [...r.cells].map(c => ({Text: c.textContent, Title: c.title})))`)
	if c := cells[0]; c[1].Text != "90,000" || c[1].Title != "90000" || c[2].Text != "12.86" || !strings.HasPrefix(c[2].Title, "12.857") || c[3].Text != "2000" {
		b.fatalf("first row %+v: want 90,000 (title 90000), 12.86 (title 12.857…), 2000", c)
	}
	b.click(`#result-table th button[data-col="1"]`)
	b.waitTrue("rows sorted by weight_g, ascending", `return [...document.querySelectorAll('#result-table tbody tr')].map(r => r.cells[0].textContent).join('|') === 'Abe Sapien|3-D Man|A-Bomb'
		&& document.querySelectorAll('#result-table th')[1].getAttribute('aria-sort') === 'ascending'`)
	b.click(`#result-table th button[data-col="1"]`)
	b.waitTrue("rows sorted by weight_g, descending", `return [...document.querySelectorAll('#result-table tbody tr')].map(r => r.cells[0].textContent).join('|') === 'A-Bomb|3-D Man|Abe Sapien'
		&& document.querySelectorAll('#result-table th')[1].getAttribute('aria-sort') === 'descending'`)

	// CSV of the answer: the file the browser saved, in the sort shown.
	got := b.csvDownload(fmt.Sprintf("answer-%d.csv", numbersID))
	want := [][]string{{"hero", "weight_g", "ratio", "year"}, {"A-Bomb", "441000", "", "2001"}, {"3-D Man", "90000", "", "2000"}, {"Abe Sapien", "65000", "", "2002"}}
	if len(got) != 4 || fmt.Sprint(got[0]) != fmt.Sprint(want[0]) {
		b.fatalf("answer CSV %q, want a header %q and 3 rows", got, want[0])
	}
	for i, w := range want[1:] {
		if got[i+1][0] != w[0] || got[i+1][1] != w[1] || got[i+1][3] != w[3] {
			b.fatalf("answer CSV row %d %q, want %q … year %s (raw values, by weight_g descending as shown)", i+1, got[i+1], w, w[3])
		}
	}

	// Edit and re-run: the result shows in place, its CSV is the edited
	// SQL's, and the answer's result comes back.
	b.click("#edit-sql")
	b.typeInto("#sql-edit", sqlEdited)
	b.click("#run-sql")
	b.waitTrue("the edited SQL's rows", `return document.getElementById('result-source').textContent.startsWith('Result of the edited SQL')
		&& [...document.querySelectorAll('#result-table tbody tr')].map(r => r.cells[0].textContent + '=' + r.cells[1].textContent).join('|') === 'Abin Sur=90|Abomination=441'
		&& document.querySelectorAll('#chart svg rect.bar').length === 2`)
	b.screenshotAt("#sql-editor", "serve-browser-edit-run.png")
	got = b.csvDownload("")
	if fmt.Sprint(got) != fmt.Sprint([][]string{{"superhero_name", "weight_kg"}, {"Abin Sur", "90"}, {"Abomination", "441"}}) {
		b.fatalf("edited SQL's CSV %q, want its header and 2 rows", got)
	}
	b.screenshotAt(".result-head", "serve-browser-csv.png")
	b.click("#reset-sql")
	b.waitTrue("the answer's rows again", `return document.getElementById('result-source').textContent === 'Result of answer #' + document.getElementById('answer').dataset.answerId
		&& document.querySelectorAll('#result-table tbody tr').length === 3 && document.getElementById('chart').hidden`)

	// Sorting sorts the whole result: after a header click, page 2 continues
	// page 1 (SQLite's ORDER BY, NULLs last and ties by id, is the
	// reference); the next click sorts descending from page 1 again.
	b.ask(qPages, "", 10)
	asc := b.runColumn(base, `SELECT superhero_name FROM superhero WHERE id <= 25 ORDER BY height_cm IS NULL, height_cm, id`)
	desc := b.runColumn(base, `SELECT superhero_name FROM superhero WHERE id <= 25 ORDER BY height_cm IS NULL DESC, height_cm DESC, id`)
	if len(asc) != 25 || len(desc) != 25 {
		b.fatalf("the reference orders hold %d and %d heroes, want 25", len(asc), len(desc))
	}
	shows := func(heroes []string, page int, dir string) string {
		w, _ := json.Marshal(heroes)
		return fmt.Sprintf(`return JSON.stringify([...document.querySelectorAll('#result-table tbody tr')].map(r => r.cells[0].textContent)) === %q
			&& document.getElementById('page-info').textContent === 'page %d of 3 (25 rows)'
			&& document.querySelectorAll('#result-table th')[1].getAttribute('aria-sort') === %q`, w, page, dir)
	}
	b.click(`#result-table th button[data-col="1"]`)
	b.waitTrue("page 1 of the whole result sorted by height_cm", shows(asc[:10], 1, "ascending"))
	b.click("#next-page")
	b.waitTrue("page 2 of the whole result sorted by height_cm", shows(asc[10:20], 2, "ascending"))
	b.click(`#result-table th button[data-col="1"]`)
	b.waitTrue("page 1 of the whole result sorted by height_cm, descending", shows(desc[:10], 1, "descending"))
	b.click("#next-page")
	b.click("#next-page")
	b.waitTrue("page 3 of the whole result sorted by height_cm, descending", shows(desc[20:], 3, "descending"))

	// A chart chosen by the result's shape: a label and a count, bars.
	chartID := b.ask(qChart, "", 4)
	b.waitTrue("the bar chart", `const c = document.getElementById('chart');
		return !c.hidden && c.dataset.kind === 'bar' && c.querySelectorAll('svg rect.bar').length === 4`)
	b.screenshotAt("#answer-question", "serve-browser-chart.png")

	// Labels in date order: a line.
	b.ask(qLine, "", 6)
	b.waitTrue("the line chart", `const c = document.getElementById('chart');
		return !c.hidden && c.dataset.kind === 'line' && c.querySelectorAll('svg polyline.line').length === 1 && c.querySelectorAll('svg circle.dot').length === 6`)
	b.screenshotAt("#answer-question", "serve-browser-line-chart.png")

	// An empty result for a count question is marked likely wrong.
	wrongID := b.ask(qWrong, "", 0)
	b.waitTrue("the likely-wrong mark", `const c = document.getElementById('confidence');
		const reasons = [...document.querySelectorAll('#confidence-reasons li')].map(li => li.textContent).join('|');
		return !c.hidden && c.dataset.level === 'likely_wrong' && document.getElementById('confidence-label').textContent === 'Likely wrong'
			&& reasons.includes("'superhero Maps' occurs in no column") && reasons.includes('empty')`)
	b.screenshotAt("#answer-question", "serve-browser-likely-wrong.png")

	// A failed answer offers a correction, no thumbs up and no CSV.
	b.ask(qError, "", -1)
	var failed struct{ Up, Down, CSV bool }
	b.evalInto(&failed, `const vis = (id) => document.getElementById(id).getClientRects().length > 0;
		return {Up: vis('thumb-up'), Down: vis('thumb-down'), CSV: vis('csv-download')}`)
	if failed.Up || !failed.Down || failed.CSV {
		b.fatalf("an answer with an error shows thumb-up %v, thumb-down %v, CSV %v: want only thumb-down", failed.Up, failed.Down, failed.CSV)
	}
	b.waitTrue("the failed answer marked likely wrong, the error in words first", `const first = document.querySelector('#confidence-reasons li');
		return document.getElementById('confidence').dataset.level === 'likely_wrong' && !!first && first.textContent.includes('nickname')`)

	// Example questions fill the question box.
	b.waitTrue("example questions", `return document.querySelectorAll('#example-list button.example').length > 0`)
	b.click("#example-list button.example")
	b.waitTrue("the question box filled from the example", `return document.getElementById('question').value === document.querySelector('#example-list button.example').textContent
		&& document.activeElement === document.getElementById('question')`)

	// The schema browser: tables, columns with types, keys, examples; the
	// filter keeps the tables that match.
	b.click("#schema-summary")
	b.waitTrue("the schema's tables", `return !!document.querySelector('#schema-body details[data-table="superhero"]')`)
	b.click(`#schema-body details[data-table="superhero"] > summary`)
	var cols map[string][]string
	b.evalInto(&cols, `const out = {}, text = (r, css) => { const e = r.querySelector(css); return e ? e.textContent : ''; };
		for (const r of document.querySelectorAll('#schema-body details[data-table="superhero"] tbody tr')) {
			out[r.dataset.column] = [text(r, '.col-name'), text(r, '.col-type'), text(r, '.col-key'), text(r, '.col-desc'),
				[...r.querySelectorAll('.examples code')].map(c => c.textContent).join('|')];
		}
		return out`)
	if c := cols["id"]; len(c) != 5 || c[0] != "id" || !strings.Contains(strings.ToUpper(c[1]), "INT") || c[2] != "primary key" {
		b.fatalf("schema row for superhero.id %q: want its name, type and primary key", c)
	}
	if c := cols["publisher_id"]; len(c) != 5 || c[2] != "→ publisher.id" {
		b.fatalf("schema row for superhero.publisher_id %q: want → publisher.id", c)
	}
	if c := cols["superhero_name"]; len(c) != 5 || c[3] != "the name of the superhero" || c[4] != "3-D Man|A-Bomb|Abe Sapien" {
		b.fatalf("schema row for superhero.superhero_name %q: want BIRD's description and example values", c)
	}
	b.screenshotAt("#schema", "serve-browser-schema.png")
	b.typeInto("#schema-filter", "publisher_name")
	b.waitTrue("the schema filtered", `const shown = [...document.querySelectorAll('#schema-body details.schema-table')].filter(d => !d.hidden).map(d => d.dataset.table);
		return shown.join(',') === 'publisher' && document.querySelector('#schema-body details[data-table="publisher"]').open`)
	b.typeInto("#schema-filter", "")

	// History: labelled filters, readable times, the question and evidence
	// as text, every feedback.
	b.click("#nav-history")
	row := fmt.Sprintf(`#history-table tbody tr[data-answer-id="%d"]`, id)
	b.waitTrue("the answer in the history", `return !document.getElementById('view-history').hidden && document.getElementById('history-table').getAttribute('aria-busy') === 'false' && !!document.querySelector('`+row+`')`)
	var unlabelled []string
	b.evalInto(&unlabelled, `return ['h-db', 'h-outcome', 'h-feedback', 'h-q'].filter(id => !document.querySelector('label[for="' + id + '"]'))`)
	if len(unlabelled) > 0 {
		b.fatalf("history filters without a label: %q", unlabelled)
	}
	var hc []string
	b.evalInto(&hc, `return [...document.querySelector('`+row+`').cells].map(c => c.textContent)`)
	if len(hc) != 7 || hc[0] != "Open #"+answerID || hc[2] != "superhero" || hc[3] != xssQuestion ||
		!strings.HasPrefix(hc[5], "ran, 3 rows") || !strings.Contains(hc[6], "👎") || !strings.Contains(hc[6], "corrected (ok): "+correction) ||
		!strings.Contains(hc[6], xssComment) {
		b.fatalf("history row %q: want the answer, its question as text, ran 3 rows, 👎, the correction and the comment", hc)
	}
	var when struct{ Text, ISO string }
	b.evalInto(&when, `const t = document.querySelector('`+row+` time'); return {Text: t.textContent, ISO: t.getAttribute('datetime')}`)
	if _, err := time.Parse(time.RFC3339Nano, when.ISO); err != nil || strings.Contains(when.Text, "T") || regexp.MustCompile(`\d:\d\d\.\d`).MatchString(when.Text) || !regexp.MustCompile(`\d:\d\d:\d\d`).MatchString(when.Text) {
		b.fatalf("history time %q (datetime %q): want local time to the second, no ISO T, no fraction", when.Text, when.ISO)
	}
	numbersRow := fmt.Sprintf(`#history-table tbody tr[data-answer-id="%d"]`, numbersID)
	if got := b.evalString(`return document.querySelector('` + numbersRow + ` .evidence').textContent`); got != "Evidence: "+xssEvidence {
		b.fatalf("history evidence %q, want it as text", got)
	}
	wrongBadge := fmt.Sprintf(`#history-table tbody tr[data-answer-id="%d"] .badge`, wrongID)
	if got := b.evalString(`const e = document.querySelector('` + wrongBadge + `'); return e ? e.dataset.level + ':' + e.textContent : ''`); got != "likely_wrong:Likely wrong" {
		b.fatalf("history's confidence badge for the likely-wrong answer %q, want likely_wrong:Likely wrong", got)
	}
	b.noXSS("in the history")
	b.screenshot("serve-browser-history.png")

	// Reopen: the answer with its evidence, SQL, rows, confidence and
	// feedback.
	b.click(numbersRow + " button.open")
	b.waitTrue("the answer reopened", fmt.Sprintf(`return !document.getElementById('view-ask').hidden
		&& document.getElementById('answer').dataset.answerId === '%d'
		&& document.getElementById('answer-question').textContent === %q
		&& document.getElementById('answer-evidence').textContent === %q
		&& document.getElementById('answer-sql').textContent === %q
		&& document.querySelectorAll('#result-table tbody tr').length === 3
		&& !document.getElementById('confidence').hidden && document.getElementById('confidence-label').textContent !== ''
		&& location.hash === '#answer-%d'`, numbersID, qNumbers, "Evidence: "+xssEvidence, sqlNumbers, numbersID))
	b.noXSS("in the reopened answer")
	b.click("#nav-history")
	b.waitTrue("the history again", `return document.getElementById('history-table').getAttribute('aria-busy') === 'false' && !!document.querySelector('`+row+`')`)
	b.click(row + " button.open")
	b.waitTrue("the first answer reopened with its feedback", fmt.Sprintf(`return document.getElementById('answer').dataset.answerId === '%d'
		&& document.getElementById('thumb-down').getAttribute('aria-pressed') === 'true'
		&& document.getElementById('thumb-up').getAttribute('aria-pressed') === 'false'
		&& document.querySelectorAll('#feedback-list li').length === %d
		&& document.querySelectorAll('#result-table tbody tr').length === 3`, id, 3))
	b.noXSS("in the reopened answer's feedback")
	b.screenshotAt("#answer-question", "serve-browser-reopen.png")
	// a link to an answer reopens it with its chart (rows?page=N carries it)
	b.evalString(fmt.Sprintf(`location.hash = '#answer-%d'; return ''`, chartID))
	b.waitTrue("the chart answer reopened with its chart", fmt.Sprintf(`const c = document.getElementById('chart');
		return document.getElementById('answer').dataset.answerId === '%d' && !c.hidden && c.dataset.kind === 'bar' && c.querySelectorAll('svg rect.bar').length === 4`, chartID))

	// Admin actions show for an admin's key only: an analyst sees none; an
	// admin downloads the training data, the correction in it.
	b.click("#nav-stats")
	if b.evalString(`return String(document.getElementById('admin').hidden)`) != "true" {
		b.fatalf("an analyst's key shows the admin section")
	}
	b.click("#change-key")
	b.typeInto("#api-key", adminKey)
	b.click("#save-key")
	b.waitTrue("the admin key's owner", `return document.getElementById('key-status').textContent === 'key of ops (admin)' && !document.getElementById('admin').hidden`)
	tarball := b.download("#admin-export", "#admin-export-link", "feedback-export.tar")
	files := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.fatalf("the downloaded export: %v", err)
		}
		data, _ := io.ReadAll(tr)
		files[h.Name] = string(data)
	}
	if fb, ok := files["feedback-export/feedback.json"]; !ok || !strings.Contains(fb, "SELECT superhero_name FROM superhero WHERE id") {
		b.fatalf("the downloaded export holds %d files, feedback.json %.300q: want it, with the correction", len(files), fb)
	}
	b.click("#change-key")
	b.typeInto("#api-key", browserKey)
	b.click("#save-key")
	b.waitTrue("the analyst's key again", `return document.getElementById('key-status').textContent === 'key of alice (analyst)' && document.getElementById('admin').hidden`)
	b.click("#nav-ask")

	// A phone: the page does not scroll sideways; tables scroll in their box.
	b.narrow(390, 844)
	b.screenshotAt("#answer", "serve-browser-phone.png")
	b.click("#nav-history")
	b.waitTrue("the history at phone width", `return document.getElementById('history-table').getAttribute('aria-busy') === 'false' && !!document.querySelector('`+row+`')`)
	b.fitsWidth("History at phone width")
	b.screenshot("serve-browser-phone-history.png")
	b.consoleClean()

	// The store has every feedback, as the page sent them.
	st, err := feedback.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := st.Answer(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Question != xssQuestion || e.DBID != "superhero" || e.Model != "fake-browser" || e.Outcome != feedback.OutcomeOK || e.Rows != 3 {
		t.Errorf("stored answer %+v", e.Answer)
	}
	if len(e.Feedback) != 3 {
		t.Fatalf("%d feedbacks stored, want 3 (thumbs up, thumbs down, correction): %+v", len(e.Feedback), e.Feedback)
	}
	up, down, fix := e.Feedback[0], e.Feedback[1], e.Feedback[2]
	if up.Verdict != feedback.VerdictUp || up.Author != "alice" || up.CorrectedSQL != "" || down.Verdict != feedback.VerdictDown || down.Author != "alice" {
		t.Errorf("first feedbacks %+v, %+v: want a thumbs up then a thumbs down by alice, one click each", up, down)
	}
	if fix.Verdict != "" || fix.CorrectedSQL != correction || fix.Correction != feedback.CorrectionOK || fix.Comment != xssComment || fix.Author != "alice" {
		t.Errorf("third feedback %+v, want the correction (ok) and the comment, no verdict", fix)
	}
}

// TestServeBrowserKeyboard walks from a question to a recorded verdict with
// the keyboard alone (Tab, Shift+Tab, typing, Enter, Space): every control on
// the way is reachable, shows where the focus is, and works without a click.
func TestServeBrowserKeyboard(t *testing.T) {
	b, base, store := newBrowserTest(t, "serve-browser-keyboard-failure.png")
	walkKeyboard(b, base, store)
}

// walkKeyboard is TestServeBrowserKeyboard's walk, on a server like
// walkPage's.
func walkKeyboard(b *browser, base, store string) {
	t := b.t
	b.open(base + "/")

	b.tabTo("#api-key", 10)
	b.typeKeys(browserKey)
	b.press(keyEnter)
	b.waitTrue("the key saved", `const s = document.getElementById('key-status').textContent;
		return localStorage.getItem('sqlrl-serve-api-key') === '`+browserKey+`' && s !== '' && s !== 'checking…'`)

	b.tabTo("#question", 20)
	b.typeKeys(qNumbers)
	b.tabTo("#ask-btn", 5)
	b.press(keyEnter)
	b.waitTrue("the answer's rows", `return !document.getElementById('answer').hidden && document.querySelectorAll('#result-table tbody tr').length === 3`)
	id := b.evalString(`return document.getElementById('answer').dataset.answerId`)

	// A sortable header by keyboard.
	b.tabTo(`#result-table th button[data-col="1"]`, 20)
	b.press(keyEnter)
	b.waitTrue("rows sorted by keyboard", `return [...document.querySelectorAll('#result-table tbody tr')].map(r => r.cells[0].textContent).join('|') === 'Abe Sapien|3-D Man|A-Bomb'`)

	// Thumbs: Space on one, then Shift+Tab and Enter on the other.
	b.tabTo("#thumb-down", 20)
	b.press(keySpace)
	b.waitTrue("thumbs down recorded by keyboard", `return /^feedback #\d+ recorded: 👎/.test(document.getElementById('feedback-status').textContent)
		&& document.getElementById('thumb-down').getAttribute('aria-pressed') === 'true'`)
	b.press(keyShift, keyTab)
	b.focused("#thumb-up")
	b.press(keyEnter)
	b.waitTrue("the verdict changed by keyboard", `return /^feedback #\d+ recorded: 👍/.test(document.getElementById('feedback-status').textContent)
		&& document.getElementById('thumb-up').getAttribute('aria-pressed') === 'true'`)

	// A correction: typed, run with Enter, its rows shown, sent with Enter.
	b.tabTo("#corrected-sql", 5)
	b.typeKeys(correction)
	b.tabTo("#run-correction", 3)
	b.press(keyEnter)
	b.waitTrue("the corrected SQL's rows by keyboard", `return document.querySelectorAll('#correction-table tbody tr').length === 2`)
	b.tabTo("#send-feedback", 5)
	b.press(keyEnter)
	b.waitTrue("the correction recorded by keyboard", `return document.getElementById('feedback-status').textContent.endsWith('recorded; the corrected SQL ran')`)
	b.screenshotAt("#answer-question", "serve-browser-keyboard.png")
	b.consoleClean()

	st, err := feedback.Open(b.ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, _ := strconv.ParseInt(id, 10, 64)
	e, err := st.Answer(b.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Feedback) != 3 || e.Feedback[0].Verdict != feedback.VerdictDown || e.Feedback[1].Verdict != feedback.VerdictUp ||
		e.Feedback[2].CorrectedSQL != correction || e.Feedback[2].Correction != feedback.CorrectionOK {
		t.Fatalf("feedback stored by the keyboard walk %+v: want thumbs down, thumbs up, then the correction", e.Feedback)
	}
}

// newBrowserTest starts the server over the bundled superhero database with
// the fake model, and a Chromium session; it skips without SQLRL_CHROMIUM.
func newBrowserTest(t *testing.T, failure string) (*browser, string, string) {
	t.Helper()
	base, store := startBrowserServer(t, t.TempDir(), browserGen{sql: browserSQL})
	return startBrowser(t, base, failure), base, store
}

// startBrowser opens a Chromium session for the server at base; failure
// names the screenshot a failed step keeps. It skips without SQLRL_CHROMIUM.
func startBrowser(t *testing.T, base, failure string) *browser {
	t.Helper()
	chromium := os.Getenv("SQLRL_CHROMIUM")
	if chromium == "" {
		t.Skip("SQLRL_CHROMIUM is not set: the browser test needs headless Chromium and chromedriver (scripts/browser.sh installs them; scripts/test.sh sets it)")
	}
	driverBin := os.Getenv("SQLRL_CHROMEDRIVER")
	if driverBin == "" {
		var err error
		if driverBin, err = exec.LookPath("chromedriver"); err != nil {
			t.Fatalf("SQLRL_CHROMIUM is set but chromedriver is not found (set SQLRL_CHROMEDRIVER or run scripts/browser.sh): %v", err)
		}
	}
	artifacts := os.Getenv("SQLRL_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	} else if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	wd := startWebDriver(ctx, t, driverBin, chromium, t.TempDir(), artifacts)
	return &browser{t: t, ctx: ctx, wd: wd, artifacts: artifacts, base: base, failure: failure}
}

// startBrowserServer serves a copy of the bundled superhero database on
// 127.0.0.1 with gen as the model; it returns the base URL and the store's
// file.
func startBrowserServer(t *testing.T, dir string, gen askserver.SQLGenerator) (string, string) {
	t.Helper()
	src := filepath.Join("..", "datasets", "bird-dev-sample", "dev_databases", "superhero", "superhero.sqlite")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "superhero.sqlite"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// BIRD's column descriptions, for the schema browser.
	if err := os.CopyFS(filepath.Join(dir, "database_description"), os.DirFS(filepath.Join(filepath.Dir(src), "database_description"))); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "serve.json")
	cfg := `{"databases": {"superhero": {"sqlite": "superhero.sqlite"}},
		"api_keys": {"alice": {"key": "` + browserKey + `", "role": "analyst"}, "ops": {"key": "` + adminKey + `", "role": "admin"}},
		"limits": {"page_size": 10, "statement_timeout": "5s"}}`
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := askserver.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := askserver.New(context.Background(), c, askserver.Options{Generator: gen})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
		s.Close()
	})
	return "http://" + ln.Addr().String(), c.Store
}

// webDriver is a W3C WebDriver session on a chromedriver this test started.
type webDriver struct {
	url       string // http://127.0.0.1:PORT/session/ID
	client    *http.Client
	logPath   string
	downloads string // where the browser saves downloads
}

// elementKey is the W3C name of an element reference in JSON.
const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// errNoSuchAlert is WebDriver's answer to an alert query when none is open.
var errNoSuchAlert = errors.New("no such alert")

// do sends one command; path is relative to the session. It returns the
// answer's "value", or WebDriver's error ("unexpected alert open" among
// them: a dialog the page opened).
func (w *webDriver) do(ctx context.Context, method, path string, body any) (json.RawMessage, error) {
	return wdCall(ctx, w.client, method, w.url+path, body)
}

func wdCall(ctx context.Context, client *http.Client, method, url string, body any) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("webdriver %s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("webdriver %s %s: %w", method, url, err)
	}
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("webdriver %s %s: %d, not JSON: %.200q", method, url, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		json.Unmarshal(out.Value, &e)
		if e.Error == errNoSuchAlert.Error() {
			return nil, errNoSuchAlert
		}
		msg, _, _ := strings.Cut(e.Message, "\n")
		return nil, fmt.Errorf("webdriver %s %s: %d %s: %s", method, url, resp.StatusCode, e.Error, msg)
	}
	return out.Value, nil
}

// startWebDriver starts chromedriver on a free loopback port and opens a
// session with headless Chromium on a fresh profile; both end with the test.
// The flags keep Chromium off the network (this machine's is closed, and
// background requests would only add noise and time).
func startWebDriver(ctx context.Context, t *testing.T, driverBin, chromium, dir, artifacts string) *webDriver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	downloads := filepath.Join(dir, "downloads")
	if err := os.MkdirAll(downloads, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(artifacts, "serve-browser-chromedriver.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(driverBin, "--port="+strconv.Itoa(port), "--allowed-ips=127.0.0.1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so that the browser it starts ends with it
	// even when the session could not be closed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", driverBin, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		logFile.Close()
	})
	client := &http.Client{Timeout: time.Minute}
	root := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := wdCall(ctx, client, "GET", root+"/status", nil)
		var st struct {
			Ready bool `json:"ready"`
		}
		if err == nil && json.Unmarshal(v, &st) == nil && st.Ready {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("chromedriver on port %d not ready after 30 s: %v\n%s", port, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		// An alert stays open and fails every later command, so a
		// payload that ran cannot go unnoticed.
		"unhandledPromptBehavior": "ignore",
		"goog:loggingPrefs":       map[string]string{"browser": "ALL"},
		"goog:chromeOptions": map[string]any{
			"binary": chromium,
			"args": []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--window-size=1280,1400", "--lang=en-US", "--user-data-dir=" + filepath.Join(dir, "chromium-profile")},
			// Downloads land in a folder the test reads, without asking.
			"prefs": map[string]any{"download.default_directory": downloads, "download.prompt_for_download": false},
		},
	}}}
	v, err := wdCall(ctx, client, "POST", root+"/session", caps)
	if err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("start a Chromium session (%s): %v\n%s", chromium, err, log)
	}
	var sess struct {
		SessionID    string `json:"sessionId"`
		Capabilities struct {
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(v, &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("new session answer %s: %v", v, err)
	}
	t.Logf("Chromium %s via %s", sess.Capabilities.BrowserVersion, driverBin)
	w := &webDriver{url: root + "/session/" + sess.SessionID, client: client, logPath: logPath, downloads: downloads}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		w.do(ctx, "DELETE", "", nil)
	})
	return w
}

// browser is the test's view of the page: each step fails the test with the
// page's text and a screenshot.
type browser struct {
	t         *testing.T
	ctx       context.Context
	wd        *webDriver
	artifacts string
	base      string // the server's URL
	failure   string // the screenshot a failure keeps
}

// fatalf fails the test with what the page showed at the time.
func (b *browser) fatalf(format string, args ...any) {
	b.t.Helper()
	msg := fmt.Sprintf(format, args...)
	if v, err := b.wd.do(b.ctx, "POST", "/execute/sync", map[string]any{"script": "return document.body.innerText", "args": []any{}}); err == nil {
		var text string
		json.Unmarshal(v, &text)
		msg += "\npage text:\n" + text
	} else {
		msg += fmt.Sprintf("\n(page text unavailable: %v)", err)
	}
	if path, err := b.save(b.failure); err == nil {
		msg += "\nscreenshot: " + path
	}
	msg += "\nchromedriver log: " + b.wd.logPath
	b.t.Fatal(msg)
}

func (b *browser) find(css string) string {
	b.t.Helper()
	v, err := b.wd.do(b.ctx, "POST", "/element", map[string]string{"using": "css selector", "value": css})
	if err != nil {
		b.fatalf("find %s: %v", css, err)
	}
	var ref map[string]string
	if err := json.Unmarshal(v, &ref); err != nil || ref[elementKey] == "" {
		b.fatalf("find %s: answer %s", css, v)
	}
	return ref[elementKey]
}

func (b *browser) click(css string) {
	b.t.Helper()
	if _, err := b.wd.do(b.ctx, "POST", "/element/"+b.find(css)+"/click", map[string]any{}); err != nil {
		b.fatalf("click %s: %v", css, err)
	}
}

func (b *browser) typeInto(css, text string) {
	b.t.Helper()
	el := b.find(css)
	if _, err := b.wd.do(b.ctx, "POST", "/element/"+el+"/clear", map[string]any{}); err != nil {
		b.fatalf("clear %s: %v", css, err)
	}
	if text == "" {
		return
	}
	if _, err := b.wd.do(b.ctx, "POST", "/element/"+el+"/value", map[string]string{"text": text}); err != nil {
		b.fatalf("type into %s: %v", css, err)
	}
	if got := b.evalString(`return document.querySelector(arguments[0]).value`, css); got != text {
		b.fatalf("%s holds %q after typing %q", css, got, text)
	}
}

// evalInto runs script (a function body; arguments[i] are args) and decodes
// what it returns into out.
func (b *browser) evalInto(out any, script string, args ...any) {
	b.t.Helper()
	if args == nil {
		args = []any{}
	}
	v, err := b.wd.do(b.ctx, "POST", "/execute/sync", map[string]any{"script": script, "args": args})
	if err != nil {
		b.fatalf("run %.80q: %v", script, err)
	}
	if err := json.Unmarshal(v, out); err != nil {
		b.fatalf("run %.80q: answer %s: %v", script, v, err)
	}
}

func (b *browser) evalString(script string, args ...any) string {
	b.t.Helper()
	var s string
	b.evalInto(&s, script, args...)
	return s
}

// waitTrue polls script until it returns true: the page answers
// asynchronously, so each state is waited for, with a deadline.
func (b *browser) waitTrue(what, script string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		b.evalInto(&ok, script)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b.fatalf("waited 30 s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// noXSS fails when any payload ran: the flag it sets, an open dialog, or an
// element the markup would have made.
func (b *browser) noXSS(when string) {
	b.t.Helper()
	if _, err := b.wd.do(b.ctx, "GET", "/alert/text", nil); !errors.Is(err, errNoSuchAlert) {
		b.fatalf("%s: a dialog is open or the alert query failed: %v", when, err)
	}
	var state struct {
		Flag     *string `json:"flag"`
		Elements int     `json:"elements"`
	}
	b.evalInto(&state, `return {flag: window.__xss === undefined ? null : String(window.__xss),
		elements: document.querySelectorAll('main img, main script, main b').length}`)
	if state.Flag != nil || state.Elements != 0 {
		flag := "undefined"
		if state.Flag != nil {
			flag = strconv.Quote(*state.Flag)
		}
		b.fatalf("%s: a payload was parsed as HTML: window.__xss=%s, %d img/script/b elements in the page's main", when, flag, state.Elements)
	}
}

// consoleClean fails on a script error or a Content-Security-Policy refusal
// in the browser's console (where a payload that got parsed would show up).
func (b *browser) consoleClean() {
	b.t.Helper()
	v, err := b.wd.do(b.ctx, "POST", "/se/log", map[string]string{"type": "browser"})
	if err != nil {
		b.t.Logf("browser console not available: %v", err)
		return
	}
	var entries []struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(v, &entries); err != nil {
		b.fatalf("browser console %s: %v", v, err)
	}
	for _, e := range entries {
		b.t.Logf("console %s: %s", e.Level, e.Message)
		if strings.Contains(e.Message, "Content Security Policy") || strings.Contains(e.Message, "Uncaught") {
			b.fatalf("browser console: %s %s", e.Level, e.Message)
		}
	}
}

func (b *browser) screenshot(name string) {
	b.t.Helper()
	path, err := b.save(name)
	if err != nil {
		b.fatalf("screenshot %s: %v", name, err)
	}
	b.t.Logf("screenshot: %s", path)
}

// screenshotAt scrolls css to the top of the window, then takes the
// screenshot, so that it shows what the step is about.
func (b *browser) screenshotAt(css, name string) {
	b.t.Helper()
	b.evalInto(new(any), `document.querySelector(arguments[0]).scrollIntoView({block: 'start'}); return null`, css)
	b.screenshot(name)
}

func (b *browser) save(name string) (string, error) {
	v, err := b.wd.do(b.ctx, "GET", "/screenshot", nil)
	if err != nil {
		return "", err
	}
	var enc string
	if err := json.Unmarshal(v, &enc); err != nil {
		return "", err
	}
	png, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", err
	}
	path := filepath.Join(b.artifacts, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// open loads the page and waits for its database list.
func (b *browser) open(url string) {
	b.t.Helper()
	if _, err := b.wd.do(b.ctx, "POST", "/url", map[string]any{"url": url}); err != nil {
		b.fatalf("open %s: %v", url, err)
	}
	b.waitTrue("the database list", `return !!document.querySelector('#db option[value="superhero"]')`)
}

// ask types a question (and evidence), clicks Ask and waits for the new
// answer: rows result rows, or an error shown when rows is -1. It returns
// the answer's id.
func (b *browser) ask(question, evidence string, rows int) int64 {
	b.t.Helper()
	before := b.evalString(`return document.getElementById('answer').dataset.answerId || ''`)
	b.typeInto("#question", question)
	b.typeInto("#evidence", evidence)
	b.click("#ask-btn")
	check := fmt.Sprintf(`document.querySelectorAll('#result-table tbody tr').length === %d`, rows)
	if rows < 0 {
		check = `!document.getElementById('answer-error').hidden`
	}
	b.waitTrue(fmt.Sprintf("the answer to %q", question), fmt.Sprintf(`const a = document.getElementById('answer');
		return !a.hidden && (a.dataset.answerId || '') !== %q && document.getElementById('answer-question').textContent === %q && %s`, before, question, check))
	s := b.evalString(`return document.getElementById('answer').dataset.answerId`)
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		b.fatalf("answer's data-answer-id %q: %v", s, err)
	}
	return id
}

// runColumn is the first column of sql's every row, run through POST
// /api/run as CSV with the analyst's key: a reference the page is checked
// against.
func (b *browser) runColumn(base, sql string) []string {
	b.t.Helper()
	body, _ := json.Marshal(map[string]string{"db": "superhero", "sql": sql, "format": "csv"})
	req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, base+"/api/run", bytes.NewReader(body))
	if err != nil {
		b.fatalf("run %s: %v", sql, err)
	}
	req.Header.Set("X-API-Key", browserKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.fatalf("run %s: %v", sql, err)
	}
	defer resp.Body.Close()
	recs, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil || resp.StatusCode != http.StatusOK || len(recs) == 0 {
		b.fatalf("run %s: %d %v", sql, resp.StatusCode, err)
	}
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[0])
	}
	return out
}

// csvDownload clicks "Download CSV" and parses the file the browser saved
// (download); name, when given, is the file name the page offers.
func (b *browser) csvDownload(name string) [][]string {
	b.t.Helper()
	raw := b.download("#csv-download", "#csv-link", name)
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		b.fatalf("the downloaded CSV %.200q: %v", raw, err)
	}
	return recs
}

// download clicks button and reads the file the browser saved from the
// page's link (a Blob URL): its name (name, when given) and its size
// against the link's data-bytes.
func (b *browser) download(button, link, name string) []byte {
	b.t.Helper()
	old, err := os.ReadDir(b.wd.downloads)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, e := range old {
		os.Remove(filepath.Join(b.wd.downloads, e.Name()))
	}
	b.click(button)
	b.waitTrue("the download link "+link, fmt.Sprintf(`const a = document.querySelector(%q);
		return !a.hidden && a.href.startsWith('blob:') && (%q === '' || a.download === %q)`, link, name, name))
	var got struct {
		Name  string `json:"name"`
		Bytes string `json:"bytes"`
	}
	b.evalInto(&got, `const a = document.querySelector(arguments[0]); return {name: a.download, bytes: a.dataset.bytes}`, link)
	path := filepath.Join(b.wd.downloads, got.Name)
	deadline := time.Now().Add(30 * time.Second)
	var raw []byte
	for {
		// Chromium writes NAME.crdownload and renames it when complete.
		if raw, err = os.ReadFile(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(b.wd.downloads)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			b.fatalf("waited 30 s for the download %s; the folder holds %q", path, names)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got.Bytes != strconv.Itoa(len(raw)) {
		b.fatalf("the downloaded %s holds %d bytes, the page says %s", got.Name, len(raw), got.Bytes)
	}
	return raw
}

// WebDriver's key codes.
const (
	keyTab   = "\uE004"
	keyEnter = "\uE007"
	keyShift = "\uE008"
	keySpace = " "
)

// press holds keys down in order and lets them go in reverse (a chord such
// as Shift+Tab), as a keyboard does.
func (b *browser) press(keys ...string) {
	b.t.Helper()
	var acts []map[string]string
	for _, k := range keys {
		acts = append(acts, map[string]string{"type": "keyDown", "value": k})
	}
	for i := len(keys) - 1; i >= 0; i-- {
		acts = append(acts, map[string]string{"type": "keyUp", "value": keys[i]})
	}
	b.actions(acts)
}

// typeKeys types text key by key into the focused element.
func (b *browser) typeKeys(text string) {
	b.t.Helper()
	var acts []map[string]string
	for _, r := range text {
		acts = append(acts, map[string]string{"type": "keyDown", "value": string(r)}, map[string]string{"type": "keyUp", "value": string(r)})
	}
	b.actions(acts)
}

func (b *browser) actions(acts []map[string]string) {
	b.t.Helper()
	body := map[string]any{"actions": []any{map[string]any{"type": "key", "id": "keyboard", "actions": acts}}}
	if _, err := b.wd.do(b.ctx, "POST", "/actions", body); err != nil {
		b.fatalf("keyboard: %v", err)
	}
}

// tabTo presses Tab until css has the focus, at most max times, and checks
// that the focus shows.
func (b *browser) tabTo(css string, max int) {
	b.t.Helper()
	var seen []string
	for range max {
		b.press(keyTab)
		var at struct {
			Match bool   `json:"match"`
			Name  string `json:"name"`
		}
		b.evalInto(&at, `const e = document.activeElement;
			return {match: e.matches(arguments[0]), name: e.id || (e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ':' + e.textContent.slice(0, 20))}`, css)
		if at.Match {
			b.focused(css)
			return
		}
		seen = append(seen, at.Name)
	}
	b.fatalf("%d Tab presses did not reach %s; the focus went through %q", max, css, seen)
}

// focused fails unless css has the focus and shows it (an outline).
func (b *browser) focused(css string) {
	b.t.Helper()
	var f struct {
		Match   bool   `json:"match"`
		Outline string `json:"outline"`
	}
	b.evalInto(&f, `const e = document.activeElement, s = getComputedStyle(e);
		return {match: e.matches(arguments[0]), outline: s.outlineStyle === 'none' ? '' : s.outlineWidth + ' ' + s.outlineStyle}`, css)
	if !f.Match {
		b.fatalf("the focus is not on %s", css)
	}
	if f.Outline == "" || strings.HasPrefix(f.Outline, "0px") {
		b.fatalf("%s has the focus but shows no outline (%q)", css, f.Outline)
	}
}

// narrow sets the window to a phone's size and checks that the page does
// not scroll sideways.
func (b *browser) narrow(w, h int) {
	b.t.Helper()
	if _, err := b.wd.do(b.ctx, "POST", "/window/rect", map[string]int{"width": w, "height": h}); err != nil {
		b.fatalf("resize the window to %dx%d: %v", w, h, err)
	}
	var inner int
	b.evalInto(&inner, `return window.innerWidth`)
	if inner > w {
		b.fatalf("the window is %d px wide after resizing to %d", inner, w)
	}
	b.fitsWidth(fmt.Sprintf("the page at %d px", inner))
}

// fitsWidth fails when the page is wider than the window (sideways
// scrolling); tables scroll inside their own box instead.
func (b *browser) fitsWidth(what string) {
	b.t.Helper()
	var wide struct {
		Page     int      `json:"page"`
		View     int      `json:"view"`
		Culprits []string `json:"culprits"`
	}
	b.evalInto(&wide, `const view = document.documentElement.clientWidth, culprits = [];
		const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n && culprits.length < 8; n = walker.nextNode()) {
			const e = n.nodeType === Node.TEXT_NODE ? n.parentElement : n;
			if (e.closest('.table-wrap') && !e.classList.contains('table-wrap')) continue;
			let rects;
			if (n.nodeType === Node.TEXT_NODE) { const r = document.createRange(); r.selectNodeContents(n); rects = [...r.getClientRects()]; }
			else rects = [...n.getClientRects()];
			if (rects.some(r => r.right > view + 1)) culprits.push((n.nodeType === Node.TEXT_NODE ? 'text in ' : '') + e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className : ''));
		}
		return {page: document.documentElement.scrollWidth, view: view, culprits: culprits}`)
	if wide.Page > wide.View {
		b.fatalf("%s scrolls sideways: %d px of page in a %d px window (too wide: %q)", what, wide.Page, wide.View, wide.Culprits)
	}
}
