package askserver

import (
	"archive/tar"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/feedback"
	"github.com/sqlrl/sqlrl/httpserve"
)

// exportDir is the folder the export's files are in inside its tar: what
// `tar xf` leaves for `sqlrl train kto -data` and `data prepare -rollouts`.
const exportDir = "feedback-export"

// export: GET /api/admin/export: the training set of the store, as
// `sqlrl data from-feedback -store STORE -out DIR` writes it without
// -db-root (feedback.json, rollouts.jsonl, manifest.json; the trainers'
// prompt files need the databases laid out as a BIRD root, which served
// databases are not), as one tar download.
func (s *Server) export(ctx context.Context, r *http.Request) (any, error) {
	if _, err := s.authorize(r, RoleAdmin); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "sqlrl-export-")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer os.RemoveAll(tmp)
	o := feedback.DefaultExportOptions()
	o.Out = filepath.Join(tmp, exportDir)
	if _, err := feedback.Export(ctx, s.store, o); err != nil {
		return nil, err
	}
	// The export is read whole before the response starts, so that a
	// failure is an error status and not a cut download.
	entries, err := os.ReadDir(o.Out)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(o.Out, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		files = append(files, file{e.Name(), data})
	}
	now := time.Now()
	return httpserve.RespondFunc(func(w http.ResponseWriter) {
		startDownload(w, "application/x-tar", exportDir+".tar")
		tw := tar.NewWriter(w)
		for _, f := range files {
			hdr := &tar.Header{Name: exportDir + "/" + f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: now, Typeflag: tar.TypeReg}
			if tw.WriteHeader(hdr) != nil {
				return
			}
			if _, err := tw.Write(f.data); err != nil {
				return
			}
		}
		// A failed write is the client gone mid-download: nothing to tell.
		_ = tw.Close()
	}), nil
}
