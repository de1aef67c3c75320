package experience

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Errors of the embedded store, for errors.Is.
var (
	// ErrCorruptStore reports a file that is not a readable experience
	// store: not a bbolt database, a damaged one, the database of another
	// program, a newer format, or a malformed record. The error is a
	// *CorruptStoreError that says which and where. The store never
	// empties, repairs or overwrites such a file: move it aside or restore
	// a copy.
	ErrCorruptStore = errors.New("experience: corrupt or foreign store file")
	// ErrStoreLocked reports a store file that another process (or another
	// StoreFile in this process) holds open, still so after
	// StoreOptions.LockTimeout.
	ErrStoreLocked = errors.New("experience: store file is locked by another user")
	// ErrStoreClosed reports a call on a closed StoreFile or on a
	// Workspace of one.
	ErrStoreClosed = errors.New("experience: store closed")
	// ErrEmbedderMismatch reports a workspace opened with an embedder other
	// than the one that filled it (another name or dimension), whose
	// vectors cannot be compared with the stored ones. The error is an
	// *EmbedderMismatchError.
	ErrEmbedderMismatch = errors.New("experience: workspace was made with another embedder")
	// ErrRecordTooLarge reports an experience whose stored form is larger
	// than StoreOptions.MaxRecordBytes, when adding or when reading it.
	ErrRecordTooLarge = errors.New("experience: record too large")
)

// CorruptStoreError describes a store file that cannot be used (see
// ErrCorruptStore, which it matches).
type CorruptStoreError struct {
	// Path is the store file.
	Path string
	// Workspace and Key locate a bad record, when the damage is in one.
	Workspace, Key string
	// Reason says what is wrong, in words.
	Reason string
	// Err is the underlying error (what the structural check found,
	// bbolt's ErrInvalid or ErrChecksum, a JSON error), or nil.
	Err error
}

