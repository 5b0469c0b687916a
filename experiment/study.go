package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrl/sqlrl/dataset"
)

// StudyConfig is a pre-registered study (`sqlrl experiment study`,
// docs/rl.md): what it trains (a preset, its settings, the studies whose
// arms it compares, the seeds) and how its result will be judged (the
// metric, the split, the comparisons, the primary one, the decision rule),
// written in a file committed before its first run. The report prints the
// file's sha256 and whether it changed after the first run began.
type StudyConfig struct {
	// Name names the study (letters, digits, - and _): its record in the
	// output directory and the default directory out/study-<name>.
	Name     string `json:"name"`
	Question string `json:"question"`
	// Preset is the starting preset: quick, full, flywheel,
	// flywheel-quick or flywheel-studies (OKTO studies at the flywheel's
	// scale); Settings change it by `experiment flywheel` flag name
	// (sft-epochs, kto-steps, heldout, kto-rounds, sft100, ...).
	Preset   string         `json:"preset"`
	Settings map[string]any `json:"settings,omitempty"`
	// Studies are the plan's studies (StudyNames, or flywheel); Arms the
	// keys of their arms the study compares.
	Studies []string `json:"studies"`
	Arms    []string `json:"arms"`
	Seeds   []uint64 `json:"seeds"`
	// Metric is what is compared: "ex" (execution accuracy).
	Metric string `json:"metric"`
	// Split is where the decision is made: "test" (the sealed split, read
	// by -final-test) for a claim, a dev split for a pilot.
	Split       string       `json:"split"`
	Comparisons []ArmPair    `json:"comparisons"`
	Primary     ArmPair      `json:"primary"`
	Decision    DecisionRule `json:"decision"`
}

// ArmPair is a comparison: treatment minus control, by arm key.
type ArmPair struct {
	Treatment string `json:"treatment"`
	Control   string `json:"control"`
}

// DecisionRule says when the primary comparison's claim holds: on the
// decision split, over at least MinSeeds seeds whose runs used at least
// MinKernels gemm kernels, the Holm-corrected p below Alpha and the
// interval's lower bound above 0, and the config committed and unchanged
// since the first run began.
type DecisionRule struct {
	Alpha      float64 `json:"alpha"`
	MinSeeds   int     `json:"min_seeds"`
	MinKernels int     `json:"min_kernels"`
	// Resamples of the bootstrap (0: significance.DefaultResamples) and
	// its seed.
	Resamples     int    `json:"resamples,omitempty"`
	BootstrapSeed uint64 `json:"bootstrap_seed,omitempty"`
}

