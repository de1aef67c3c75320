package experience

import (
	"encoding/json"
	"testing"
)

// FuzzStoreRecord feeds arbitrary bytes to the decoder of stored
// experiences: it must never panic, must honour the size limit, and what it
// accepts must carry the key's id and encode back to a record it accepts
// again.
func FuzzStoreRecord(f *testing.F) {
	f.Add([]byte("000000000001"), []byte(`{"id":"000000000001","text":"Restart the router.","key":"reset router","score":1,"created":"2025-01-02T03:04:05Z"}`))
	f.Add([]byte("a"), []byte(`{"id":"b","text":"x","score":0,"created":"0001-01-01T00:00:00Z"}`))
	f.Add([]byte("a"), []byte(`null`))
	f.Add([]byte("a"), []byte(`{"id":"a","score":"high"}`))
	f.Fuzz(func(t *testing.T, key, raw []byte) {
		const limit = 4096
		e, err := decodeRecord(key, raw, limit)
		if len(raw) > limit && err == nil {
			t.Fatalf("a record of %d bytes passed a limit of %d", len(raw), limit)
		}
		if err != nil {
			return
		}
		if e.ID != string(key) {
			t.Fatalf("accepted id %q under key %q", e.ID, key)
		}
		again, err := json.Marshal(e)
		if err != nil {
			return // a time outside JSON's range, say; Add would refuse it
		}
		if _, err := decodeRecord(key, again, 1<<30); err != nil {
			t.Fatalf("re-encoded record %s refused: %v", again, err)
		}
	})
}

// FuzzStoreVector checks the decoder of stored vectors: only exactly
// 4×dim bytes of finite float32s pass, and they round-trip.
func FuzzStoreVector(f *testing.F) {
	f.Add(encodeVector([]float32{0.6, 0.8}), 2)
	f.Add([]byte{0, 0, 0xc0, 0x7f}, 1) // NaN
	f.Add([]byte{1, 2, 3}, 1)
	f.Fuzz(func(t *testing.T, raw []byte, dim int) {
		if dim < 0 || dim > MaxDimension {
			return
		}
		v, err := decodeVector(nil, raw, dim)
		if err != nil {
			return
		}
		if len(v) != dim || string(encodeVector(v)) != string(raw) {
			t.Fatalf("vector %v does not round-trip from %x", v, raw)
		}
	})
}

// FuzzStoreWorkspaceMeta checks the decoder of workspace metadata.
func FuzzStoreWorkspaceMeta(f *testing.F) {
	f.Add([]byte(`{"embedder":"local-hash-ngram-v1","dimension":512,"created":"2025-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"embedder":"","dimension":512}`))
	f.Add([]byte(`{"embedder":"m","dimension":-1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := decodeWorkspaceMeta(raw)
		if err != nil {
			return
		}
		if m.Embedder == "" || m.Dimension <= 0 || m.Dimension > MaxDimension || len(raw) > maxMetaBytes {
			t.Fatalf("accepted %+v from %q", m, raw)
		}
	})
}
