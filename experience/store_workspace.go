package experience

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Workspace is one named experience pool in a StoreFile: a persistent
// Store searched by cosine similarity of embeddings. Get one with
// StoreFile.Workspace. It is safe for concurrent use: Retrieve and Search
// run in parallel with each other and with Add, and Adds are applied one
// at a time.
//
// Each experience is stored with the embedding of its Key (of its Text
// when Key is empty), L2-normalised, so that similarity is a dot product.
// The vectors are also kept in memory, where a query is scored against all
// of them with one matrix-vector product (gonum's BLAS); only the best k
// records are then read from the file.
type Workspace struct {
	file    *StoreFile
	id      string
	emb     Embedder
	name    string
	dim     int
	writeMu sync.Mutex // serialises Add, so the index follows commit order
	mu      sync.RWMutex
	ids     []string       // guarded by mu
	vecs    []float32      // guarded by mu: len(ids) × dim, row i for ids[i]
	pos     map[string]int // guarded by mu: id → row
}

var _ Store = (*Workspace)(nil)

// load reads the workspace's metadata and vectors from b, checking that
// they fit the embedder and each other.
func (w *Workspace) load(b *bolt.Bucket) error {
	f := w.file
	corrupt := func(key []byte, reason string, err error) error {
		return &CorruptStoreError{Path: f.path, Workspace: w.id, Key: string(key), Reason: reason, Err: err}
	}
	meta, err := decodeWorkspaceMeta(b.Get(metaKey))
	if err != nil {
		return corrupt(nil, "bad metadata", err)
	}
	if meta.Embedder != w.name || meta.Dimension != w.dim {
		return &EmbedderMismatchError{Workspace: w.id, StoredName: meta.Embedder, StoredDimension: meta.Dimension,
			Name: w.name, Dimension: w.dim}
	}
	eb, vb := b.Bucket(expBucket), b.Bucket(vecBucket)
	if eb == nil || vb == nil {
		return corrupt(nil, "missing exp or vec bucket", nil)
	}
	err = vb.ForEach(func(k, v []byte) error {
		if v == nil {
			return corrupt(k, "unexpected bucket among vectors", nil)
		}
		if eb.Get(k) == nil {
			return corrupt(k, "vector without an experience", nil)
		}
		vecs, err := decodeVector(w.vecs, v, w.dim)
		if err != nil {
			return corrupt(k, "bad vector", err)
		}
		w.vecs = vecs
		w.pos[string(k)] = len(w.ids)
		w.ids = append(w.ids, string(k))
		return nil
	})
	if err != nil {
		return err
	}
	if n := eb.Stats().KeyN; n != len(w.ids) {
		return corrupt(nil, fmt.Sprintf("%d experiences but %d vectors", n, len(w.ids)), nil)
	}
	return nil
}

// ID returns the workspace's id.
func (w *Workspace) ID() string { return w.id }

// Embedder returns the embedder the workspace was opened with.
func (w *Workspace) Embedder() Embedder { return w.emb }

// Len returns the number of experiences stored.
func (w *Workspace) Len() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.ids)
}

