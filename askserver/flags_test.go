package askserver

import (
	"strings"
	"testing"
	"time"
)

// Check names the flag of a setting out of range.
func TestBenchOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		edit func(*BenchOptions)
		want string
	}{
		{func(*BenchOptions) {}, ""},
		{func(o *BenchOptions) { o.Config = "" }, "-config"},
		{func(o *BenchOptions) { o.Clients = 0 }, "-clients"},
		{func(o *BenchOptions) { o.FeedbackShare = 2 }, "-feedback-share"},
		{func(o *BenchOptions) { o.KillAfter = 2 * time.Minute }, "-kill-after"},
	} {
		o := DefaultBenchOptions()
		o.Config = "c.json"
		c.edit(&o)
		err := o.Check()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check() = %v, want an error naming %q", err, c.want)
		}
	}
}

// -db takes NAME=PATH once per name.
func TestDatabaseFlags(t *testing.T) {
	d := DatabaseFlags{}
	for _, c := range []struct {
		v  string
		ok bool
	}{{"a=a.sqlite", true}, {"b=b.sqlite", true}, {"a=c.sqlite", false}, {"nopath", false}, {"=x", false}} {
		if err := d.Set(c.v); (err == nil) != c.ok {
			t.Errorf("Set(%q) = %v", c.v, err)
		}
	}
	if got := d.String(); got != "a=a.sqlite,b=b.sqlite" {
		t.Errorf("String() = %q", got)
	}
}
