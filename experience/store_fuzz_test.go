package experience

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
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

// FuzzOpenStoreFile opens stores damaged by the fuzzer, with and without
// Verify, and uses them when they open: it must never crash, hang or fail
// to open with anything but ErrCorruptStore. The input is a list of edits
// of a clean store (small, or large with branch and overflow pages), so
// that inputs stay small and mutations land in pages; with raw set it is
// the whole file instead. With fix set, the meta pages' checksums are
// recomputed after the edits, so that damage to their fields reaches the
// code that follows them.
func FuzzOpenStoreFile(f *testing.F) {
	small, large := storeFixture(f, 0), storeFixture(f, 600)
	f.Add([]byte{}, false, false, false)
	f.Add([]byte{}, true, false, false)
	f.Add([]byte("not a store"), false, false, true)
	edit := func(op byte, off uint32, v uint64) []byte {
		b := []byte{op, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		ne.PutUint32(b[1:], off)
		ne.PutUint64(b[5:], v)
		return b
	}
	f.Add(edit(2, 4096*3+16+8, 3), true, true, false)    // a branch child pointing to itself, if page 3 is a branch
	f.Add(edit(2, 16+16, 2), true, true, false)          // the root moved
	f.Add(edit(3, 4096*5+100, 0), true, false, false)    // truncated
	f.Add(edit(1, 4096*2+12, 1<<20), false, true, false) // a huge overflow
	f.Fuzz(func(t *testing.T, edits []byte, useLarge, fix, raw bool) {
		data := edits
		if !raw {
			base := small
			if useLarge {
				base = large
			}
			data = append([]byte(nil), base...)
			for ; len(edits) >= 13 && len(data) > 8; edits = edits[13:] {
				op, off, v := edits[0]%4, int(ne.Uint32(edits[1:])%uint32(len(data)-8)), ne.Uint64(edits[5:])
				switch op {
				case 0:
					data[off] = byte(v)
				case 1:
					ne.PutUint32(data[off:], uint32(v))
				case 2:
					ne.PutUint64(data[off:], v)
				default:
					data = data[:off]
				}
			}
		}
		if len(data) > 1<<20 {
			return
		}
		if fix {
			fixMetaChecksums(data, 4096)
		}
		dir := t.TempDir()
		for _, verify := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("store-%v.db", verify))
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				err, _ := exerciseStore(path, verify)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, ErrCorruptStore) {
					t.Fatalf("verify %v: open failed with %v, want ErrCorruptStore", verify, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("verify %v: hung", verify)
			}
		}
	})
}
