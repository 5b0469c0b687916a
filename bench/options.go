package bench

import (
	"flag"
	"fmt"
	"strings"
)

// allPresets names the v1 and v2 presets.
func allPresets() []string { return append(PresetNames(), V2PresetNames()...) }

// Flags declares -preset, -seed, -out and -force on fs, defaulting to o's.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Preset, "preset", o.Preset, "size: "+strings.Join(allPresets(), ", "))
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "random seed; the same seed gives the same files")
	fs.StringVar(&o.Out, "out", o.Out, "output directory")
	fs.BoolVar(&o.Force, "force", o.Force, "replace an existing output directory")
}

// Check refuses an unknown preset, naming the known ones.
func (o *Options) Check() error {
	_, v1 := LookupPreset(o.Preset)
	_, v2 := LookupV2Preset(o.Preset)
	if !v1 && !v2 {
		return fmt.Errorf("unknown preset %q (want %s)", o.Preset, strings.Join(allPresets(), ", "))
	}
	return nil
}
