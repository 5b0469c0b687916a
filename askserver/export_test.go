package askserver

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrl/sqlrl/feedback"
)

// TestAdminExport: the tar holds what `sqlrl data from-feedback` writes
// from the same store, byte for byte; an analyst may not download it.
func TestAdminExport(t *testing.T) {
	gen := &fakeGen{sql: map[string]string{"count": "SELECT COUNT(*) FROM superhero", "colours": "SELECT colour FROM colour"}}
	s, ts := newAnalystTest(t, gen, nil)
	up := int64(ask(t, ts, "superhero", "count")["answer_id"].(float64))
	fixed := int64(ask(t, ts, "superhero", "colours")["answer_id"].(float64))
	for id, body := range map[int64]map[string]string{
		up:    {"verdict": "up"},
		fixed: {"verdict": "down", "corrected_sql": "SELECT colour FROM colour ORDER BY colour"},
	} {
		if code, out := call(t, ts, "POST", fmt.Sprintf("/api/answers/%d/feedback", id), analystKey, body); code != 200 {
			t.Fatalf("feedback: %d %v", code, out)
		}
	}
	if code, raw := callRaw(t, ts, "GET", "/api/admin/export", analystKey, nil); code != 403 || !strings.Contains(string(raw), "needs an admin key") {
		t.Errorf("analyst: %d %s", code, raw)
	}
	resp := do(t, ts, "GET", "/api/admin/export", testKey, nil)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-tar" || resp.Header.Get("Content-Disposition") != `attachment; filename="feedback-export.tar"` {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	got := map[string][]byte{}
	tr := tar.NewReader(resp.Body)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name], _ = io.ReadAll(tr)
	}
	o := feedback.DefaultExportOptions()
	o.Out = filepath.Join(t.TempDir(), "out")
	m, err := feedback.Export(context.Background(), s.store, o)
	if err != nil {
		t.Fatal(err)
	}
	if m.Questions != 2 {
		t.Errorf("export has %d questions, want 2", m.Questions)
	}
	want, _ := os.ReadDir(o.Out)
	if len(want) != len(got) || len(want) < 3 {
		t.Errorf("tar holds %d files, the export %d", len(got), len(want))
	}
	for _, e := range want {
		w, _ := os.ReadFile(filepath.Join(o.Out, e.Name()))
		if g := got["feedback-export/"+e.Name()]; !bytes.Equal(g, w) {
			t.Errorf("%s: tar's\n%s\nwant\n%s", e.Name(), g, w)
		}
	}
}
