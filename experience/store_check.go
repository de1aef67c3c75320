package experience

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"
)

// A damaged bbolt file can crash or hang the process in ways no recover
// catches: bbolt follows page ids from the file into its memory map
// without bounds checks (a fault beyond the file is a SIGBUS or SIGSEGV,
// fatal outside the goroutine that set debug.SetPanicOnFault, such as the
// one Tx.Check runs in), and it walks page references recursively without
// remembering where it has been (a page that refers to itself or an
// ancestor overflows the stack, which is fatal, or loops forever). So
// before bbolt sees a file, checkBoltFile reads it with plain reads and
// checks everything bbolt will follow: the meta pages (magic, version,
// checksum, and bbolt's choice between them), the page size and the
// high-water mark against the file's size, and every page reachable from
// the root bucket and the freelist: its id, type and overflow, its
// elements and their keys and values inside the page, keys in order,
// child and bucket pages in range and reached once only (no cycles, no
// page shared), depth bounded. Once it passes, bbolt's reads and its
// Tx.Check stay within the file and terminate.
//
// This pure-Go pre-check was preferred to opening the file in a child
// process (re-executing the program), which turns a crash into an error
// only for the open: the parent would still crash or hang on the same
// pages when it reads them later without Verify, a library cannot assume
// that its host program may be re-executed, and a process per open is
// slow. The check costs one sequential read of the pages in use, the same
// order as loading a workspace's vectors.
//
// The layout below is bbolt's on-disk format, version 2, in the machine's
// byte order (bbolt writes its structs from memory).

const (
	boltMagic            = 0xED0CDAED
	boltVersion          = 2
	boltPageHeaderSize   = 16 // id uint64, flags uint16, count uint16, overflow uint32
	boltElementSize      = 16 // branch: pos, ksize uint32, pgid uint64; leaf: flags, pos, ksize, vsize uint32
	boltBucketHeaderSize = 16 // root pgid uint64, sequence uint64
	boltMetaEnd          = boltPageHeaderSize + 64
	boltBranchPage       = 0x01
	boltLeafPage         = 0x02
	boltFreelistPage     = 0x10
	boltBucketLeaf       = 0x01
	boltNoFreelist       = ^uint64(0)
	// Bounds of the walk: a B+tree of height 32 holds more than any file,
	// and the store nests buckets 4 deep.
	maxBoltTreeHeight  = 32
	maxBoltBucketDepth = 16
	minBoltPageSize    = 512
	maxBoltPageSize    = 1 << 24 // the largest bbolt probes for
)

// lockRetry is how often lockShared tries again.
const lockRetry = 50 * time.Millisecond

// errLockTimeout reports a file that another process held for the whole
// lock timeout.
var errLockTimeout = errors.New("lock timeout")

var ne = binary.NativeEndian

// boltMeta is a decoded meta page.
type boltMeta struct {
	pageSize       uint32
	root, freelist uint64
	pgid, txid     uint64
}

