// Command smoke designs and writes 4 databases of every domain into a new
// directory and prints one line per database (id, tables, columns, rows,
// file bytes) and the total time: the figures of schemagen's report.
//
//	go run ./bench/schemagen/testdata/smoke /tmp/schemagen-out
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlrl/sqlrl/bench/schemagen"
)

func main() {
	out := os.Args[1]
	if _, err := os.Stat(out); err == nil {
		fmt.Println(out, "exists")
		os.Exit(1)
	}
	start := time.Now()
	for _, d := range schemagen.Domains() {
		for s := uint64(1); s <= 4; s++ {
			db, err := schemagen.Design(d, s)
			if err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
			cols, rows := 0, 0
			for _, t := range db.Tables {
				cols += len(t.Columns)
				rows += len(t.Rows)
			}
			if err := schemagen.Write(context.Background(), db, filepath.Join(out, db.ID)); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
			st, _ := os.Stat(filepath.Join(out, db.ID, db.ID+".sqlite"))
			fmt.Println(db.ID, len(db.Tables), cols, rows, st.Size())
		}
	}
	fmt.Println("took", time.Since(start))
}