// Error says which file is unusable, where and why.
func (e *CorruptStoreError) Error() string {
	msg := "experience: store " + e.Path + " is corrupt or foreign"
	if e.Workspace != "" {
		msg += fmt.Sprintf(" (workspace %q", e.Workspace)
		if e.Key != "" {
			msg += fmt.Sprintf(", record %q", e.Key)
		}
		msg += ")"
	}
	msg += ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns Err.
func (e *CorruptStoreError) Unwrap() error { return e.Err }

// Is reports whether target is ErrCorruptStore.
func (e *CorruptStoreError) Is(target error) bool { return target == ErrCorruptStore }

// EmbedderMismatchError reports a workspace opened with the wrong embedder
// (see ErrEmbedderMismatch, which it matches).
type EmbedderMismatchError struct {
	// Workspace is the workspace's id.
	Workspace string
	// StoredName and StoredDimension describe the embedder that filled the
	// workspace; Name and Dimension the one offered.
	StoredName      string
	StoredDimension int
	Name            string
	Dimension       int
}

// Error names both embedders.
func (e *EmbedderMismatchError) Error() string {
	return fmt.Sprintf("experience: workspace %q holds vectors of embedder %q (dimension %d), not %q (dimension %d); "+
		"use the same embedder or a new workspace", e.Workspace, e.StoredName, e.StoredDimension, e.Name, e.Dimension)
}

// Is reports whether target is ErrEmbedderMismatch.
func (e *EmbedderMismatchError) Is(target error) bool { return target == ErrEmbedderMismatch }

// Defaults of StoreOptions' zero fields, and fixed bounds.
const (
	// DefaultLockTimeout is how long OpenStoreFile waits for a file that
	// another process holds.
	DefaultLockTimeout = 10 * time.Second
	// DefaultMaxRecordBytes bounds one stored experience (its JSON form,
	// vector aside). Distilled experiences are a few hundred bytes to a
	// few KiB.
	DefaultMaxRecordBytes = 1 << 20
	// MaxWorkspaceIDBytes and MaxExperienceIDBytes bound ids.
	MaxWorkspaceIDBytes  = 256
	MaxExperienceIDBytes = 512
	// maxMetaBytes bounds a workspace's metadata record.
	maxMetaBytes = 64 << 10
)

// StoreOptions configures OpenStoreFile. Zero values mean defaults.
type StoreOptions struct {
	// LockTimeout is how long to wait for a file that another process, or
	// another StoreFile of this process, holds open; then OpenStoreFile
	// fails with ErrStoreLocked. Zero means DefaultLockTimeout; negative
	// means fail at once.
	LockTimeout time.Duration
	// MaxRecordBytes bounds the stored form of one experience, on Add and
	// on read. Zero or negative means DefaultMaxRecordBytes.
	MaxRecordBytes int
	// Verify runs bbolt's consistency check (Tx.Check) over the whole file
	// when it is opened, so that damage is reported up front rather than
	// on the first read of a bad page: keys out of order, pages both free
	// and in use, pages neither. Without Verify an existing file still
	// gets a structural check of every page in use before bbolt reads it,
	// so that no damaged file, however made, crashes or hangs the process
	// (a corrupt record is then reported when it is read).
	Verify bool
}

func (o StoreOptions) withDefaults() StoreOptions {
	switch {
	case o.LockTimeout == 0:
		o.LockTimeout = DefaultLockTimeout
	case o.LockTimeout < 0:
		o.LockTimeout = time.Nanosecond // bbolt's 0 would wait forever
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	return o
}

// Layout of a store file. Everything lives under one top-level bucket, so
// that a bbolt file of another program (any other top-level bucket) is
// recognised and left alone:
//
//	agentevolver.experience/
//	  format       "1"
//	  workspaces/
//	    <workspace id>/
//	      meta     JSON {"embedder", "dimension", "created"}
//	      exp/     experience id -> JSON Experience
//	      vec/     experience id -> dimension little-endian float32s, L2-normalised
var (
	rootBucket       = []byte("agentevolver.experience")
	formatKey        = []byte("format")
	formatVersion    = []byte("1")
	workspacesBucket = []byte("workspaces")
	metaKey          = []byte("meta")
	expBucket        = []byte("exp")
	vecBucket        = []byte("vec")
)

// StoreFile is an embedded, persistent experience store: one file holding
// any number of workspaces, each a Store (see Workspace). It is built on
// go.etcd.io/bbolt, chosen because it is pure Go (no cgo, so the SDK still
// builds everywhere), a single file that is easy to keep beside a
// checkpoint, and ACID: every Add is one transaction that is fsynced before
// it returns, so a crash loses nothing acknowledged and never leaves half a
// batch; readers run concurrently with a writer on a consistent snapshot.
// bbolt takes an exclusive lock on the file, so a second process (or a
// second StoreFile in this one) waits StoreOptions.LockTimeout and then
// fails with ErrStoreLocked instead of corrupting it. The experience pool
// is small (thousands of records) and read far more than written, which
// suits bbolt's B+tree with serialised writers; sqlite would need cgo, and
// a log-structured store such as badger brings compaction and many files
// for no gain at this size.
//
// Workspaces share one file (a bucket each) rather than a file each: one
// lock, one file to copy or back up with a run, and listing them is one
// read. Processes that must write at the same time use different files
// (different paths), which gives a file per workspace wherever that is
// wanted.
//
// A StoreFile is safe for concurrent use. Close it when done; the file
// stays locked until then.
type StoreFile struct {
	path   string
	opts   StoreOptions
	db     *bolt.DB
	closed atomic.Bool

	mu         sync.Mutex // guards workspaces and Close
	workspaces map[string]*Workspace
}

// OpenStoreFile opens the store at path, creating the file (mode 0600) when
// it does not exist or is empty. A file that is not an experience store
// (garbage, a damaged or foreign bbolt file, a newer format) fails with a
// *CorruptStoreError (ErrCorruptStore) and is not modified: such a file is
// first opened read-only and checked, and written to only once it is known
// to be a store. A file held by someone else fails with ErrStoreLocked
// after opts.LockTimeout.
func OpenStoreFile(path string, opts StoreOptions) (*StoreFile, error) {
	opts = opts.withDefaults()
	f := &StoreFile{path: path, opts: opts, workspaces: map[string]*Workspace{}}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("experience: open store %s: is a directory", path)
	case err == nil && info.Size() > 0:
		if err := f.checkStructure(); err != nil {
			return nil, err
		}
		if err := f.probe(); err != nil {
			return nil, err
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("experience: open store: %w", err)
	}
	existed := err == nil && info.Size() > 0
	db, err := f.openBolt(false, existed)
	if err != nil {
		return nil, err
	}
	f.db = db
	if err := f.initialise(); err != nil {
		_ = db.Close()
		return nil, err
	}
	if opts.Verify {
		if err := f.verify(); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return f, nil
}

// openBolt opens the bbolt database, turning its failures (and panics on
// damaged pages) into this package's errors. existed says the file was
// there and not empty, so that an unreadable one is reported as corrupt.
func (f *StoreFile) openBolt(readOnly, existed bool) (db *bolt.DB, err error) {
	var file *os.File
	defer func() {
		if r := recover(); r != nil {
			if file != nil {
				_ = file.Close() // releases the lock; the mapping is lost
			}
			db, err = nil, &CorruptStoreError{Path: f.path, Reason: fmt.Sprintf("bbolt failed reading it: %v", r)}
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	db, err = bolt.Open(f.path, 0o600, &bolt.Options{
		Timeout:  f.opts.LockTimeout,
		ReadOnly: readOnly,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			var err error
			file, err = os.OpenFile(name, flag, perm)
			return file, err
		},
	})
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w: %s (waited %s)", ErrStoreLocked, f.path, f.opts.LockTimeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum):
		return nil, &CorruptStoreError{Path: f.path, Reason: "not a bbolt database, or both its meta pages are damaged", Err: err}
	case errors.Is(err, berrors.ErrVersionMismatch):
		return nil, &CorruptStoreError{Path: f.path, Reason: "a bbolt database of an unsupported version", Err: err}
	case existed && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, fs.ErrNotExist):
		return nil, &CorruptStoreError{Path: f.path, Reason: "cannot be opened as a bbolt database", Err: err}
	}
	return nil, fmt.Errorf("experience: open store %s: %w", f.path, err)
}

// checkStructure checks an existing file with checkBoltPath before bbolt
// reads it, so that no damage can crash or hang bbolt (see
// store_check.go). The check holds a shared lock, released before bbolt
// takes its own: a bbolt writer in another process may commit in between,
// which leaves a consistent file; a process that writes the file without
// bbolt's lock is outside what any check can guard against.
func (f *StoreFile) checkStructure() error {
	err := checkBoltPath(f.path, f.opts.LockTimeout)
	var damage *boltDamage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errLockTimeout):
		return fmt.Errorf("%w: %s (waited %s)", ErrStoreLocked, f.path, f.opts.LockTimeout)
	case errors.As(err, &damage):
		return &CorruptStoreError{Path: f.path, Reason: "damaged bbolt file", Err: err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &CorruptStoreError{Path: f.path, Reason: "damaged bbolt file: cut short", Err: err}
	}
	return fmt.Errorf("experience: open store %s: %w", f.path, err)
}

// probe opens an existing file read-only and checks that it is an
// experience store, or an empty bbolt database, before anything may write
// to it.
func (f *StoreFile) probe() error {
	db, err := f.openBolt(true, true)
	if err != nil {
		return err
	}
	probe := &StoreFile{path: f.path, opts: f.opts, db: db}
	err = probe.view(func(tx *bolt.Tx) error {
		_, err := probe.checkFormat(tx)
		return err
	})
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("experience: open store %s: %w", f.path, cerr)
	}
	return err
}