// decodeBoltMeta decodes the meta page in page (at least boltMetaEnd
// bytes) and validates it as bbolt's Meta.Validate does.
func decodeBoltMeta(page []byte) (boltMeta, error) {
	if len(page) < boltMetaEnd {
		return boltMeta{}, errors.New("meta page cut short")
	}
	m := page[boltPageHeaderSize:boltMetaEnd]
	switch {
	case ne.Uint32(m[0:]) != boltMagic:
		return boltMeta{}, errors.New("no bbolt magic number")
	case ne.Uint32(m[4:]) != boltVersion:
		return boltMeta{}, fmt.Errorf("bbolt format version %d, not %d", ne.Uint32(m[4:]), boltVersion)
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != ne.Uint64(m[56:]) {
		return boltMeta{}, errors.New("checksum mismatch")
	}
	return boltMeta{pageSize: ne.Uint32(m[8:]), root: ne.Uint64(m[16:]), freelist: ne.Uint64(m[32:]),
		pgid: ne.Uint64(m[40:]), txid: ne.Uint64(m[48:])}, nil
}

// checkBoltPath checks the bbolt file at path (see checkBoltFile) under a
// shared lock, so that a writer in another process is not seen half-way
// through a commit: a file held longer than timeout is errLockTimeout.
func checkBoltPath(path string, timeout time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	unlock, err := lockShared(f, timeout)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return checkBoltFile(f, st.Size())
}

// boltDamage is damage found by checkBoltFile, as opposed to a failure to
// read the file.
type boltDamage struct{ msg string }

func (d *boltDamage) Error() string { return d.msg }

func damagef(format string, args ...any) error {
	return &boltDamage{fmt.Sprintf(format, args...)}
}

// checkBoltFile checks that the bbolt database in r, of size bytes, is
// safe for bbolt to open and read (see the comment at the top of this
// file). Damage is a *boltDamage; an I/O error is returned as it is.
func checkBoltFile(r io.ReaderAt, size int64) error {
	ps, err := boltPageSize(r, size)
	if err != nil {
		return err
	}
	if ps < minBoltPageSize || ps > maxBoltPageSize {
		return damagef("page size %d", ps)
	}
	if size < 2*ps {
		return damagef("%d bytes cannot hold two meta pages of %d", size, ps)
	}
	// Choose the meta page as bbolt's DB.meta does: the valid one with
	// the higher transaction id.
	var metas [2]boltMeta
	var errs [2]error
	for i := range metas {
		buf := make([]byte, boltMetaEnd)
		if _, err := r.ReadAt(buf, int64(i)*ps); err != nil {
			return err
		}
		metas[i], errs[i] = decodeBoltMeta(buf)
	}
	a, b := 0, 1
	if metas[1].txid > metas[0].txid {
		a, b = 1, 0
	}
	if errs[a] != nil {
		a = b
	}
	if errs[a] != nil {
		return damagef("both meta pages are invalid: %v; %v", errs[0], errs[1])
	}
	m := metas[a]
	pages := uint64(size / ps)
	switch {
	case int64(m.pageSize) != ps:
		return damagef("meta page %d: page size %d, the file's is %d", a, m.pageSize, ps)
	case m.pgid < 3 || m.pgid > pages:
		return damagef("meta page %d: high-water mark of %d pages in a file of %d", a, m.pgid, pages)
	case m.root < 2 || m.root >= m.pgid:
		return damagef("meta page %d: root page %d out of range [2, %d)", a, m.root, m.pgid)
	case m.freelist != boltNoFreelist && (m.freelist < 2 || m.freelist >= m.pgid):
		return damagef("meta page %d: freelist page %d out of range [2, %d)", a, m.freelist, m.pgid)
	}
	w := &boltWalker{r: r, ps: ps, pgid: m.pgid, seen: newBitset(m.pgid), freed: newBitset(m.pgid)}
	if m.freelist != boltNoFreelist {
		if err := w.freelist(m.freelist); err != nil {
			return err
		}
	}
	return w.tree(m.root, 0, 0, nil, nil)
}

// boltPageSize finds the page size as bbolt's getPageSize does: from the
// first meta page, else from a valid second meta page at 1 KiB × 2^i.
func boltPageSize(r io.ReaderAt, size int64) (int64, error) {
	read := func(pos int64) ([]byte, error) {
		buf := make([]byte, min(4096, size-pos))
		_, err := r.ReadAt(buf, pos)
		return buf, err
	}
	if size >= boltMetaEnd {
		buf, err := read(0)
		if err != nil {
			return 0, err
		}
		if m, err := decodeBoltMeta(buf); err == nil {
			return int64(m.pageSize), nil
		}
	}
	for i := range 15 {
		pos := int64(1024) << i
		if pos >= size-1024 {
			break
		}
		buf, err := read(pos)
		if err != nil {
			return 0, err
		}
		if m, err := decodeBoltMeta(buf); err == nil {
			return int64(m.pageSize), nil
		}
	}
	return 0, damagef("no valid meta page (not a bbolt database, or both meta pages are damaged)")
}

// bitset is a set of page ids below its size.
type bitset []uint64

func newBitset(n uint64) bitset    { return make(bitset, (n+63)/64) }
func (s bitset) has(i uint64) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) add(i uint64)      { s[i/64] |= 1 << (i % 64) }

// hasAny reports whether any of the n pages from i is in the set.
func (s bitset) hasAny(i, n uint64) bool {
	for j := i; j < i+n; j++ {
		if s.has(j) {
			return true
		}
	}
	return false
}

