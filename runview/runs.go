package runview

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/org/agentevolver/runlog/episodelog"
)

// Files of a run directory the viewer reads (trainer.MetricsFile and
// episodelog.FileName; the viewer does not import the trainer).
const (
	MetricsFile  = "metrics.jsonl"
	EpisodesFile = episodelog.FileName
)

// Discovery bounds: how deep below a given directory runs are looked for,
// and how many directory entries one listing visits.
const (
	maxDepth   = 6
	maxEntries = 50000
	maxRuns    = 5000
)

// skipDirs are folders of a run that hold no runs and may be large.
var skipDirs = map[string]bool{"checkpoints": true, "final": true, "reference": true, "tokenizer": true, "tensorboard": true, "node_modules": true, ".git": true}

var seedDir = regexp.MustCompile(`^seed-?\d+$`)

// Run is one run the viewer found.
type Run struct {
	// ID names the run in the API: the index of the directory it was found
	// under, a slash, and its path below that directory ("." for the
	// directory itself).
	ID string `json:"id"`
	// Root is the directory given to the viewer; Path the run's path below
	// it, with forward slashes.
	Root string `json:"root"`
	Path string `json:"path"`
	// Group is the experiment arm of a seed-N run (its parent's path), else
	// the run's own path; Label the seed folder or the run's name.
	Group string `json:"group"`
	Label string `json:"label"`
	// Metrics and Episodes report which logs the run has.
	Metrics  bool `json:"metrics"`
	Episodes bool `json:"episodes"`
}

// errNoRun reports an ID that names no run.
var errNoRun = errors.New("runview: no such run")

// root is one directory given to the viewer.
type root struct {
	dir string
	r   *os.Root
}

// discover lists the runs below every root, in root order and path order.
func discover(roots []root) []Run {
	var runs []Run
	for i, rt := range roots {
		fsys := rt.r.FS()
		entries := 0
		_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable folders are skipped
			}
			entries++
			if entries > maxEntries || len(runs) >= maxRuns {
				return fs.SkipAll
			}
			if !d.IsDir() {
				return nil
			}
			if p != "." && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") || strings.Count(p, "/") >= maxDepth) {
				return fs.SkipDir
			}
			run := Run{ID: strconv.Itoa(i) + "/" + p, Root: rt.dir, Path: p}
			run.Metrics = isFile(fsys, path.Join(p, MetricsFile))
			run.Episodes = isFile(fsys, path.Join(p, EpisodesFile))
			if !run.Metrics && !run.Episodes {
				return nil
			}
			run.Group, run.Label = p, path.Base(p)
			if p == "." {
				run.Label = pathBase(rt.dir)
			}
			if seedDir.MatchString(path.Base(p)) && p != "." {
				run.Group = path.Dir(p)
			}
			runs = append(runs, run)
			return fs.SkipDir // a run holds no runs
		})
	}
	return runs
}

func pathBase(dir string) string {
	dir = strings.TrimRight(strings.ReplaceAll(dir, "\\", "/"), "/")
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		return dir[i+1:]
	}
	return dir
}

func isFile(fsys fs.FS, name string) bool {
	info, err := fs.Stat(fsys, name)
	return err == nil && info.Mode().IsRegular()
}

// parseID splits a run ID into its root and a local path, refusing any
// path that is not local (absolute, "..", empty elements).
func parseID(id string, nroots int) (int, string, error) {
	idx, p, ok := strings.Cut(id, "/")
	i, err := strconv.Atoi(idx)
	if !ok || err != nil || i < 0 || i >= nroots || idx != strconv.Itoa(i) {
		return 0, "", fmt.Errorf("%w: %q", errNoRun, clip(id))
	}
	if p != "." && (!fs.ValidPath(p) || strings.Contains(p, "\\")) {
		return 0, "", fmt.Errorf("%w: %q is not a path below the run directories", errNoRun, clip(id))
	}
	return i, p, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
