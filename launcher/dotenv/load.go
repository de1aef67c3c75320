package dotenv

import (
	"errors"
	"fmt"
	"os"

	"github.com/org/agentevolver/internal/fsutil"
)

// Env is the environment Load reads and sets: the process's own is
// OSEnv; tests and callers that build a child's environment pass their
// own.
type Env interface {
	LookupEnv(key string) (string, bool)
	Setenv(key, value string) error
}

// OSEnv is the process environment (os.LookupEnv, os.Setenv).
type OSEnv struct{}

// LookupEnv implements Env.
func (OSEnv) LookupEnv(key string) (string, bool) { return os.LookupEnv(key) }

// Setenv implements Env.
func (OSEnv) Setenv(key, value string) error { return os.Setenv(key, value) }

// Result says what Load did.
type Result struct {
	// Set are the keys Load set, in file order.
	Set []string
	// Kept are the keys the file names that were already in the
	// environment and left as they were (without override).
	Kept []string
	// Skipped are the statements that did not parse, and the variables
	// the environment cannot hold; neither stops Load.
	Skipped []error
}

// Load reads the .env file at path and sets its variables in env, as
// python-dotenv's load_dotenv(path, override=override) does: without
// override a variable already in env keeps its value. A missing file is
// an error wrapping fs.ErrNotExist (a caller for whom .env is optional
// checks for it); so is one larger than MaxFileSize or not UTF-8
// (ErrInvalid).
func Load(path string, env Env, override bool) (Result, error) {
	data, err := fsutil.ReadFile(path, MaxFileSize)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return Result{}, fmt.Errorf("%w: %s is larger than %d bytes", ErrInvalid, path, MaxFileSize)
	}
	if err != nil {
		return Result{}, fmt.Errorf("dotenv: %w", err)
	}
	bindings, perrs, err := Parse(data)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, err)
	}
	var res Result
	for _, e := range perrs {
		res.Skipped = append(res.Skipped, fmt.Errorf("%s: %w", path, e))
	}
	for _, v := range Resolve(bindings, env.LookupEnv, override) {
		if !settable(v) {
			res.Skipped = append(res.Skipped, fmt.Errorf("%s: variable %q: an environment cannot hold an empty key, \"=\" in a key or a NUL byte", path, v.Key))
			continue
		}
		if _, ok := env.LookupEnv(v.Key); ok && !override {
			res.Kept = append(res.Kept, v.Key)
			continue
		}
		if err := env.Setenv(v.Key, v.Value); err != nil {
			res.Skipped = append(res.Skipped, fmt.Errorf("%s: set %s: %w", path, v.Key, err))
			continue
		}
		res.Set = append(res.Set, v.Key)
	}
	return res, nil
}
