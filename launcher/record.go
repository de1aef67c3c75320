package launcher

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/org/agentevolver/internal/fsutil"
)

// Record is what the launcher writes when it starts a service, in
// <name>.<hash>.<host>.json beside the log: enough to find the service's
// process group again, to tell it from an unrelated process that took its
// pid later, and to stop it.
type Record struct {
	Name    string   `json:"name"`
	Hash    string   `json:"hash"`
	Host    string   `json:"host"`
	PID     int      `json:"pid"`
	PGID    int      `json:"pgid"`
	Command []string `json:"command"`
	Dir     string   `json:"dir"`
	// Token is the value of the AGENTEVOLVER_COMPANION variable the
	// service was started with (name.hash.host.nonce): a process carries
	// it only if it is the service or one of its children.
	Token string `json:"token"`
	// StartedAt is the process start time as the system reports it
	// (clock ticks since boot on Linux, ps's lstart elsewhere): a pid
	// reused by another program has another.
	StartedAt string    `json:"started_at"`
	Started   time.Time `json:"started"`
	// ReadyAt is when the service passed its readiness test (zero
	// before): a later launch reuses it without waiting again.
	ReadyAt time.Time `json:"ready_at,omitzero"`
	Log     string    `json:"log"`
	URL     string    `json:"url,omitempty"`
}

// TokenVar is the variable every companion is started with, holding its
// Record.Token; the launcher signals a process group only if a process of
// it carries the token.
const TokenVar = "AGENTEVOLVER_COMPANION"

// maxRecordSize bounds a record file.
const maxRecordSize = 64 << 10

// base returns the file name stem <name>.<hash>.<host>.
func (r Record) base() string { return r.Name + "." + r.Hash + "." + r.Host }

// readRecord reads and checks a record file.
func readRecord(path string) (Record, error) {
	data, err := fsutil.ReadFile(path, maxRecordSize)
	if err != nil {
		return Record{}, err
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Record{}, fmt.Errorf("launcher: record %s: %w", path, err)
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return Record{}, fmt.Errorf("launcher: record %s: data after the record", path)
	}
	switch {
	case !namePattern.MatchString(r.Name), len(r.Hash) != hashLen, r.Host == "",
		r.PID <= 1, r.PGID <= 1, r.Token == "", !strings.HasPrefix(r.Token, r.base()+"."):
		return Record{}, fmt.Errorf("launcher: record %s: not a companion record", path)
	case filepath.Base(path) != r.base()+".json":
		return Record{}, fmt.Errorf("launcher: record %s: names %s", path, r.base())
	}
	return r, nil
}

// writeRecord writes r to path atomically.
func writeRecord(path string, r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(path, append(data, '\n'))
}

// hostTag returns the host name as it may appear in a file name.
func hostTag(host string) string {
	if host == "" {
		host, _ = os.Hostname()
	}
	if host == "" {
		host = "localhost"
	}
	b := []byte(host)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}