var studyName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ReadStudyConfig reads a study's config file strictly (an unknown field
// is an error: a misspelt setting must not pass as a default) and checks
// it; it returns the file's bytes too, for the record of its hash.
func ReadStudyConfig(path string) (*StudyConfig, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("study config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c StudyConfig
	if err := dec.Decode(&c); err != nil {
		return nil, nil, fmt.Errorf("study config %s: %w", path, err)
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("study config %s: more than one JSON value", path)
	}
	if err := c.check(); err != nil {
		return nil, nil, fmt.Errorf("study config %s: %w", path, err)
	}
	return &c, raw, nil
}

// check refuses a config that cannot be run or judged, naming the field.
func (c *StudyConfig) check() error {
	switch {
	case !studyName.MatchString(c.Name):
		return fmt.Errorf("name %q: want letters, digits, - and _", c.Name)
	case len(c.Studies) == 0:
		return fmt.Errorf("studies: none (want some of %s, %s)", strings.Join(StudyNames(), ", "), StudyFlywheel)
	case len(c.Seeds) == 0:
		return errors.New("seeds: none")
	case c.Metric != "ex":
		return fmt.Errorf("metric %q: want ex (execution accuracy)", c.Metric)
	case c.Split == "" || c.Split == "train" || dataset.IsPart(c.Split):
		return fmt.Errorf("split %q: want test (the sealed split) or a dev split", c.Split)
	case len(c.Arms) < 2:
		return errors.New("arms: want two or more")
	case len(c.Comparisons) == 0:
		return errors.New("comparisons: none")
	case !(c.Decision.Alpha > 0 && c.Decision.Alpha < 1):
		return fmt.Errorf("decision.alpha %v: want one in (0, 1)", c.Decision.Alpha)
	case c.Decision.MinSeeds < 1 || c.Decision.MinKernels < 1:
		return fmt.Errorf("decision.min_seeds %d and decision.min_kernels %d: want 1 or more each (the protocol's headline: 5 seeds, 2 kernels)", c.Decision.MinSeeds, c.Decision.MinKernels)
	case c.Decision.Resamples < 0:
		return fmt.Errorf("decision.resamples %d: want 0 (the default) or more", c.Decision.Resamples)
	}
	seen := map[uint64]bool{}
	for _, s := range c.Seeds {
		if seen[s] {
			return fmt.Errorf("seeds: %d twice", s)
		}
		seen[s] = true
	}
	arms := map[string]bool{}
	for _, a := range c.Arms {
		if arms[a] {
			return fmt.Errorf("arms: %q twice", a)
		}
		arms[a] = true
	}
	for i, p := range c.Comparisons {
		if !arms[p.Treatment] || !arms[p.Control] || p.Treatment == p.Control {
			return fmt.Errorf("comparisons[%d] %s vs %s: want two different arms of \"arms\"", i, p.Treatment, p.Control)
		}
		if slices.Index(c.Comparisons, p) != i {
			return fmt.Errorf("comparisons[%d] %s vs %s: twice", i, p.Treatment, p.Control)
		}
	}
	if !slices.Contains(c.Comparisons, c.Primary) {
		return fmt.Errorf("primary %s vs %s: not one of the comparisons", c.Primary.Treatment, c.Primary.Control)
	}
	_, err := c.preset()
	return err
}

// studyPresets are the presets a study may start from.
var studyPresets = map[string]func() Preset{
	"quick": Quick, "full": Full, "flywheel": Flywheel, "flywheel-quick": FlywheelQuick, "flywheel-studies": FlywheelStudies,
}

// preset is the config's preset with its settings, each set as its
// `experiment flywheel` flag would set it, in name order.
func (c *StudyConfig) preset() (Preset, error) {
	mk, ok := studyPresets[c.Preset]
	if !ok {
		names := make([]string, 0, len(studyPresets))
		for n := range studyPresets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Preset{}, fmt.Errorf("preset %q: want one of %s", c.Preset, strings.Join(names, ", "))
	}
	p := mk()
	fs := flag.NewFlagSet("settings", flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	p.FlywheelFlags(fs)
	names := make([]string, 0, len(c.Settings))
	for n := range c.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if fs.Lookup(n) == nil {
			var known []string
			fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
			return Preset{}, fmt.Errorf("settings.%s: no such setting (want one of %s)", n, strings.Join(known, ", "))
		}
		var v string
		switch x := c.Settings[n].(type) {
		case bool:
			v = strconv.FormatBool(x)
		case float64:
			v = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			return Preset{}, fmt.Errorf("settings.%s: %v is not a number or true/false", n, x)
		}
		if err := fs.Set(n, v); err != nil {
			return Preset{}, fmt.Errorf("settings.%s: %w", n, err)
		}
	}
	if strings.HasPrefix(c.Preset, "flywheel") {
		if err := p.CheckFlywheel(); err != nil {
			return Preset{}, fmt.Errorf("settings: %w", err)
		}
		switch c.Preset { // the budget of the settings, not the preset's
		case "flywheel":
			p.Budget = FlywheelBudget(p)
		case "flywheel-studies":
			p.Budget = studiesBudget(p)
		}
	}
	return p, nil
}
