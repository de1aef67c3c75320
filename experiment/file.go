package experiment

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/org/agentevolver/internal/config"
	"github.com/org/agentevolver/internal/fsutil"
)

// MaxFileSize bounds an experiment file.
const MaxFileSize = 1 << 20

// DefaultQuickSteps is the RL-step budget of a quick run whose file does
// not say otherwise.
const DefaultQuickSteps = 2

// File is a parsed experiment file: a shared base configuration, the arms
// that differ from it, the seeds every arm runs with and the RL-step budget
// they all share. Its YAML form:
//
//	name: grpo-seeds                # names the output directory runs/<name>
//	description: free text
//	base:                           # shared by every arm
//	  files: [../configs/cpu-small.yaml]
//	  config: {trainer: {test_freq: 10}}
//	  set: [rollout.n=4]
//	start:                          # optional: trained once per seed, no RL
//	  set: [warm_start.steps=250]   # every arm of the seed starts from its policy
//	seeds: [1, 2, 3]
//	steps: 60                       # optional; 0 keeps the base's trainer.rl_steps
//	arms:
//	  - name: grpo
//	  - name: grpo-std
//	    base: grpo                  # optional: report the difference from that arm
//	    config: {algorithm: {norm_adv_by_std_in_grpo: true}}
//	quick:                          # the CI-sized version (--quick)
//	  seeds: [1]
//	  steps: 2
//	  set: [warm_start.steps=2, data.val_tasks=4]
//
// Unknown keys are errors; so are keys of the training configuration that
// do not exist, when the runs are planned.
type File struct {
	// Name names the experiment: outputs go to <root>/<Name>. It must be a
	// single path segment of 1 to 64 letters, digits, '.', '_' and '-',
	// starting with a letter or digit, not ending with '.', and not a
	// Windows device name (nul, com1, ...).
	Name string `yaml:"name"`
	// Description says what the experiment measures; it is not used.
	Description string `yaml:"description,omitempty"`
	// Base is the configuration every arm starts from (after the trainer's
	// built-in defaults).
	Base Layer `yaml:"base,omitempty"`
	// Start, when present, is a layer over Base that makes the policy every
	// arm of a seed starts from: for each seed it is trained once, with no
	// RL step (trainer.rl_steps 0: a warm start only), in
	// <root>/<Name>/start/seed-<seed>, and every arm of that seed then
	// loads its final policy (model.path) with no warm start of its own.
	// Arms that would each repeat the same warm start share one checkpoint
	// this way, and an arm whose training tasks differ (data.train_files,
	// task_manager) cannot change what it starts from, since a warm start
	// imitates the run's own training tasks. An empty mapping ("start: {}")
	// trains the base as it is. The quick layer applies to it as to the
	// arms. With Start, no arm may be named "start" (its directory) and no
	// arm may set model.path, model.tokenizer or warm_start.steps.
	Start *Layer `yaml:"start,omitempty"`
	// Seeds are the seeds every arm runs with (trainer.seed), in order.
	Seeds []int64 `yaml:"seeds"`
	// Steps is the RL-step budget of every run (trainer.rl_steps); 0 keeps
	// the value the base configuration resolves to.
	Steps int `yaml:"steps,omitempty"`
	// Arms are the variants compared, each a layer over Base.
	Arms []Arm `yaml:"arms"`
	// Quick is the CI-sized version of the experiment run by
	// Options.Quick.
	Quick Quick `yaml:"quick,omitempty"`
}

// Layer is one layer of configuration: YAML files, then an inline mapping,
// then "key=value" overrides, applied in that order at the layer's place
// in the stack.
type Layer struct {
	// Files are trainer configuration files. [Parse] makes relative paths
	// relative to the experiment file's directory.
	Files []string `yaml:"files,omitempty"`
	// Config is an inline mapping in the form of a trainer configuration
	// file, such as {algorithm: {norm_adv_by_std_in_grpo: true}}. [Parse]
	// makes the relative paths of its input files (data.train_files,
	// task_manager.train_data_path) relative to the experiment file's
	// directory.
	Config map[string]any `yaml:"config,omitempty"`
	// Set are overrides such as "rollout.n=8", read like --set of the
	// train command.
	Set []string `yaml:"set,omitempty"`
}

// Arm is one variant of the experiment.
type Arm struct {
	// Name names the arm in the results and its output directory
	// <root>/<experiment>/<Name>; the same rules as File.Name apply.
	Name string `yaml:"name"`
	// Description says what the arm changes; it is not used.
	Description string `yaml:"description,omitempty"`
	// Base, if set, names an earlier arm this one adds a mechanism to:
	// the results report this arm's difference from it, paired by seed.
	// It is a label for the comparison only; the arm's configuration is
	// still its own layer over File.Base.
	Base string `yaml:"base,omitempty"`
	// Layer is the arm's configuration over the base.
	Layer `yaml:",inline"`
}

