package experiment

import (
	"flag"
	"io"
	"strconv"
	"testing"

	"github.com/sqlrl/sqlrl/nn"
)

// TestFlywheelPreset: the flywheel's flags given on the command line override
// the quick preset's settings, the others keep the quick preset's, and a
// share or round count out of range is refused as it is parsed.
func TestFlywheelPreset(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		check   func(p Preset) bool
		wantErr bool
	}{
		{"none", nil, func(p Preset) bool {
			q := FlywheelQuick()
			return p.RL.Steps == q.RL.Steps && p.RL.Pool == q.RL.Pool && p.Rounds == 0
		}, false},
		{"steps and guided", []string{"-kto-steps", "7", "-guided=false"}, func(p Preset) bool {
			return p.RL.Steps == 7 && !p.RL.Guided && p.RL.K == FlywheelQuick().RL.K
		}, false},
		{"heldout", []string{"-heldout", "0"}, func(p Preset) bool { return p.RL.Pool == 0 }, false},
		{"heldout share", []string{"-heldout", "0.2"}, func(p Preset) bool {
			return p.RL.Pool == PoolFor(FlywheelQuick().RL.Fraction, 0.2)
		}, false},
		{"rounds", []string{"-kto-rounds", "3", "-merge", "0.5"}, func(p Preset) bool { return p.Rounds == 3 && p.Merge == 0.5 }, false},
		{"ctx", []string{"-ctx", "512"}, func(p Preset) bool {
			return p.SFT.Model != nil && p.SFT.Model.MaxSeq == 512 && p.SFT.Model.Dim == MicroModel.Dim
		}, false},
		{"words renamed, description phrase", []string{"-rename-text", "-rename-each", "0.5", "-desc-phrase", "-rename", "0.5"}, func(p Preset) bool {
			return p.SFT.RenameText && p.RL.RenameText && p.SFT.RenameEach == 0.5 && p.RL.Rename == 0.5 && p.SFT.DescPhrase
		}, false},
		{"rename-each above 1", []string{"-rename-each", "1.5"}, nil, true},
		{"rename-text not a bool", []string{"-rename-text=maybe"}, nil, true},
		{"ctx too short", []string{"-ctx", "100"}, nil, true},
		{"heldout 1", []string{"-heldout", "1"}, nil, true},
		{"rounds 0", []string{"-kto-rounds", "0"}, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := Flywheel()
			fs := flag.NewFlagSet("flywheel", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f.FlywheelFlags(fs)
			err := fs.Parse(tt.args)
			var p Preset
			if err == nil {
				p, err = FlywheelPreset(f, true, fs)
			}
			if tt.wantErr {
				if err == nil {
					t.Fatalf("%v accepted", tt.args)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(p) {
				t.Errorf("%v: preset %+v", tt.args, p)
			}
		})
	}
}

// TestFlywheelSettingsDeclared: every flywheel setting is declared as a
// flag and points at a field of a kind FlywheelPreset copies, so a new
// setting cannot be left out of -quick silently.
func TestFlywheelSettingsDeclared(t *testing.T) {
	p := Flywheel()
	fs := flag.NewFlagSet("flywheel", flag.ContinueOnError)
	p.FlywheelFlags(fs)
	for _, s := range flywheelSettings {
		if fs.Lookup(s.name) == nil {
			t.Errorf("-%s: not declared", s.name)
		}
		if s.copy != nil {
			continue
		}
		switch s.field(&p).(type) {
		case *int, *float64, *bool:
		default:
			t.Errorf("-%s: field of type %T, which FlywheelPreset does not copy", s.name, s.field(&p))
		}
	}
}

// TestFlywheelQuickHeldOut: with -quick, -heldout keeps its share of the
// quick preset's holdout, whatever SFT share the full preset had.
func TestFlywheelQuickHeldOut(t *testing.T) {
	f := Flywheel()
	f.RL.Fraction = 0.5 // unlike the quick preset's
	fs := flag.NewFlagSet("flywheel", flag.ContinueOnError)
	f.FlywheelFlags(fs)
	if err := fs.Parse([]string{"-heldout", "0.2"}); err != nil {
		t.Fatal(err)
	}
	p, err := FlywheelPreset(f, true, fs)
	if err != nil {
		t.Fatal(err)
	}
	if got := HeldOutShare(p.RL); got < 0.2-1e-9 || got > 0.2+1e-9 {
		t.Errorf("held-out share %v (pool %v at SFT share %v), want 0.2", got, p.RL.Pool, p.RL.Fraction)
	}
}

// TestContextFlag: -ctx keeps the preset's shape but its context, and the
// preset's own context leaves the model unset, so that runs keep their IDs.
func TestContextFlag(t *testing.T) {
	small, err := nn.Preset("small", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arg  string
		want int // 0: the model left unset
		// from a preset whose default context is not the shape's own
		// (specialise's), as a command line resets it
		from1024 bool
	}{{"0", 0, false}, {strconv.Itoa(small.MaxSeq), 0, false}, {"1024", 1024, false},
		{"0", 0, true}, {strconv.Itoa(small.MaxSeq), 0, true}, {"2048", 2048, true}} {
		p := Flywheel()
		p.SFT.Preset = "small"
		if tc.from1024 {
			m := small
			m.MaxSeq = 1024
			p.SFT.Model = &m
		}
		if err := (contextValue{&p}).Set(tc.arg); err != nil {
			t.Fatalf("-ctx %s: %v", tc.arg, err)
		}
		switch {
		case tc.want == 0 && p.SFT.Model != nil:
			t.Errorf("-ctx %s set the model %+v", tc.arg, *p.SFT.Model)
		case tc.want > 0 && (p.SFT.Model == nil || p.SFT.Model.MaxSeq != tc.want || p.SFT.Model.Dim != small.Dim || p.SFT.Model.Layers != small.Layers):
			t.Errorf("-ctx %s: model %+v, want small's shape at %d tokens", tc.arg, p.SFT.Model, tc.want)
		}
	}
}

// TestRenamingWithoutSFTRenaming: where SFT renames nothing (specialise's
// preset), the settings that shape SFT's renaming are refused, not
// silently inert.
func TestRenamingWithoutSFTRenaming(t *testing.T) {
	for _, args := range [][]string{{"-rename-text"}, {"-rename-each", "0.5"}} {
		p := Flywheel()
		p.SFT.Rename = -1
		fs := flag.NewFlagSet("specialise", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		p.FlywheelFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if _, err := FlywheelPreset(p, false, fs); err == nil {
			t.Errorf("%v accepted where SFT renames nothing", args)
		}
	}
	p := Flywheel()
	p.SFT.Rename = -1
	if err := p.CheckFlywheel(); err != nil {
		t.Errorf("no renaming at all: %v", err)
	}
}
