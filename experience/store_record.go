package experience

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// workspaceMeta is a workspace's metadata record.
type workspaceMeta struct {
	Embedder  string    `json:"embedder"`
	Dimension int       `json:"dimension"`
	Created   time.Time `json:"created"`
}

func encodeWorkspaceMeta(m workspaceMeta) ([]byte, error) { return json.Marshal(m) }

// decodeWorkspaceMeta parses a workspace's metadata record. The bytes are
// untrusted.
func decodeWorkspaceMeta(b []byte) (workspaceMeta, error) {
	var m workspaceMeta
	switch {
	case b == nil:
		return m, errors.New("no metadata record")
	case len(b) > maxMetaBytes:
		return m, fmt.Errorf("metadata record of %d bytes, over %d", len(b), maxMetaBytes)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, err
	}
	if m.Embedder == "" || m.Dimension <= 0 || m.Dimension > MaxDimension {
		return m, fmt.Errorf("embedder %.64q of dimension %d", m.Embedder, m.Dimension)
	}
	return m, nil
}

// encodeRecord returns the stored form of e, failing with
// ErrRecordTooLarge past limit bytes.
func encodeRecord(e Experience, limit int) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("experience: encode %q: %w", e.ID, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("%w: experience %.64q takes %d bytes, over the limit of %d", ErrRecordTooLarge, e.ID, len(b), limit)
	}
	return b, nil
}

// decodeRecord parses the stored experience under key. The bytes are
// untrusted: a record over limit bytes fails with ErrRecordTooLarge
// before it is parsed, and one that is not a JSON experience or whose id
// is not key fails with a plain error (the caller makes it a
// *CorruptStoreError).
func decodeRecord(key, b []byte, limit int) (Experience, error) {
	var e Experience
	if len(b) > limit {
		return e, fmt.Errorf("%w: %d bytes, over the limit of %d", ErrRecordTooLarge, len(b), limit)
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return e, err
	}
	if e.ID != string(key) {
		return e, fmt.Errorf("record holds id %.64q", e.ID)
	}
	return e, nil
}
