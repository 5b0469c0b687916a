package dbcopy

import "testing"

func TestDSNWithUser(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"postgres://admin:pw@127.0.0.1:5432/db?sslmode=disable", "postgres://ro@127.0.0.1:5432/db?sslmode=disable"},
		{"postgresql://admin@host/db", "postgresql://ro@host/db"},
		{"host=127.0.0.1 dbname=db", "host=127.0.0.1 dbname=db user=ro"},
	} {
		if got := DSNWithUser(c.dsn, "ro"); got != c.want {
			t.Errorf("DSNWithUser(%q) = %q, want %q", c.dsn, got, c.want)
		}
	}
}