// boltWalker walks the pages of one meta page's tree.
type boltWalker struct {
	r     io.ReaderAt
	ps    int64
	pgid  uint64 // high-water mark: pages [0, pgid) are in use or free
	seen  bitset // pages reached (the freelist's and the trees')
	freed bitset // pages the freelist lists
}

// page reads page id with its overflow pages, after checking that they
// lie below the high-water mark and were not reached before, and marks
// them reached. It returns the page's bytes, flags and element count.
func (w *boltWalker) page(id uint64) (buf []byte, flags, count uint16, err error) {
	if id < 2 || id >= w.pgid {
		return nil, 0, 0, damagef("page %d out of range [2, %d)", id, w.pgid)
	}
	var h [boltPageHeaderSize]byte
	if _, err := w.r.ReadAt(h[:], int64(id)*w.ps); err != nil {
		return nil, 0, 0, err
	}
	flags, count = ne.Uint16(h[8:]), ne.Uint16(h[10:])
	overflow := uint64(ne.Uint32(h[12:]))
	switch {
	case ne.Uint64(h[0:]) != id:
		return nil, 0, 0, damagef("page %d: header says page %d", id, ne.Uint64(h[0:]))
	case overflow >= w.pgid-id:
		return nil, 0, 0, damagef("page %d: %d overflow pages pass the high-water mark %d", id, overflow, w.pgid)
	case w.seen.hasAny(id, overflow+1):
		return nil, 0, 0, damagef("page %d: reached twice (a cycle, or pages shared)", id)
	}
	for i := id; i <= id+overflow; i++ {
		w.seen.add(i)
	}
	buf = make([]byte, int64(overflow+1)*w.ps)
	if _, err := w.r.ReadAt(buf, int64(id)*w.ps); err != nil {
		return nil, 0, 0, err
	}
	return buf, flags, count, nil
}

// freelist checks the freelist page and records the free pages.
func (w *boltWalker) freelist(id uint64) error {
	buf, flags, count, err := w.page(id)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if flags != boltFreelistPage {
		return damagef("freelist page %d: flags %#x", id, flags)
	}
	ids := buf[boltPageHeaderSize:]
	n := uint64(count)
	if count == 0xFFFF { // the count is in the first element
		if len(ids) < 8 {
			return damagef("freelist page %d: cut short", id)
		}
		n, ids = ne.Uint64(ids), ids[8:]
	}
	if n > uint64(len(ids)/8) {
		return damagef("freelist page %d: %d ids do not fit", id, n)
	}
	for i := range n {
		f := ne.Uint64(ids[8*i:])
		switch {
		case f < 2 || f >= w.pgid:
			return damagef("freelist page %d: free page %d out of range [2, %d)", id, f, w.pgid)
		case w.freed.has(f):
			return damagef("freelist page %d: page %d freed twice", id, f)
		case w.seen.has(f):
			return damagef("freelist page %d: lists itself as free", id)
		}
		w.freed.add(f)
	}
	return nil
}

// tree checks the B+tree rooted at page id, at the given height in its
// bucket's tree and depth of nested buckets, whose keys must lie in
// [lo, hi) (nil: unbounded).
func (w *boltWalker) tree(id uint64, height, depth int, lo, hi []byte) error {
	if height > maxBoltTreeHeight {
		return damagef("page %d: tree deeper than %d", id, maxBoltTreeHeight)
	}
	buf, flags, count, err := w.page(id)
	if err != nil {
		return err
	}
	if w.freed.hasAny(id, uint64(len(buf))/uint64(w.ps)) {
		return damagef("page %d: in use and free", id)
	}
	switch flags {
	case boltBranchPage:
		if count == 0 {
			return damagef("page %d: empty branch page", id)
		}
		keys, children, err := branchElements(buf, count)
		if err != nil {
			return damagef("page %d: %v", id, err)
		}
		if err := checkKeyOrder(keys, lo, hi); err != nil {
			return damagef("page %d: %v", id, err)
		}
		for i, child := range children {
			next := hi
			if i+1 < len(keys) {
				next = keys[i+1]
			}
			if err := w.tree(child, height+1, depth, keys[i], next); err != nil {
				return err
			}
		}
		return nil
	case boltLeafPage:
		if err := w.leaf(buf, count, depth, lo, hi); err != nil {
			return damagef("page %d: %v", id, err)
		}
		return nil
	}
	return damagef("page %d: flags %#x, not a branch or leaf page", id, flags)
}

