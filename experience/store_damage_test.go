package experience

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damageChildEnv marks the child process of
// TestStoreDamagedFilesNeverCrashOrHang, which runs the risky part.
const damageChildEnv = "AGENTEVOLVER_STORE_DAMAGE_CHILD"

// storeFixture builds a store file with what a damaged file may hit: a
// large workspace (branch pages, several levels), a small one (inline
// buckets), a record over a page (overflow pages) and replaced records
// (a freelist with pages).
func storeFixture(t testing.TB, large int) []byte {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fixture.db")
	f, err := OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := f.Workspace("big", NewLocalEmbedder(16))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < large; i += 50 {
		var batch []Experience
		for j := i; j < min(i+50, large); j++ {
			batch = append(batch, Experience{ID: fmt.Sprintf("e%05d", j), Text: fmt.Sprintf("lesson %d: check the router before booking flight %d", j, j*7)})
		}
		if err := w.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	if large > 0 {
		if err := w.Add(ctx, []Experience{{ID: "huge", Text: strings.Repeat("a long lesson ", 1500)}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Add(ctx, []Experience{{ID: "e00001", Text: "replaced"}}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := f.Workspace("small", NewLocalEmbedder(8))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, []Experience{{ID: "only", Text: "one lesson"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exerciseStore opens the file at path and uses everything in it: it must
// return (an error or nil), never crash or hang. An open that fails must
// fail with ErrCorruptStore.
func exerciseStore(path string, verify bool) (openErr, useErr error) {
	f, err := OpenStoreFile(path, StoreOptions{Verify: verify, LockTimeout: -1})
	if err != nil {
		return err, nil
	}
	defer f.Close()
	ctx := context.Background()
	var errs []error
	infos, err := f.Workspaces()
	errs = append(errs, err)
	for _, ws := range []struct {
		id  string
		dim int
	}{{"big", 16}, {"small", 8}} {
		w, err := f.Workspace(ws.id, NewLocalEmbedder(ws.dim))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_, err = w.Retrieve(ctx, "router flight", 5)
		errs = append(errs, err)
		errs = append(errs, w.Add(ctx, []Experience{{Text: "a new lesson after the damage"}}))
		_, err = w.Retrieve(ctx, "new lesson", 3)
		errs = append(errs, err)
	}
	_ = infos
	return nil, errors.Join(errs...)
}

// boltFixtureLayout lists a clean file's pages by kind, for aiming damage.
type boltFixtureLayout struct {
	ps                         int
	branches, leaves, freelist []int // page ids
	buckets                    []int // file offsets of bucket values (root pgid)
	inline                     []int // file offsets of inline pages
}

func layoutOf(t testing.TB, b []byte) boltFixtureLayout {
	t.Helper()
	m, err := decodeBoltMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	l := boltFixtureLayout{ps: int(m.pageSize)}
	for id := 2; id < int(m.pgid); {
		off := id * l.ps
		flags, count, overflow := ne.Uint16(b[off+8:]), int(ne.Uint16(b[off+10:])), int(ne.Uint32(b[off+12:]))
		switch flags {
		case boltBranchPage:
			l.branches = append(l.branches, id)
		case boltLeafPage:
			l.leaves = append(l.leaves, id)
			for i := range count {
				e := off + 16 + 16*i
				if ne.Uint32(b[e:])&boltBucketLeaf == 0 {
					continue
				}
				v := e + int(ne.Uint32(b[e+4:])) + int(ne.Uint32(b[e+8:]))
				l.buckets = append(l.buckets, v)
				if ne.Uint64(b[v:]) == 0 {
					l.inline = append(l.inline, v+16)
				}
			}
		case boltFreelistPage:
			l.freelist = append(l.freelist, id)
		default:
			overflow = 0 // a free page: its header may be stale
		}
		id += overflow + 1
	}
	if len(l.branches) == 0 || len(l.inline) == 0 || len(l.freelist) == 0 {
		t.Fatalf("fixture lacks branch pages, inline buckets or a freelist: %+v", l)
	}
	return l
}

// fixMetaChecksums recomputes the checksums of both meta pages, so that
// damage to their fields reaches the code that uses them.
func fixMetaChecksums(b []byte, ps int) {
	for _, off := range []int{0, ps} {
		if off+boltMetaEnd > len(b) {
			continue
		}
		m := b[off+boltPageHeaderSize : off+boltMetaEnd]
		h := fnv.New64a()
		h.Write(m[:56])
		ne.PutUint64(m[56:], h.Sum64())
	}
}

// damagedFiles returns many damaged copies of clean, each named by what
// was done to it, from a seeded generator.
func damagedFiles(t testing.TB, clean []byte, seed uint64) map[string][]byte {
	l := layoutOf(t, clean)
	ps := l.ps
	rng := rand.New(rand.NewPCG(seed, 36))
	out := map[string][]byte{}
	pick := func(ids []int) int { return ids[rng.IntN(len(ids))] }
	add := func(name string, mutate func(b []byte) []byte) {
		b := mutate(append([]byte(nil), clean...))
		out[fmt.Sprintf("%03d %s", len(out), name)] = b
	}
	// The meta page bbolt uses: the one with the higher txid.
	cur := 0
	if ne.Uint64(clean[ps+16+48:]) > ne.Uint64(clean[16+48:]) {
		cur = ps
	}
	metaField := func(name string, field int, value func() uint64) {
		add("meta "+name, func(b []byte) []byte {
			ne.PutUint64(b[cur+16+field:], value())
			fixMetaChecksums(b, ps)
			return b
		})
	}
	pgid := uint64(len(clean) / ps)
	randomPage := func() uint64 { return uint64(rng.IntN(int(pgid) + 8)) }
	for range 3 {
		metaField("root", 16, randomPage)
		metaField("freelist", 32, randomPage)
		metaField("pgid", 40, func() uint64 { return uint64(rng.IntN(int(pgid) * 2)) })
	}
	metaField("root=leaf", 16, func() uint64 { return uint64(pick(l.leaves)) })
	metaField("root=freelist", 16, func() uint64 { return uint64(pick(l.freelist)) })
	metaField("root=meta", 16, func() uint64 { return 1 })
	metaField("freelist=none", 32, func() uint64 { return boltNoFreelist })
	metaField("freelist=root", 32, func() uint64 { return ne.Uint64(clean[cur+16+16:]) })
	metaField("pgid=huge", 40, func() uint64 { return 1 << 60 })
	metaField("pgid=1<<40", 40, func() uint64 { return 1 << 40 })
	for _, ps2 := range []uint32{0, 1, 512, 1024, 8192, 1 << 30} {
		add(fmt.Sprintf("meta page size %d", ps2), func(b []byte) []byte {
			ne.PutUint32(b[cur+16+8:], ps2)
			fixMetaChecksums(b, ps)
			return b
		})
	}
	add("meta txids swapped", func(b []byte) []byte {
		other := ps - cur
		a, c := ne.Uint64(b[cur+16+48:]), ne.Uint64(b[other+16+48:])
		ne.PutUint64(b[cur+16+48:], c)
		ne.PutUint64(b[other+16+48:], a)
		fixMetaChecksums(b, ps)
		return b
	})
	for range 12 {
		add("meta byte flipped", func(b []byte) []byte {
			off := []int{0, ps}[rng.IntN(2)] + rng.IntN(boltMetaEnd)
			b[off] ^= byte(1 + rng.IntN(255))
			if rng.IntN(2) == 0 {
				fixMetaChecksums(b, ps)
			}
			return b
		})
	}
	for range 20 {
		n := rng.IntN(len(clean))
		if rng.IntN(2) == 0 {
			n -= n % ps
		}
		add(fmt.Sprintf("truncated to %d", n), func(b []byte) []byte { return b[:n] })
	}
	pages := append(append(append([]int(nil), l.branches...), l.leaves...), l.freelist...)
	header := func(name string, field, width int, value func() uint64) {
		add("header "+name, func(b []byte) []byte {
			off := pick(pages)*ps + field
			switch width {
			case 2:
				ne.PutUint16(b[off:], uint16(value()))
			case 4:
				ne.PutUint32(b[off:], uint32(value()))
			default:
				ne.PutUint64(b[off:], value())
			}
			return b
		})
	}
	for range 6 {
		header("id", 0, 8, randomPage)
		header("flags", 8, 2, func() uint64 { return []uint64{0, 1, 2, 4, 16, 3, 0xffff}[rng.IntN(7)] })
		header("count", 10, 2, func() uint64 { return []uint64{0, 1, 0xffff, uint64(rng.IntN(1 << 16))}[rng.IntN(4)] })
		header("overflow", 12, 4, func() uint64 { return []uint64{1, 2, pgid, 1<<32 - 1, uint64(rng.IntN(1 << 20))}[rng.IntN(5)] })
	}
	// Branch elements: children that make cycles or point anywhere.
	for range 12 {
		add("branch child", func(b []byte) []byte {
			id := pick(l.branches)
			off := id * ps
			count := int(ne.Uint16(b[off+10:]))
			e := off + 16 + 16*rng.IntN(max(count, 1))
			targets := []uint64{uint64(id), ne.Uint64(clean[cur+16+16:]), 0, 1, uint64(pick(l.freelist)),
				uint64(pick(l.branches)), uint64(pick(l.leaves)), pgid, 1 << 62, randomPage()}
			ne.PutUint64(b[e+8:], targets[rng.IntN(len(targets))])
			return b
		})
		add("branch key", func(b []byte) []byte {
			off := pick(l.branches) * ps
			e := off + 16 + 16*rng.IntN(max(int(ne.Uint16(b[off+10:])), 1))
			ne.PutUint32(b[e+rng.IntN(2)*4:], []uint32{0, 1 << 31, uint32(ps), uint32(rng.IntN(2 * ps))}[rng.IntN(4)])
			return b
		})
	}
	// Leaf elements: flags, positions and sizes.
	for range 16 {
		add("leaf element", func(b []byte) []byte {
			off := pick(l.leaves) * ps
			count := int(ne.Uint16(b[off+10:]))
			e := off + 16 + 16*rng.IntN(max(count, 1))
			field := 4 * rng.IntN(4)
			ne.PutUint32(b[e+field:], []uint32{0, 1, 2, 1 << 31, 1<<32 - 1, uint32(ps), uint32(rng.IntN(4 * ps))}[rng.IntN(7)])
			return b
		})
	}
	// Bucket values: roots that make cycles, inline pages gone wrong.
	for range 12 {
		add("bucket root", func(b []byte) []byte {
			v := l.buckets[rng.IntN(len(l.buckets))]
			page := uint64(v / ps)
			targets := []uint64{page, ne.Uint64(clean[cur+16+16:]), 1, uint64(pick(l.freelist)), uint64(pick(l.branches)),
				pgid + 3, randomPage()}
			ne.PutUint64(b[v:], targets[rng.IntN(len(targets))])
			return b
		})
		add("inline page", func(b []byte) []byte {
			p := l.inline[rng.IntN(len(l.inline))]
			switch rng.IntN(3) {
			case 0:
				ne.PutUint16(b[p+8:], []uint16{boltBranchPage, 0, 0x10}[rng.IntN(3)])
			case 1:
				ne.PutUint16(b[p+10:], uint16(rng.IntN(1<<16)))
			default:
				e := p + 16 + 4*rng.IntN(4)
				ne.PutUint32(b[e:], uint32(rng.IntN(1<<16)))
			}
			return b
		})
	}
	// Freelist: counts and ids.
	for range 8 {
		add("freelist", func(b []byte) []byte {
			off := pick(l.freelist) * ps
			switch rng.IntN(4) {
			case 0:
				ne.PutUint16(b[off+10:], 0xffff)
				ne.PutUint64(b[off+16:], []uint64{1 << 40, pgid, uint64(rng.IntN(1 << 16))}[rng.IntN(3)])
			case 1:
				ne.PutUint16(b[off+10:], uint16(rng.IntN(1<<16)))
			default:
				n := int(ne.Uint16(b[off+10:]))
				ne.PutUint64(b[off+16+8*rng.IntN(max(n, 1)):], []uint64{0, 1, uint64(pick(l.leaves)), uint64(pick(l.branches)),
					pgid, 1 << 50}[rng.IntN(6)])
			}
			return b
		})
	}
	// Random bytes anywhere past the meta pages, few or many.
	for range 100 {
		n := []int{1, 4, 64, 1024}[rng.IntN(4)]
		add(fmt.Sprintf("%d random bytes", n), func(b []byte) []byte {
			for range n {
				b[2*ps+rng.IntN(len(b)-2*ps)] = byte(rng.Uint32())
			}
			return b
		})
	}
	return out
}

// TestStoreDamagedFilesNeverCrashOrHang opens a few hundred damaged
// store files, with and without Verify, and uses what opens: each must
// give an error or a usable store, never crash the process or hang. bbolt
// crashes with a fault or a stack overflow no recover catches, so the
// cases run in a child process (this test binary, run again), each with a
// deadline: a crash or a hang fails this test instead of killing it.
func TestStoreDamagedFilesNeverCrashOrHang(t *testing.T) {
	if os.Getenv(damageChildEnv) == "" {
		if testing.Short() {
			t.Skip("runs a child process over hundreds of files")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStoreDamagedFilesNeverCrashOrHang$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), damageChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "\nPASS") {
			// The last case started and what the child said then.
			s := string(out)
			if i := strings.LastIndex(s, "\ncase "); i >= 0 {
				s = s[i+1:]
			}
			if len(s) > 4000 {
				s = s[:4000] + "…"
			}
			t.Fatalf("the child process failed (%v): a crash, a hang or a failed case:\n%s", err, s)
		}
		if testing.Verbose() {
			t.Logf("child: %s", out[max(0, len(out)-2000):])
		}
		return
	}
	clean := storeFixture(t, 600)
	files := damagedFiles(t, clean, 1)
	if len(files) < 240 {
		t.Fatalf("only %d damaged files", len(files))
	}
	dir := t.TempDir()
	opened, refused := 0, 0
	for name, data := range files {
		for _, verify := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("%d-%v.db", opened+refused, verify))
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			// Printed first, so that the output of a crash names the case.
			fmt.Printf("case %q, verify %v\n", name, verify)
			type result struct{ open, use error }
			done := make(chan result, 1)
			go func() {
				o, u := exerciseStore(path, verify)
				done <- result{o, u}
			}()
			select {
			case r := <-done:
				if r.open != nil {
					refused++
					if !errors.Is(r.open, ErrCorruptStore) {
						t.Errorf("case %q, verify %v: open failed with %v, want ErrCorruptStore", name, verify, r.open)
					}
				} else {
					opened++
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("case %q, verify %v: hung", name, verify)
			}
		}
	}
	fmt.Printf("%d files: %d opens refused, %d succeeded\n", len(files), refused, opened)
}

// TestCheckBoltFileAcceptsCleanFiles checks that the structural check
// passes what bbolt writes: fresh, small, large and grown stores.
func TestCheckBoltFileAcceptsCleanFiles(t *testing.T) {
	for _, n := range []int{0, 3, 600} {
		b := storeFixture(t, n)
		if err := checkBoltFile(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Errorf("%d records: %v", n, err)
		}
	}
}
