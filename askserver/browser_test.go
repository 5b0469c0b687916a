//go:build linux

package askserver_test

// The page in a real browser: headless Chromium, driven through chromedriver's
// W3C WebDriver HTTP API, asks a question over a bundled database, reads the
// table, gives feedback, corrects the SQL and finds it all in the history.
// It runs where SQLRL_CHROMIUM names a Chromium binary (scripts/browser.sh
// installs Debian's and scripts/test.sh exports it) and skips elsewhere.
//
// Why WebDriver and not the DevTools protocol: WebDriver is plain JSON over
// HTTP, so the test needs nothing beyond net/http, while CDP speaks over a
// WebSocket, which would mean a new module dependency or a hand-written
// WebSocket client; WebDriver's clicks and typing are also real input events
// that refuse hidden or disabled elements. The price is one more Debian
// package (chromium-driver, same version as chromium).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
	// The question and the result carry markup that would run if the page
	// ever parsed them as HTML; each payload sets window.__xss and alerts.
	xssQuestion = `<img src=x onerror="window.__xss='question';alert(1)">`
	xssCell     = `<script>window.__xss='cell';alert(1)</script>`
	xssHeader   = `<img src=x onerror="window.__xss='header'">`
	xssComment  = `<b onmouseover="window.__xss='comment'">looks right</b>`
	correction  = "SELECT superhero_name FROM superhero WHERE id <= 2 ORDER BY id"
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