// Add stores exps, embedding each one's Key (or Text) first, in one
// transaction: all of them are stored, durably, or none. An experience
// with an empty ID gets a fresh one (a zero-padded sequence number, so
// that ids sort by insertion); one whose ID is already stored replaces it.
// A zero Created becomes the current time (UTC). The caller's slice is not
// modified. An experience with no Text, an ID longer than
// MaxExperienceIDBytes, or a stored form over StoreOptions.MaxRecordBytes
// (ErrRecordTooLarge) fails the whole call before anything is written.
func (w *Workspace) Add(ctx context.Context, exps []Experience) error {
	if len(exps) == 0 {
		return nil
	}
	if w.file.closed.Load() {
		return ErrStoreClosed
	}
	exps = append([]Experience(nil), exps...)
	keys := make([]string, len(exps))
	now := time.Now().UTC()
	for i := range exps {
		e := &exps[i]
		switch {
		case e.Text == "":
			return fmt.Errorf("experience: Add: experience %d (id %.64q) has no text", i, e.ID)
		case len(e.ID) > MaxExperienceIDBytes:
			return fmt.Errorf("experience: Add: experience %d: id of %d bytes, over %d", i, len(e.ID), MaxExperienceIDBytes)
		}
		if e.Created.IsZero() {
			e.Created = now
		}
		keys[i] = e.Key
		if keys[i] == "" {
			keys[i] = e.Text
		}
		// Check the size now, before embedding; an assigned id adds 12
		// bytes.
		limit := w.file.opts.MaxRecordBytes
		if e.ID == "" {
			limit -= 12
		}
		if _, err := encodeRecord(*e, limit); err != nil {
			return err
		}
	}
	vecs, err := w.emb.Embed(ctx, keys)
	if err != nil {
		return fmt.Errorf("experience: Add to workspace %q: %w", w.id, err)
	}
	if vecs, err = checkVectors(vecs, len(keys), w.dim, w.name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("experience: Add: %w", err)
	}

	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	err = w.file.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(rootBucket).Bucket(workspacesBucket).Bucket([]byte(w.id))
		if b == nil {
			return &CorruptStoreError{Path: w.file.path, Workspace: w.id, Reason: "workspace bucket vanished"}
		}
		eb, vb := b.Bucket(expBucket), b.Bucket(vecBucket)
		for i := range exps {
			e := &exps[i]
			if e.ID == "" {
				seq, err := eb.NextSequence()
				if err != nil {
					return err
				}
				e.ID = fmt.Sprintf("%012d", seq)
			}
			rec, err := encodeRecord(*e, w.file.opts.MaxRecordBytes)
			if err != nil {
				return err
			}
			if err := eb.Put([]byte(e.ID), rec); err != nil {
				return err
			}
			if err := vb.Put([]byte(e.ID), encodeVector(vecs[i])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		var corrupt *CorruptStoreError
		if errors.As(err, &corrupt) || errors.Is(err, ErrStoreClosed) || errors.Is(err, ErrRecordTooLarge) {
			return err
		}
		return fmt.Errorf("experience: Add to workspace %q: %w", w.id, err)
	}
	w.mu.Lock()
	for i, e := range exps {
		if p, ok := w.pos[e.ID]; ok {
			copy(w.vecs[p*w.dim:(p+1)*w.dim], vecs[i])
			continue
		}
		w.pos[e.ID] = len(w.ids)
		w.ids = append(w.ids, e.ID)
		w.vecs = append(w.vecs, vecs[i]...)
	}
	w.mu.Unlock()
	return nil
}

// Match is an experience found by Search, with its cosine similarity to
// the query, in [-1, 1].
type Match struct {
	Experience
	Similarity float32
}

// Retrieve returns at most k experiences most similar to query, most
// similar first (see Search).
func (w *Workspace) Retrieve(ctx context.Context, query string, k int) ([]Experience, error) {
	matches, err := w.Search(ctx, query, k)
	if err != nil || len(matches) == 0 {
		return nil, err
	}
	out := make([]Experience, len(matches))
	for i, m := range matches {
		out[i] = m.Experience
	}
	return out, nil
}

// Search returns at most k experiences with the highest cosine similarity
// between their key's embedding and query's, highest first; ties go to
// the smaller id, so results do not depend on insertion order or restarts.
// k of 0 or less, an empty workspace, or a query whose embedding is zero
// (one with no words, for the local embedder) give no matches. There is no
// similarity threshold: the k nearest are returned however far they are.
func (w *Workspace) Search(ctx context.Context, query string, k int) ([]Match, error) {
	if k <= 0 {
		return nil, nil
	}
	if w.file.closed.Load() {
		return nil, ErrStoreClosed
	}
	if w.Len() == 0 {
		return nil, nil
	}
	qs, err := w.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("experience: search workspace %q: %w", w.id, err)
	}
	if qs, err = checkVectors(qs, 1, w.dim, w.name); err != nil {
		return nil, err
	}
	q := qs[0]
	if isZero(q) {
		return nil, nil
	}
	w.mu.RLock()
	top := topK(w.vecs, w.ids, w.dim, q, k)
	w.mu.RUnlock()

	out := make([]Match, 0, len(top))
	err = w.file.view(func(tx *bolt.Tx) error {
		eb := tx.Bucket(rootBucket).Bucket(workspacesBucket).Bucket([]byte(w.id)).Bucket(expBucket)
		for _, s := range top {
			raw := eb.Get([]byte(s.id))
			if raw == nil {
				return &CorruptStoreError{Path: w.file.path, Workspace: w.id, Key: s.id, Reason: "experience missing"}
			}
			e, err := decodeRecord([]byte(s.id), raw, w.file.opts.MaxRecordBytes)
			switch {
			case errors.Is(err, ErrRecordTooLarge):
				return fmt.Errorf("experience: workspace %q, record %.64q: %w", w.id, s.id, err)
			case err != nil:
				return &CorruptStoreError{Path: w.file.path, Workspace: w.id, Key: s.id, Reason: "bad record", Err: err}
			}
			out = append(out, Match{Experience: e, Similarity: s.score})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// String describes the workspace for logs.
func (w *Workspace) String() string {
	return "experience.Workspace(" + strconv.Quote(w.id) + " in " + w.file.path + ")"
}
