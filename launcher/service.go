package launcher

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Service is one companion process, resolved: what to run and how to know
// it is ready. Config.Services makes them from a configuration; a caller
// may build its own.
type Service struct {
	// Name tags the service's files and is what Stop stops; see
	// Config.Companions for what it may be.
	Name string
	// Command is the program and its arguments; the program is looked
	// up in PATH when it has no slash.
	Command []string
	// Dir is the working directory; empty means the launcher's.
	Dir string
	// Env are KEY=VALUE variables set over the launcher's environment.
	Env []string
	// Identity is more input to the service's hash (the digest of a
	// configuration file the command reads, say), so that a change to it
	// starts a new instance instead of reusing the old one.
	Identity []byte
	// URL is where the service answers, for Status; empty takes the URL
	// in its ready line, or ReadyURL's origin.
	URL string
	// Ready says when the service is ready.
	Ready Ready
}

// Ready says when a service is ready: once ReadyURL answers with a 2xx or
// 3xx status, or once its log holds Line, whichever is set (both: both);
// with neither, once it has run for MinAlive without exiting.
type Ready struct {
	URL  string
	Line string
	// Timeout bounds the wait; 0 means DefaultReadyTimeout.
	Timeout time.Duration
}

// minAlive is how long a service with no readiness test must run.
const minAlive = time.Second

// hashLen is the length of a service's hash in its file names, the
// original's 8 hex digits.
const hashLen = 8

// hash is the service's identity: its command, directory, variables and
// Identity. Two services with the same name and hash are one service,
// and a running instance of it is reused.
func (s Service) hash() (string, error) {
	dir, err := absDir(s.Dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	field := func(v string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write([]byte(v))
	}
	field("agentevolver-companion-v1")
	for _, a := range s.Command {
		field(a)
	}
	field("\x00dir")
	field(dir)
	env := slices.Clone(s.Env)
	slices.Sort(env)
	for _, e := range env {
		field(e)
	}
	field("\x00identity")
	field(string(s.Identity))
	return hex.EncodeToString(h.Sum(nil))[:hashLen], nil
}

// absDir returns the absolute form of dir, the working directory for "".
func absDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("launcher: %w", err)
	}
	return abs, nil
}

// check reports what makes the service impossible to start.
func (s Service) check() error {
	switch {
	case !namePattern.MatchString(s.Name):
		return fmt.Errorf("launcher: companion name %q: want letters, digits, - and _ (at most 64)", s.Name)
	case len(s.Command) == 0 || s.Command[0] == "":
		return fmt.Errorf("launcher: companion %s: no command", s.Name)
	case s.Ready.Timeout < 0:
		return fmt.Errorf("launcher: companion %s: negative readiness timeout", s.Name)
	}
	for _, e := range s.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" || strings.ContainsRune(e, 0) {
			return fmt.Errorf("launcher: companion %s: variable %q is not KEY=VALUE", s.Name, e)
		}
	}
	if s.Ready.URL != "" {
		if u, err := url.Parse(s.Ready.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("launcher: companion %s: ready URL %q is not an http(s) URL", s.Name, s.Ready.URL)
		}
	}
	if s.Dir != "" {
		if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("launcher: companion %s: working directory %s: not a directory", s.Name, s.Dir)
		}
	}
	if !strings.ContainsRune(s.Command[0], '/') {
		if _, err := exec.LookPath(s.Command[0]); err != nil && !errors.Is(err, exec.ErrDot) {
			return fmt.Errorf("launcher: companion %s: %w", s.Name, err)
		}
	}
	return nil
}

// origin returns the scheme and host of a URL, "" when it has none.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/"
}
