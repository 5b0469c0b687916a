package httpserve

import (
	"flag"
	"fmt"
	"strconv"
)

// MaxBodyFlag declares -max-body-mib on fs: Config.MaxBodyBytes given in
// MiB and kept in bytes at p, *p its default.
func MaxBodyFlag(fs *flag.FlagSet, p *int64) {
	fs.Var(mibValue{p}, "max-body-mib", "largest request body in MiB (larger: 413)")
}

// mibValue is a byte count set in MiB.
type mibValue struct{ p *int64 }

func (v mibValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p>>20, 10)
}

func (v mibValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return fmt.Errorf("%q: want a whole number of MiB", s)
	}
	*v.p = n << 20
	return nil
}
