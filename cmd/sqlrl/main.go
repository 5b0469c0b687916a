// Command sqlrl makes Text2SQL models better from the feedback of executing
// their SQL, and serves them. Each subcommand lives in its own file and only
// wires flags to the packages that do the work.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/sqlrl/sqlrl/dataset"
	"github.com/sqlrl/sqlrl/experiment"
	"github.com/sqlrl/sqlrl/nn"
)

// command is one subcommand. Its name may have several words ("bench
// generate"); run gets the arguments after the name.
type command struct {
	name    string
	summary string
	// usage is the text after "usage: sqlrl <name>", e.g. "[flags] FILE".
	usage string
	// help is printed under the usage line by --help.
	help string
	// args checks the arguments left after the flags before the command
	// runs (argsNone, argsExactly, argsMin); nil takes any.
	args func(args []string) error
	// flags declares the command's flags on fs and returns the function
	// that runs it once they are parsed.
	flags func(fs *flag.FlagSet) func(ctx context.Context, args []string) error
}

// argsNone refuses arguments.
func argsNone(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// argsExactly wants n arguments; what says which ("one benchmark directory").
func argsExactly(n int, what string) func([]string) error {
	return func(args []string) error {
		if len(args) != n {
			return usagef("want %s, got %d arguments", what, len(args))
		}
		return nil
	}
}

// argsMin wants n arguments or more; what says which.
func argsMin(n int, what string) func([]string) error {
	return func(args []string) error {
		if len(args) < n {
			return usagef("want %s, got %d arguments", what, len(args))
		}
		return nil
	}
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("sqlrl: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks errors caused by how the command was called; they print
// the command's usage and exit with 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// The longest registered name that prefixes args wins.
	var cmd *command
	var n int
	for i := len(args); i > 0; i-- {
		if c := commands[strings.Join(args[:i], " ")]; c != nil {
			cmd, n = c, i
			break
		}
	}
	if cmd == nil {
		if len(args) > 0 && args[0] != "help" && args[0] != "-h" && args[0] != "--help" {
			if group := groupHelp(args[0]); group != "" {
				fmt.Fprint(stderr, group)
				return 2
			}
			fmt.Fprintf(stderr, "sqlrl: unknown command %q\n\n", strings.Join(args, " "))
			fmt.Fprint(stderr, mainHelp())
			return 2
		}
		fmt.Fprint(stdout, mainHelp())
		return 0
	}
	fs := flag.NewFlagSet("sqlrl "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	runFn := cmd.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: sqlrl %s %s\n\n%s\n", cmd.name, cmd.usage, strings.TrimSpace(cmd.summary))
		if cmd.help != "" {
			fmt.Fprintf(stderr, "\n%s\n", strings.TrimRight(cmd.help, "\n"))
		}
		fmt.Fprintf(stderr, "\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[n:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var err error
	if cmd.args != nil {
		err = cmd.args(fs.Args())
	}
	if err == nil {
		err = runFn(ctx, fs.Args())
	}
	if err != nil {
		var ue usageError
		if !errors.As(err, &ue) && errors.Is(err, dataset.ErrSplit) {
			ue.msg = err.Error()
		}
		if ue.msg != "" {
			fmt.Fprintf(stderr, "sqlrl %s: %s\n", cmd.name, ue.msg)
			fs.Usage()
			return 2
		}
		fmt.Fprintf(stderr, "sqlrl %s: %v\n", cmd.name, err)
		return 1
	}
	return 0
}

func mainHelp() string {
	return "sqlrl: Text2SQL models that improve from the feedback of executing their SQL.\n\nusage: sqlrl <command> [flags] [args]\n\ncommands:\n" +
		listCommands("") + "\nRun 'sqlrl <command> --help' for a command's flags.\n"
}

// groupHelp lists the subcommands under a first word ("sqlrl bench"), or
// is empty when there are none.
func groupHelp(word string) string {
	if list := listCommands(word + " "); list != "" {
		return fmt.Sprintf("usage: sqlrl %s <command>\n\ncommands:\n%s", word, list)
	}
	return ""
}

// listCommands lists the commands whose names start with prefix, sorted.
func listCommands(prefix string) string {
	var names []string
	for name := range commands {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "  %-18s %s\n", name, commands[name].summary)
	}
	return b.String()
}

// splitFlags declares -split and how a run cut train (dataset.SplitFlags),
// defaulting to dev and the flywheel's cut.
func splitFlags(fs *flag.FlagSet) *dataset.SplitFlags {
	s := &dataset.SplitFlags{Split: "dev", Parts: dataset.Parts{
		SFTFraction: dataset.DefaultSFTFraction, RLFraction: experiment.Flywheel().RL.Pool, Seed: 1}}
	s.Flags(fs)
	return s
}

// threadsFlag declares -threads (nn.ThreadsFlag).
func threadsFlag(fs *flag.FlagSet) *int {
	p := new(int)
	nn.ThreadsFlag(fs, p)
	return p
}

// writeJSON writes v as indented JSON to path (- for stdout, empty:
// nowhere); escapeHTML escapes <, > and & as encoding/json does by
// default.
func writeJSON(path string, v any, escapeHTML bool) error {
	if path == "" {
		return nil
	}
	return writeTo(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(escapeHTML)
		return enc.Encode(v)
	})
}

// writeTo calls write with path created, or with stdout for "-".
func writeTo(path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(os.Stdout)
	}
	f, err := os.Create(path)
	if err == nil {
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// flagSet reports whether the command line gave the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