// leaf checks the elements of a leaf page (in a page of the file, or
// inline in a bucket's value) and the buckets they hold.
func (w *boltWalker) leaf(buf []byte, count uint16, depth int, lo, hi []byte) error {
	if uint64(count)*boltElementSize > uint64(len(buf)-boltPageHeaderSize) {
		return fmt.Errorf("%d elements do not fit", count)
	}
	keys := make([][]byte, count)
	for i := range keys {
		off := boltPageHeaderSize + i*boltElementSize
		e := buf[off : off+boltElementSize]
		flags, pos, ksize, vsize := ne.Uint32(e[0:]), uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		start := uint64(off) + pos
		if flags&^boltBucketLeaf != 0 || start+ksize+vsize > uint64(len(buf)) {
			return fmt.Errorf("element %d: flags %#x, key and value [%d, %d) outside the page of %d bytes",
				i, flags, start, start+ksize+vsize, len(buf))
		}
		keys[i] = buf[start : start+ksize]
		if flags&boltBucketLeaf == 0 {
			continue
		}
		v := buf[start+ksize : start+ksize+vsize]
		if err := w.bucket(v, depth+1); err != nil {
			return fmt.Errorf("bucket %.64q: %w", keys[i], err)
		}
	}
	return checkKeyOrder(keys, lo, hi)
}

// bucket checks a bucket's value: its root page's tree, or its inline
// page.
func (w *boltWalker) bucket(v []byte, depth int) error {
	if depth > maxBoltBucketDepth {
		return fmt.Errorf("buckets nested deeper than %d", maxBoltBucketDepth)
	}
	if len(v) < boltBucketHeaderSize {
		return fmt.Errorf("bucket header of %d bytes", len(v))
	}
	if root := ne.Uint64(v); root != 0 {
		return w.tree(root, 0, depth, nil, nil)
	}
	page := v[boltBucketHeaderSize:]
	if len(page) < boltPageHeaderSize {
		return fmt.Errorf("inline page of %d bytes", len(page))
	}
	if flags := ne.Uint16(page[8:]); flags != boltLeafPage {
		return fmt.Errorf("inline page with flags %#x, not a leaf page", flags)
	}
	return w.leaf(page, ne.Uint16(page[10:]), depth, nil, nil)
}

// branchElements returns the keys and child page ids of a branch page.
func branchElements(buf []byte, count uint16) (keys [][]byte, children []uint64, err error) {
	if uint64(count)*boltElementSize > uint64(len(buf)-boltPageHeaderSize) {
		return nil, nil, fmt.Errorf("%d elements do not fit", count)
	}
	keys, children = make([][]byte, count), make([]uint64, count)
	for i := range keys {
		off := boltPageHeaderSize + i*boltElementSize
		e := buf[off : off+boltElementSize]
		pos, ksize := uint64(ne.Uint32(e[0:])), uint64(ne.Uint32(e[4:]))
		start := uint64(off) + pos
		if start+ksize > uint64(len(buf)) {
			return nil, nil, fmt.Errorf("element %d: key [%d, %d) outside the page of %d bytes", i, start, start+ksize, len(buf))
		}
		keys[i], children[i] = buf[start:start+ksize], ne.Uint64(e[8:])
	}
	return keys, children, nil
}

// checkKeyOrder checks that keys increase strictly and lie in [lo, hi),
// as bbolt's Tx.Check does; a bbolt search relies on it.
func checkKeyOrder(keys [][]byte, lo, hi []byte) error {
	for i, k := range keys {
		switch {
		case i == 0 && lo != nil && bytes.Compare(k, lo) < 0:
			return fmt.Errorf("key %d (%.32q) below its parent's %.32q", i, k, lo)
		case i > 0 && bytes.Compare(keys[i-1], k) >= 0:
			return fmt.Errorf("key %d (%.32q) not above the one before (%.32q)", i, k, keys[i-1])
		case hi != nil && bytes.Compare(k, hi) >= 0:
			return fmt.Errorf("key %d (%.32q) not below the next in its parent (%.32q)", i, k, hi)
		}
	}
	return nil
}