// checkFormat reports whether tx holds the store's layout (true), nothing
// at all (false: a new file), or something else (an error).
func (f *StoreFile) checkFormat(tx *bolt.Tx) (bool, error) {
	root := tx.Bucket(rootBucket)
	if root == nil {
		var foreign []byte
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			foreign = name
			return errStop
		})
		if foreign != nil {
			return false, &CorruptStoreError{Path: f.path,
				Reason: fmt.Sprintf("a bbolt database of another program (bucket %.64q, no %q)", foreign, rootBucket)}
		}
		// A new bbolt database is 4 pages: two meta pages, the freelist
		// and an empty root. Anything larger once held data, so a
		// missing bucket means damage, not a new file.
		if pages := tx.Size() / int64(tx.DB().Info().PageSize); pages > 4 {
			return false, &CorruptStoreError{Path: f.path,
				Reason: fmt.Sprintf("no %q bucket in a database of %d pages", rootBucket, pages)}
		}
		return false, nil
	}
	if v := root.Get(formatKey); string(v) != string(formatVersion) {
		return false, &CorruptStoreError{Path: f.path,
			Reason: fmt.Sprintf("store format %.32q, this version reads %q", v, formatVersion)}
	}
	if root.Bucket(workspacesBucket) == nil {
		return false, &CorruptStoreError{Path: f.path, Reason: "no workspaces bucket"}
	}
	return true, nil
}

