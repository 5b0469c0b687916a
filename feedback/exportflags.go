package feedback

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlrl/sqlrl/prompt"
)

// DefaultExportOptions are `sqlrl data from-feedback`'s defaults.
func DefaultExportOptions() ExportOptions {
	return ExportOptions{Prompt: prompt.Options{Dialect: prompt.SQLite, Budget: 8192}}
}

// Flags declares the export's settings on fs, defaulting to o's.
func (o *ExportOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "out", o.Out, "output directory (required)")
	fs.StringVar(&o.DBRoot, "db-root", o.DBRoot, "databases as DIR/<db_id>/<db_id>.sqlite, for the prompts of the TRL/OpenRLHF files")
	o.Prompt.Flags(fs)
}

// OpenExisting opens the store at location as Open does, but refuses a
// SQLite file that does not exist: opening would create an empty store,
// and a typo must not export nothing silently.
func OpenExisting(ctx context.Context, location string) (Store, error) {
	if !IsPostgres(location) {
		if _, err := os.Stat(location); err != nil {
			return nil, fmt.Errorf("store %s: %w", location, err)
		}
	}
	return Open(ctx, location)
}

// WriteText prints the export's counts, written to out.
func (m *ExportManifest) WriteText(w io.Writer, out string) {
	fmt.Fprintf(w, "%d answers: %d questions with a signal, %d desirable, %d undesirable, %d DPO pairs -> %s\n",
		m.Answers, m.Questions, m.Desirable, m.Undesirable, m.DPOPairs, out)
	if !m.Prompts {
		fmt.Fprintln(w, "no -config or -db-root: TRL/OpenRLHF files not written (their prompts need the databases)")
	}
}