func TestServeBrowser(t *testing.T) {
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
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	base, store := startBrowserServer(t, dir, browserGen{sql: map[string]string{
		xssQuestion: `SELECT superhero_name AS hero, height_cm, '` + strings.ReplaceAll(xssCell, "'", "''") + `' AS "` +
			strings.ReplaceAll(xssHeader, `"`, `""`) + `" FROM superhero ORDER BY id LIMIT 3`,
	}})
	wd := startWebDriver(ctx, t, driverBin, chromium, dir, artifacts)
	b := &browser{t: t, ctx: ctx, wd: wd, artifacts: artifacts}

	// Ask: pick the database, type the question, click Ask, wait for rows.
	if _, err := wd.do(ctx, "POST", "/url", map[string]any{"url": base + "/"}); err != nil {
		b.fatalf("open %s/: %v", base, err)
	}
	b.waitTrue("the database list", `return !!document.querySelector('#db option[value="superhero"]')`)
	b.click(`#db option[value="superhero"]`)
	b.typeInto("#question", xssQuestion)
	b.click("#ask-btn")
	b.waitTrue("the answer's rows", `return !document.getElementById('answer').hidden && document.querySelectorAll('#result-table tbody tr').length === 3`)
	answerID := b.evalString(`return document.getElementById('answer').dataset.answerId`)
	id, err := strconv.ParseInt(answerID, 10, 64)
	if err != nil {
		b.fatalf("answer's data-answer-id %q: %v", answerID, err)
	}
	var table struct {
		Head []string   `json:"head"`
		Rows [][]string `json:"rows"`
	}
	b.evalInto(&table, `const t = document.getElementById('result-table');
		return {head: [...t.tHead.rows[0].cells].map(c => c.textContent),
			rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))}`)
	wantRows := [][]string{{"3-D Man", "188", xssCell}, {"A-Bomb", "203", xssCell}, {"Abe Sapien", "191", xssCell}}
	if fmt.Sprint(table.Head) != fmt.Sprint([]string{"hero", "height_cm", xssHeader}) || fmt.Sprint(table.Rows) != fmt.Sprint(wantRows) {
		b.fatalf("result table shows %q %q, want the header and cells as text: %q", table.Head, table.Rows, wantRows)
	}
	b.noXSS("after the answer")

	// Feedback: save the key, thumbs up, send.
	b.typeInto("#api-key", browserKey)
	b.click("#save-key")
	b.waitTrue("the key saved", `return document.getElementById('key-status').textContent === 'saved' && localStorage.getItem('sqlrl-serve-api-key') === '`+browserKey+`'`)
	b.click("#thumb-up")
	if p := b.evalString(`return document.getElementById('thumb-up').getAttribute('aria-pressed')`); p != "true" {
		b.fatalf("thumb-up aria-pressed %q after a click, want true", p)
	}
	b.click("#send-feedback")
	b.waitTrue("the thumbs up recorded", `return /^feedback #\d+ recorded$/.test(document.getElementById('feedback-status').textContent)`)

	// A correction: unpress the thumb, type SQL and a comment, send; the
	// page shows the corrected SQL's rows.
	b.click("#thumb-up")
	b.typeInto("#corrected-sql", correction)
	b.typeInto("#comment", xssComment)
	b.click("#send-feedback")
	b.waitTrue("the correction validated", `return document.getElementById('feedback-status').textContent.endsWith('recorded; the corrected SQL ran')
		&& !document.getElementById('correction-table').hidden
		&& document.querySelectorAll('#correction-table tbody tr').length === 2`)
	if got := b.evalString(`return [...document.querySelectorAll('#correction-table tbody td')].map(c => c.textContent).join('|')`); got != "3-D Man|A-Bomb" {
		b.fatalf("correction table %q, want 3-D Man|A-Bomb", got)
	}
	b.screenshot("serve-browser-answer.png")

	// History: the answer's row, its question as text, both feedbacks.
	b.click("#nav-history")
	row := fmt.Sprintf(`#history-table tbody tr[data-answer-id="%d"]`, id)
	b.waitTrue("the answer in the history", `return !document.getElementById('view-history').hidden && !!document.querySelector('`+row+`')`)
	var cells []string
	b.evalInto(&cells, `return [...document.querySelector('`+row+`').cells].map(c => c.textContent)`)
	if len(cells) != 7 || cells[0] != answerID || cells[2] != "superhero" || cells[3] != xssQuestion ||
		!strings.HasPrefix(cells[5], "ran, 3 rows") || !strings.Contains(cells[6], "👍") ||
		!strings.Contains(cells[6], "corrected (ok): "+correction) || !strings.Contains(cells[6], xssComment) {
		b.fatalf("history row %q: want the answer, its question as text, ran 3 rows, 👍, the correction and the comment", cells)
	}
	b.noXSS("in the history")
	b.screenshot("serve-browser-history.png")
	b.consoleClean()

	// The store has both feedbacks, as the page sent them.
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
	if len(e.Feedback) != 2 {
		t.Fatalf("%d feedbacks stored, want 2 (thumbs up, correction): %+v", len(e.Feedback), e.Feedback)
	}
	up, fix := e.Feedback[0], e.Feedback[1]
	if up.Verdict != feedback.VerdictUp || up.Author != "alice" || up.CorrectedSQL != "" {
		t.Errorf("first feedback %+v, want a thumbs up by alice", up)
	}
	if fix.Verdict != "" || fix.CorrectedSQL != correction || fix.Correction != feedback.CorrectionOK || fix.Comment != xssComment || fix.Author != "alice" {
		t.Errorf("second feedback %+v, want the correction (ok) and the comment, no verdict", fix)
	}
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
	cfgPath := filepath.Join(dir, "serve.json")
	cfg := `{"databases": {"superhero": {"sqlite": "superhero.sqlite"}},
		"api_keys": {"alice": {"key": "` + browserKey + `"}},
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
	url     string // http://127.0.0.1:PORT/session/ID
	client  *http.Client
	logPath string
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
				"--disable-dev-shm-usage", "--window-size=1280,1400", "--user-data-dir=" + filepath.Join(dir, "chromium-profile")},
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
	w := &webDriver{url: root + "/session/" + sess.SessionID, client: client, logPath: logPath}
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
	if path, err := b.save("serve-browser-failure.png"); err == nil {
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