// Quick is the CI-sized version of an experiment: fewer seeds, fewer
// steps, and a layer applied after each arm's own (so it can shrink the
// job whatever an arm sets).
type Quick struct {
	// Seeds replace File.Seeds; empty means the first of File.Seeds.
	Seeds []int64 `yaml:"seeds,omitempty"`
	// Steps replaces File.Steps; 0 means DefaultQuickSteps.
	Steps int `yaml:"steps,omitempty"`
	// Layer shrinks the job (smaller model, fewer tasks).
	Layer `yaml:",inline"`
}

// Load reads and parses the experiment file at path; see [Parse]. Relative
// configuration files in it are relative to path's directory.
func Load(path string) (File, error) {
	data, err := fsutil.ReadFile(path, MaxFileSize)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return File{}, fmt.Errorf("%w: %s is larger than %d bytes", ErrInvalid, path, MaxFileSize)
	}
	if err != nil {
		return File{}, fmt.Errorf("experiment: %w", err)
	}
	f, err := Parse(data, filepath.Dir(path))
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse decodes an experiment file strictly (unknown or duplicate keys are
// errors naming the key) and checks it: a name, at least one seed and one
// arm, no repeated seeds or arm names, no negative budgets, overrides of the
// form key=value. Relative paths in Files are joined to dir. Errors wrap
// [ErrInvalid]. Whether the configuration keys exist is checked later, by
// [NewPlan], against the trainer's configuration.
func Parse(data []byte, dir string) (File, error) {
	if len(data) > MaxFileSize {
		return File{}, fmt.Errorf("%w: larger than %d bytes", ErrInvalid, MaxFileSize)
	}
	f, err := decode(data)
	if err != nil {
		return File{}, err
	}
	if err := f.check(); err != nil {
		return File{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	f.Base.resolve(dir)
	if f.Start != nil {
		f.Start.resolve(dir)
	}
	for i := range f.Arms {
		f.Arms[i].resolve(dir)
	}
	f.Quick.resolve(dir)
	return f, nil
}

// decode decodes data strictly into a File. YAML whose aliases or merge
// keys would expand far past its size (an alias bomb), or that has more keys
// or deeper nesting than the decoder handles in linear time, is rejected
// before decoding (see config.CheckYAML). The YAML decoder panics on some
// malformed input (goccy/go-yaml#735: a tag on a scalar where a list is
// expected, as in "set: !x"); such a panic is an ErrInvalid error.
func decode(data []byte) (f File, err error) {
	if err := config.CheckYAML(data); err != nil {
		return File{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	defer func() {
		if r := recover(); r != nil {
			f, err = File{}, fmt.Errorf("%w: malformed YAML (the decoder failed: %v)", ErrInvalid, r)
		}
	}()
	if err := yaml.UnmarshalWithOptions(data, &f, yaml.DisallowUnknownField()); err != nil {
		return File{}, fmt.Errorf("%w: %s", ErrInvalid, yaml.FormatError(err, false, false))
	}
	return f, nil
}

// segment is a name that is safe as one path segment everywhere: it cannot
// be empty, ".", "..", absolute or hold a separator. checkName adds the
// rules a pattern says less clearly.
var segment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// windowsDevice matches the names Windows reserves for devices, with or
// without an extension ("nul", "COM1.txt"): as a directory name they do not
// name a directory there.
var windowsDevice = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$`)

// checkName reports a name that is not a single safe path element: the
// experiment and arm names become directories under the output root, so
// "", ".", "..", "../x", "a/b", `a\b` and absolute paths are refused, and so
// are names that some file systems would change or refuse (a trailing '.',
// Windows device names), so that a file works the same everywhere.
func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("%s is missing", what)
	}
	if !segment.MatchString(name) || !filepath.IsLocal(name) || filepath.Base(name) != name {
		return fmt.Errorf("%s %q must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (it names a directory)", what, name)
	}
	if strings.HasSuffix(name, ".") {
		return fmt.Errorf("%s %q must not end with '.' (it names a directory, and some file systems drop the dot)", what, name)
	}
	if windowsDevice.MatchString(name) {
		return fmt.Errorf("%s %q is a device name on Windows; it cannot name a directory there", what, name)
	}
	return nil
}

// inside joins elems to root and checks that the result lies strictly
// inside root (lexically: symbolic links are not followed), so that no name
// can make the experiment write or delete outside its output root.
func inside(root string, elems ...string) (string, error) {
	path := filepath.Join(append([]string{root}, elems...)...)
	rel, err := filepath.Rel(filepath.Clean(root), path)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%w: %s is not inside %s", ErrInvalid, path, root)
	}
	return path, nil
}

func (f *File) check() error {
	if err := checkName("name", f.Name); err != nil {
		return err
	}
	if err := checkSeeds("seeds", f.Seeds, true); err != nil {
		return err
	}
	if f.Steps < 0 {
		return fmt.Errorf("steps %d < 0", f.Steps)
	}
	if err := f.Base.check("base"); err != nil {
		return err
	}
	if f.Start != nil {
		if err := f.Start.check("start"); err != nil {
			return err
		}
	}
	if len(f.Arms) == 0 {
		return errors.New("no arms: an experiment compares at least one arm")
	}
	seen := map[string]string{}
	for i, a := range f.Arms {
		if err := checkName(fmt.Sprintf("arms[%d].name", i), a.Name); err != nil {
			return err
		}
		// Names that differ only in case would share a directory on
		// case-insensitive file systems.
		key := strings.ToLower(a.Name)
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("duplicate arm name %q (arms[%d] is %q)", a.Name, i, prev)
		}
		if a.Base != "" && seen[strings.ToLower(a.Base)] != a.Base {
			return fmt.Errorf("arm %q: base %q is not the name of an earlier arm", a.Name, a.Base)
		}
		if f.Start != nil && key == StartDir {
			return fmt.Errorf("arm %q: with a start layer the name %q is the start runs' directory", a.Name, StartDir)
		}
		seen[key] = a.Name
		if err := a.check(fmt.Sprintf("arm %q", a.Name)); err != nil {
			return err
		}
	}
	if err := checkSeeds("quick.seeds", f.Quick.Seeds, false); err != nil {
		return err
	}
	if f.Quick.Steps < 0 {
		return fmt.Errorf("quick.steps %d < 0", f.Quick.Steps)
	}
	return f.Quick.check("quick")
}

func checkSeeds(what string, seeds []int64, required bool) error {
	if required && len(seeds) == 0 {
		return fmt.Errorf("no %s: every arm runs once per seed", what)
	}
	seen := map[int64]bool{}
	for _, s := range seeds {
		if seen[s] {
			return fmt.Errorf("%s: seed %d is repeated", what, s)
		}
		seen[s] = true
	}
	return nil
}

func (l *Layer) check(what string) error {
	for i, name := range l.Files {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("%s: files[%d] is empty", what, i)
		}
	}
	for _, s := range l.Set {
		key, _, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(key) == "" {
			return fmt.Errorf("%s: set %q is not key=value", what, s)
		}
	}
	return nil
}

// resolve joins the layer's relative paths to dir. It replaces what it
// changes instead of writing into it: YAML aliases (a section shared with
// `*name` by several arms) decode to one shared map, which must be
// resolved once per layer, not once per use.
func (l *Layer) resolve(dir string) {
	l.Files = slices.Clone(l.Files)
	for i, name := range l.Files {
		if !filepath.IsAbs(name) {
			l.Files[i] = filepath.Join(dir, name)
		}
	}
	for _, key := range inputPathKeys {
		section, ok := l.Config[key[0]].(map[string]any)
		if !ok {
			continue
		}
		var resolved any
		switch v := section[key[1]].(type) {
		case string:
			resolved = joinRelative(dir, v)
		case []any:
			paths := slices.Clone(v)
			for i, p := range paths {
				if s, ok := p.(string); ok {
					paths[i] = joinRelative(dir, s)
				}
			}
			resolved = paths
		default:
			continue
		}
		config := maps.Clone(l.Config)
		section = maps.Clone(section)
		section[key[1]] = resolved
		config[key[0]] = section
		l.Config = config
	}
}

// inputPathKeys are the trainer configuration keys that name input files
// (task files): in a layer's inline Config, [Parse] makes their relative
// paths relative to the experiment file's directory too, so that an
// experiment and its data travel together and run from any directory.
var inputPathKeys = [][2]string{
	{"data", "train_files"},
	{"task_manager", "train_data_path"},
}

func joinRelative(dir, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// runSeeds and runSteps are the seeds and budget of a full or quick run;
// steps 0 means the base configuration's own.
func (f File) runSeeds(quick bool) []int64 {
	if !quick {
		return f.Seeds
	}
	if len(f.Quick.Seeds) > 0 {
		return f.Quick.Seeds
	}
	return f.Seeds[:1]
}

func (f File) runSteps(quick bool) int {
	if !quick {
		return f.Steps
	}
	if f.Quick.Steps > 0 {
		return f.Quick.Steps
	}
	return DefaultQuickSteps
}
