package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlrl/sqlrl/export"
)

// TestMain lets a test run this binary as sqlrl itself (SQLRL_TEST_MAIN=1),
// to kill it as a user's kill -9 would, without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("SQLRL_TEST_MAIN") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// sqlrl runs the CLI in-process from the repository root, as a user would.
func sqlrl(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestHelpListsCommands(t *testing.T) {
	out, _, code := sqlrl(t, "--help")
	if code != 0 || !strings.Contains(out, "eval") {
		t.Fatalf("code %d, help:\n%s", code, out)
	}
	_, errs, code := sqlrl(t, "no-such-command")
	if code != 2 || !strings.Contains(errs, `unknown command "no-such-command"`) {
		t.Fatalf("code %d: %s", code, errs)
	}
	_, errs, code = sqlrl(t, "eval", "--help")
	if code != 0 || !strings.Contains(errs, "--gold-as-pred") && !strings.Contains(errs, "-gold-as-pred") {
		t.Fatalf("eval --help: code %d\n%s", code, errs)
	}
}

func TestEvalGoldAsPredJSON(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	verdicts := filepath.Join(dir, "v.jsonl")
	_, errs, code := sqlrl(t, "eval", "--gold-as-pred", "--quiet", "--json", report, "--verdicts", verdicts)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	var rep struct {
		Total struct {
			Count    int
			Correct  int
			Accuracy float64
		}
		Levels []struct{ Level string }
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total.Count != 287 || rep.Total.Accuracy != 100 || len(rep.Levels) != 3 {
		t.Fatalf("report: %+v", rep)
	}
	lines, _ := os.ReadFile(verdicts)
	if n := bytes.Count(lines, []byte("\n")); n != 287 {
		t.Fatalf("%d verdict lines, want 287", n)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, 2, "exactly one of"},
		{[]string{"eval", "--gold-as-pred", "--mode", "x"}, 2, `--mode "x"`},
		{[]string{"eval", "--pred", "/no/such/file"}, 1, "/no/such/file"},
		{[]string{"eval", "--gold", "g.sql", "--gold-as-pred"}, 2, "--gold needs --db-root"},
		{[]string{"eval", "--data", "/no/such/dir", "--gold-as-pred"}, 1, "/no/such/dir"},
	}
	for _, tt := range tests {
		_, errs, code := sqlrl(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}

// checkPrepared checks that dir is one whole prepared output: the manifest
// lists exactly the files present with their sizes and checksums, and no
// question is in both sft.jsonl and holdout.jsonl.
func checkPrepared(t *testing.T, dir string) (seed uint64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, export.FileManifest))
	if err != nil {
		t.Fatalf("no manifest: %v", err)
	}
	var m export.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(m.Files)+1 {
		t.Errorf("%d entries in %s, manifest lists %d files", len(ents), dir, len(m.Files))
	}
	ids := map[string]map[int]bool{}
	for _, e := range ents {
		name := e.Name()
		if name == export.FileManifest {
			continue
		}
		fi, ok := m.Files[name]
		if !ok {
			t.Errorf("%s is not in the manifest", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != fi.Bytes || hex.EncodeToString(sum[:]) != fi.SHA256 {
			t.Errorf("%s: %d bytes, sha256 %x; manifest says %d, %s", name, len(data), sum, fi.Bytes, fi.SHA256)
		}
		if name == export.FileSFT || name == export.FileHoldout {
			ids[name] = map[int]bool{}
			for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				var r struct {
					QuestionID int `json:"question_id"`
				}
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ids[name][r.QuestionID] = true
			}
		}
	}
	both := 0
	for id := range ids[export.FileSFT] {
		if ids[export.FileHoldout][id] {
			both++
		}
	}
	if both > 0 {
		t.Errorf("%d question ids in both %s and %s", both, export.FileSFT, export.FileHoldout)
	}
	return m.Seed
}

// TestDataPrepareKill9 kills 'sqlrl data prepare' with SIGKILL at several
// points of a run over an existing output (after the prompts, after the
// first, fifth and last file written) and checks after each that the
// output is one whole run's, old or new; the next run removes what the
// killed one staged.
func TestDataPrepareKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs data prepare several times")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bench := filepath.Join(wd, "../../datasets/bird-dev-sample")
	parent := t.TempDir()
	out := filepath.Join(parent, "prepared")
	prepare := func(seed int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "data", "prepare", "-split", "dev", "-seed", fmt.Sprint(seed), "-out", out, bench)
		cmd.Env = append(os.Environ(), "SQLRL_TEST_MAIN=1")
		return cmd
	}
	if b, err := prepare(1).CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, b)
	}
	checkPrepared(t, out)
	// Each point: the number of "wrote" lines to wait for (0: the first
	// progress line of any kind).
	for i, wrote := range []int{0, 1, 5, 9} {
		seed := 2 + i
		cmd := prepare(seed)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		n := 0
		for sc.Scan() {
			if strings.Contains(sc.Text(), ": wrote ") {
				n++
			}
			if n >= wrote {
				break
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		go func() {
			for sc.Scan() {
			}
		}()
		cmd.Wait()
		got := checkPrepared(t, out)
		t.Logf("killed after %d files written: output has seed %d (new run: %d)", wrote, got, seed)
	}
	if b, err := prepare(9).CombinedOutput(); err != nil {
		t.Fatalf("last run: %v\n%s", err, b)
	}
	if got := checkPrepared(t, out); got != 9 {
		t.Errorf("after a full run the output has seed %d, want 9", got)
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("beside the output: %v, want nothing (a killed run's staging is removed by the next run)", names)
	}
}

// sqlrlOsStdout is sqlrl for commands that print to os.Stdout itself
// (eval prints its table there): it captures that too.
func sqlrlOsStdout(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdout
	os.Stdout = f
	out, errs, code := sqlrl(t, args...)
	os.Stdout = saved
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return out + string(b), errs, code
}

// TestEvalBadInputStops runs 'sqlrl eval' on each bad input of issue 14:
// it must exit non-zero, name the file and the record, and print no score.
func TestEvalBadInputStops(t *testing.T) {
	tmp := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := os.ReadFile("../../datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	// bench writes a one-question benchmark on db_id db whose database
	// file is data (nil: a directory in its place).
	bench := func(name, db string, data []byte) string {
		dir := filepath.Join(tmp, name)
		q := fmt.Sprintf(`[{"question_id": 0, "db_id": %q, "question": "How many heroes?", "SQL": "SELECT COUNT(*) FROM superhero", "difficulty": "simple"}]`, db)
		file(filepath.Join(name, "dev.json"), q)
		p := filepath.Join(dir, "dev_databases", "superhero", "superhero.sqlite")
		if data == nil {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			file(filepath.Join(name, "dev_databases", "superhero", "superhero.sqlite"), string(data))
		}
		return dir
	}
	const sep = `\t----- bird -----\t`
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"bird list", []string{"--pred", file("list.json", `["SELECT 1`+sep+`superhero"]`)}, []string{"list.json", "line 1", "JSON list"}},
		{"bird duplicate key", []string{"--pred", file("dup.json", "{\n\"0\": \"SELECT 1"+sep+"superhero\",\n\"0\": \"SELECT 2"+sep+"superhero\"\n}")},
			[]string{"dup.json", "line 3", `key "0"`}},
		{"empty json", []string{"--pred", file("empty.json", "")}, []string{"empty.json", "no predictions"}},
		{"blank sql", []string{"--pred", file("blank.sql", " \n\n\t\n")}, []string{"blank.sql", "no predictions"}},
		{"blank jsonl", []string{"--pred", file("blank.jsonl", "\n")}, []string{"blank.jsonl", "no predictions"}},
		{"unknown question_id", []string{"--pred", file("unknown.jsonl", "{\"question_id\": 99999, \"sql\": \"SELECT 1\"}\n")}, []string{"unknown.jsonl", "line 1", "question_id 99999"}},
		{"malformed jsonl", []string{"--pred", file("bad.jsonl", "{\"question_id\": 0, \"sql\": \"SELECT 1\"}\n{\"question_id\": 1, \"sql\": \n")}, []string{"bad.jsonl", "line 2"}},
		{"bird key out of range", []string{"--pred", file("range.json", `{"5000": "SELECT 1`+sep+`superhero"}`)}, []string{"range.json", `key "5000"`}},
		{"text database", []string{"--gold-as-pred", "--data", bench("text", "superhero", []byte("not a database\n"))}, []string{"superhero.sqlite", "dev.json: record 0"}},
		{"0-byte database", []string{"--gold-as-pred", "--data", bench("zero", "superhero", []byte{})}, []string{"superhero.sqlite", "dev.json: record 0"}},
		{"truncated database", []string{"--gold-as-pred", "--data", bench("trunc", "superhero", good[:len(good)/3])}, []string{"superhero.sqlite", "dev.json: record 0"}},
		{"directory database", []string{"--gold-as-pred", "--data", bench("dir", "superhero", nil)}, []string{"superhero.sqlite", "dev.json: record 0"}},
		{"db_id parent", []string{"--gold-as-pred", "--data", bench("parent", "../superhero", good)}, []string{"dev.json", "record 0", `"../superhero"`}},
		{"db_id absolute", []string{"--gold-as-pred", "--data", bench("abs", "/etc/passwd", good)}, []string{"dev.json", "record 0", `"/etc/passwd"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := sqlrlOsStdout(t, append([]string{"eval", "--quiet"}, tt.args...)...)
			if code == 0 {
				t.Fatalf("exit 0; stdout:\n%s", out)
			}
			if out != "" {
				t.Errorf("printed on stdout before failing:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not mention %q", errs, w)
				}
			}
		})
	}
}
