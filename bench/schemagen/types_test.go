package schemagen

import "testing"

// TestEveryColumnHasAType: a column without a declared type writes an
// empty type in the DDL and an empty data_format in its description
// (letter flags had none).
func TestEveryColumnHasAType(t *testing.T) {
	for _, dom := range Domains() {
		for seed := uint64(1); seed <= 3; seed++ {
			db, err := Design(dom, seed)
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range db.Tables {
				for _, c := range tb.Columns {
					if c.Type == "" {
						t.Errorf("%s: %s.%s (%s) has no declared type", db.ID, tb.Name, c.Name, c.Role)
					}
				}
			}
		}
	}
}
