package specialise

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlrl/sqlrl/dbgen"
	"github.com/sqlrl/sqlrl/export"
)

// SnapshotDir holds, under Options.Out, the SQLite snapshots of PostgreSQL
// databases, one folder per snapshot's sha256 (its first 12 hex digits).
const SnapshotDir = "snapshots"

// snapshotAll replaces every postgres:// DSN in o.DBs with SQLite snapshots
// of its schemas' readable tables (dbgen.SnapshotPostgres; one per schema
// of o.Snapshot.Schema, dbgen.Sources) under Out/snapshots/<sha256>/<db_id>/,
// and returns the snapshots by that path.
// The same data gives the same file, so a rerun finds its snapshot, and
// the stamp, done before; changed data gives a new folder, and the old
// snapshot, which an earlier serve.json may point to, stays.
func snapshotAll(ctx context.Context, o *Options) (map[string]*dbgen.Snapshot, error) {
	snaps := map[string]*dbgen.Snapshot{}
	var dbs []string
	for _, src := range dbgen.Sources(o.DBs, o.Snapshot.Schema) {
		if src.Schema == "" {
			dbs = append(dbs, src.DB)
			continue
		}
		root := filepath.Join(o.Out, SnapshotDir)
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, fmt.Errorf("specialise: %w", err)
		}
		tmp, err := os.MkdirTemp(root, "new-")
		if err != nil {
			return nil, fmt.Errorf("specialise: %w", err)
		}
		so := o.Snapshot
		so.Schema = src.Schema
		s, err := placeSnapshot(ctx, src.DB, so, root, tmp)
		os.RemoveAll(tmp)
		if err != nil {
			return nil, err
		}
		stage(o.Progress, fmt.Sprintf("snapshot: %s schema %s, %d tables copied into %s", s.Source, s.Schema, len(s.Tables), s.Path))
		dbs = append(dbs, s.Path)
		snaps[s.Path] = s
	}
	o.DBs = dbs
	return snaps, nil
}

// placeSnapshot snapshots db into tmp, then moves it to root/<sha256>/ unless
// that snapshot is there already.
func placeSnapshot(ctx context.Context, db string, so dbgen.SnapshotOptions, root, tmp string) (*dbgen.Snapshot, error) {
	s, err := dbgen.SnapshotPostgres(ctx, db, so, tmp)
	if err != nil {
		return nil, err
	}
	sum, err := export.FileSHA256(s.Path)
	if err != nil {
		return nil, fmt.Errorf("specialise: %w", err)
	}
	dir := filepath.Dir(s.Path)
	final := filepath.Join(root, sum[:12], filepath.Base(dir))
	s.Path = filepath.Join(final, filepath.Base(s.Path))
	if _, err := os.Stat(s.Path); err == nil {
		return s, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return nil, fmt.Errorf("specialise: %w", err)
	}
	if err := os.Rename(dir, final); err != nil {
		return nil, fmt.Errorf("specialise: place the snapshot: %w", err)
	}
	return s, nil
}