// errStop ends a bbolt ForEach early.
var errStop = errors.New("stop")

// initialise writes the store's layout into a new file, or checks it.
func (f *StoreFile) initialise() error {
	var ok bool
	err := f.view(func(tx *bolt.Tx) error {
		var err error
		ok, err = f.checkFormat(tx)
		return err
	})
	if err != nil || ok {
		return err
	}
	return f.update(func(tx *bolt.Tx) error {
		if ok, err := f.checkFormat(tx); err != nil || ok {
			return err
		}
		root, err := tx.CreateBucket(rootBucket)
		if err != nil {
			return err
		}
		if err := root.Put(formatKey, formatVersion); err != nil {
			return err
		}
		_, err = root.CreateBucket(workspacesBucket)
		return err
	})
}

// verify runs bbolt's consistency check.
func (f *StoreFile) verify() error {
	return f.view(func(tx *bolt.Tx) error {
		var first error
		n := 0
		// Drain the channel: the check runs in its own goroutine inside
		// this transaction, which must outlive it.
		for err := range tx.Check() {
			if first == nil {
				first = err
			}
			n++
		}
		if first != nil {
			return &CorruptStoreError{Path: f.path, Reason: fmt.Sprintf("consistency check found %d problems, the first", n), Err: first}
		}
		return nil
	})
}

// view runs fn in a read transaction, turning bbolt's panics on damaged
// pages into a *CorruptStoreError and its closed-database error into
// ErrStoreClosed.
func (f *StoreFile) view(fn func(*bolt.Tx) error) (err error) {
	return f.guard(func() error { return f.db.View(fn) })
}

// update runs fn in a write transaction, as view does.
func (f *StoreFile) update(fn func(*bolt.Tx) error) (err error) {
	return f.guard(func() error { return f.db.Update(fn) })
}

