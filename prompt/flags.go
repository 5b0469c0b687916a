package prompt

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
)

// String and Set make a Dialect a flag.Value (ParseDialect's names).
func (d *Dialect) String() string { return string(*d) }

// Set parses a dialect name as ParseDialect does.
func (d *Dialect) Set(s string) error {
	v, err := ParseDialect(s)
	if err == nil {
		*d = v
	}
	return err
}

// Flags declares -dialect and -max-tokens (the prompt's dialect and token
// budget), defaulting to o's; an unset dialect defaults to SQLite.
func (o *Options) Flags(fs *flag.FlagSet) {
	if o.Dialect == "" {
		o.Dialect = SQLite
	}
	fs.Var(&o.Dialect, "dialect", "SQL dialect named in the prompts: sqlite or postgresql")
	fs.IntVar(&o.Budget, "max-tokens", o.Budget, "token budget of a prompt (approximate count); larger schemas lose their least relevant tables; 0: no limit")
}

// Check refuses a negative budget, naming the flag.
func (o *Options) Check() error {
	if o.Budget < 0 {
		return fmt.Errorf("-max-tokens %d: want 0 (no limit) or more", o.Budget)
	}
	return nil
}

// examplesFlag is -examples: the example values shown per column, 0 for
// none (a negative CatalogOptions.Examples; its 0 means the default).
type examplesFlag struct{ n *int }

func (e examplesFlag) String() string {
	if e.n == nil || *e.n < 0 {
		return "0"
	}
	if *e.n == 0 {
		return strconv.Itoa(DefaultExamples)
	}
	return strconv.Itoa(*e.n)
}

func (e examplesFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return errors.New("want a number")
	case v < 0:
		return errors.New("want 0 or more")
	case v == 0:
		v = -1
	}
	*e.n = v
	return nil
}

// Flags declares -examples, the distinct example values shown per column.
func (o *CatalogOptions) Flags(fs *flag.FlagSet) {
	fs.Var(examplesFlag{&o.Examples}, "examples", "distinct example values shown per column; 0: none")
}
