package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
)

// errHelp reports that -h was given and the usage printed: the command
// ends successfully without doing anything.
var errHelp = errors.New("help shown")

// parseFlags parses args into fs and rejects positional arguments. After
// -h it returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}

// isHelpFlag reports -h, -help or --help, which ask a command for its
// usage.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}

// startCPUProfile writes a CPU profile to path until the returned stop
// function is called. An empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
