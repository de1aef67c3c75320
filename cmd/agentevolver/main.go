package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"
)

// command is one subcommand. Each lives in its own file and registers itself
// from an init function.
type command struct {
	name    string
	summary string
	// run executes the command with the arguments after its name.
	run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("agentevolver: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	applyDefaultMemoryLimit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		// "help train" is "train -h".
		if _, ok := commands[args[1]]; ok {
			args = []string{args[1], "-h"}
		}
	}
	switch {
	case len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "agentevolver: unknown command %q\n\n", args[1])
			usage(stderr)
			return 2
		}
		usage(stdout)
		return 0
	case args[0] == "version" || args[0] == "--version" || args[0] == "-version" || args[0] == "-v":
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "agentevolver: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(ctx, args[1:], stdin, stdout, stderr); err != nil && !errors.Is(err, errHelp) {
		fmt.Fprintf(stderr, "agentevolver %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: agentevolver <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "agentevolver help <command>" (or "agentevolver <command> -h") for the flags of a command,`)
	fmt.Fprintln(w, `"agentevolver --version" for the version.`)
}

// versionLine describes the build: the module's version (a tagged release,
// a pseudo-version, or "(devel)" for a build from a checkout), the VCS
// revision and time when the build recorded them, and the Go version.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "agentevolver (no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	line := "agentevolver " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		line += fmt.Sprintf(" (commit %s%s", rev, dirty)
		if at != "" {
			line += ", " + at
		}
		line += ")"
	}
	return line + " " + info.GoVersion
}