func (f *StoreFile) guard(run func() error) (err error) {
	if f.closed.Load() {
		return ErrStoreClosed
	}
	defer func() {
		if r := recover(); r != nil {
			err = &CorruptStoreError{Path: f.path, Reason: fmt.Sprintf("bbolt failed reading it: %v", r)}
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	err = run()
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrStoreClosed
	}
	return err
}

// Path returns the file's path.
func (f *StoreFile) Path() string { return f.path }

// Close closes the file, waiting for transactions in flight, and releases
// its lock. Workspaces of a closed file fail with ErrStoreClosed. Closing
// twice is harmless.
func (f *StoreFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Swap(true) {
		return nil
	}
	if err := f.db.Close(); err != nil {
		return fmt.Errorf("experience: close store %s: %w", f.path, err)
	}
	return nil
}

// WorkspaceInfo describes a workspace of a store file.
type WorkspaceInfo struct {
	// ID is the workspace's id.
	ID string
	// Embedder and Dimension describe the embedder that fills it.
	Embedder  string
	Dimension int
	// Len is the number of experiences stored.
	Len int
	// Created is when the workspace was made.
	Created time.Time
}

// Workspaces lists the file's workspaces in id order.
func (f *StoreFile) Workspaces() ([]WorkspaceInfo, error) {
	var out []WorkspaceInfo
	err := f.view(func(tx *bolt.Tx) error {
		ws := tx.Bucket(rootBucket).Bucket(workspacesBucket)
		return ws.ForEachBucket(func(name []byte) error {
			b := ws.Bucket(name)
			meta, err := decodeWorkspaceMeta(b.Get(metaKey))
			if err != nil {
				return &CorruptStoreError{Path: f.path, Workspace: string(name), Reason: "bad metadata", Err: err}
			}
			n := 0
			if vb := b.Bucket(vecBucket); vb != nil {
				n = vb.Stats().KeyN
			}
			out = append(out, WorkspaceInfo{ID: string(name), Embedder: meta.Embedder,
				Dimension: meta.Dimension, Len: n, Created: meta.Created})
			return nil
		})
	})
	return out, err
}

// Workspace returns the workspace id of the file, creating it when it does
// not exist; emb embeds its keys and queries. A new workspace records emb's
// Name and Dimension, and an existing one refuses any other embedder with
// an *EmbedderMismatchError. Every call for the same id returns the same
// *Workspace. Opening loads the workspace's vectors into memory (4 ×
// dimension bytes per experience) and checks them.
//
// A workspace id is 1 to MaxWorkspaceIDBytes bytes of UTF-8; the
// reference's default is "default". List existing ones with Workspaces
// to tell "continue an existing pool" from "start a new one".
func (f *StoreFile) Workspace(id string, emb Embedder) (*Workspace, error) {
	if id == "" || len(id) > MaxWorkspaceIDBytes || !utf8.ValidString(id) {
		return nil, fmt.Errorf("experience: workspace id %.40q: want 1 to %d bytes of UTF-8", id, MaxWorkspaceIDBytes)
	}
	if emb == nil {
		return nil, errors.New("experience: Workspace needs an Embedder")
	}
	name, dim := emb.Name(), emb.Dimension()
	if name == "" || dim <= 0 || dim > MaxDimension {
		return nil, fmt.Errorf("experience: embedder %q of dimension %d: want a name and a dimension in [1, %d]", name, dim, MaxDimension)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return nil, ErrStoreClosed
	}
	if w, ok := f.workspaces[id]; ok {
		if w.name != name || w.dim != dim {
			return nil, &EmbedderMismatchError{Workspace: id, StoredName: w.name, StoredDimension: w.dim, Name: name, Dimension: dim}
		}
		return w, nil
	}
	w := &Workspace{file: f, id: id, emb: emb, name: name, dim: dim, pos: map[string]int{}}
	exists := false
	err := f.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(rootBucket).Bucket(workspacesBucket).Bucket([]byte(id))
		if b == nil {
			return nil
		}
		exists = true
		return w.load(b)
	})
	if err != nil {
		return nil, err
	}
	if !exists {
		err = f.update(func(tx *bolt.Tx) error {
			ws := tx.Bucket(rootBucket).Bucket(workspacesBucket)
			b, err := ws.CreateBucket([]byte(id))
			if err != nil {
				return err
			}
			meta, err := encodeWorkspaceMeta(workspaceMeta{Embedder: name, Dimension: dim, Created: time.Now().UTC()})
			if err != nil {
				return err
			}
			if err := b.Put(metaKey, meta); err != nil {
				return err
			}
			if _, err := b.CreateBucket(expBucket); err != nil {
				return err
			}
			_, err = b.CreateBucket(vecBucket)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("experience: create workspace %q: %w", id, err)
		}
	}
	f.workspaces[id] = w
	return w, nil
}
