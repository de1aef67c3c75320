package experience

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openTestStore opens a store file in a fresh temporary directory.
func openTestStore(t *testing.T, opts StoreOptions) (*StoreFile, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "exp.db")
	f, err := OpenStoreFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f, path
}

func mustWorkspace(t *testing.T, f *StoreFile, id string, emb Embedder) *Workspace {
	t.Helper()
	w, err := f.Workspace(id, emb)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func texts(exps []Experience) []string {
	out := make([]string, len(exps))
	for i, e := range exps {
		out[i] = e.Text
	}
	return out
}

var routerLessons = []Experience{
	{Text: "Restart the router before changing its settings.", Key: "reset the wifi router", TaskID: "t1", Score: 1, Source: "test"},
	{Text: "Book the flight only after checking the baggage rules.", Key: "book a flight to paris", TaskID: "t2", Score: 0.5, Source: "test"},
	{Text: "Sort the spreadsheet by date before summing.", TaskID: "t3", Score: 0, Source: "test"},
}

func TestStoreReopenKeepsExperiences(t *testing.T) {
	ctx := context.Background()
	emb := NewLocalEmbedder(128)
	path := filepath.Join(t.TempDir(), "exp.db")
	f, err := OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := mustWorkspace(t, f, "default", emb)
	if err := w.Add(ctx, routerLessons); err != nil {
		t.Fatal(err)
	}
	if err := mustWorkspace(t, f, "other", emb).Add(ctx, routerLessons[:1]); err != nil {
		t.Fatal(err)
	}
	before, err := w.Search(ctx, "my router needs a reset", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	f, err = OpenStoreFile(path, StoreOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	infos, err := f.Workspaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 2 || infos[0].ID != "default" || infos[0].Len != 3 || infos[1].ID != "other" || infos[1].Len != 1 ||
		infos[0].Embedder != LocalEmbedderName || infos[0].Dimension != 128 || infos[0].Created.IsZero() {
		t.Fatalf("Workspaces = %+v", infos)
	}
	w = mustWorkspace(t, f, "default", emb)
	after, err := w.Search(ctx, "my router needs a reset", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 3 || after[0].Text != routerLessons[0].Text {
		t.Fatalf("after reopen: %+v", after)
	}
	for i := range after {
		a, b := after[i], before[i]
		if a.ID != b.ID || a.Text != b.Text || a.Key != b.Key || a.TaskID != b.TaskID || a.Score != b.Score ||
			a.Source != b.Source || !a.Created.Equal(b.Created) || a.Similarity != b.Similarity {
			t.Errorf("match %d: before %+v, after %+v", i, b, a)
		}
	}
	if ids := []string{after[0].ID, after[1].ID, after[2].ID}; slices.Contains(ids, "") {
		t.Errorf("ids not assigned: %q", ids)
	}
}

func TestStoreSearchRanking(t *testing.T) {
	ctx := context.Background()
	f, _ := openTestStore(t, StoreOptions{})
	w := mustWorkspace(t, f, "default", NewLocalEmbedder(256))
	if got, err := w.Retrieve(ctx, "router", 3); err != nil || got != nil {
		t.Fatalf("empty workspace: %v, %v", got, err)
	}
	if err := w.Add(ctx, routerLessons); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		k     int
		want  []string
	}{
		{"the wifi router must be reset", 1, []string{routerLessons[0].Text}},
		{"book a cheap flight to Paris", 1, []string{routerLessons[1].Text}},
		{"sum the spreadsheet column", 1, []string{routerLessons[2].Text}},
		{"the wifi router must be reset", 0, nil},
		{"the wifi router must be reset", -1, nil},
		{"?!", 3, nil}, // no words: a zero vector matches nothing
	}
	for _, tt := range tests {
		got, err := w.Retrieve(ctx, tt.query, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(texts(got), tt.want) {
			t.Errorf("Retrieve(%q, %d) = %q, want %q", tt.query, tt.k, texts(got), tt.want)
		}
	}
	all, err := w.Search(ctx, "router", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("k > Len: got %d matches", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Similarity > all[i-1].Similarity {
			t.Errorf("not sorted: %v then %v", all[i-1].Similarity, all[i].Similarity)
		}
	}
}

func TestStoreAddReplacesAndValidates(t *testing.T) {
	ctx := context.Background()
	f, _ := openTestStore(t, StoreOptions{MaxRecordBytes: 4096})
	w := mustWorkspace(t, f, "default", NewLocalEmbedder(64))
	if err := w.Add(ctx, []Experience{{ID: "a", Text: "first text about routers"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(ctx, []Experience{{ID: "a", Text: "second text about flights"}}); err != nil {
		t.Fatal(err)
	}
	if w.Len() != 1 {
		t.Fatalf("Len = %d after replacing", w.Len())
	}
	got, err := w.Retrieve(ctx, "flights", 5)
	if err != nil || len(got) != 1 || got[0].Text != "second text about flights" {
		t.Fatalf("after replace: %+v, %v", got, err)
	}
	bad := []struct {
		name string
		exps []Experience
		is   error
	}{
		{"no text", []Experience{{Text: "ok"}, {ID: "x"}}, nil},
		{"long id", []Experience{{ID: strings.Repeat("i", MaxExperienceIDBytes+1), Text: "t"}}, nil},
		{"too large", []Experience{{Text: "ok"}, {Text: strings.Repeat("x", 5000)}}, ErrRecordTooLarge},
	}
	for _, tt := range bad {
		err := w.Add(ctx, tt.exps)
		if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.is)
		}
	}
	if w.Len() != 1 {
		t.Errorf("a failed Add stored something: Len = %d", w.Len())
	}
	caller := []Experience{{Text: "no id yet"}}
	if err := w.Add(ctx, caller); err != nil {
		t.Fatal(err)
	}
	if caller[0].ID != "" || !caller[0].Created.IsZero() {
		t.Errorf("Add modified the caller's slice: %+v", caller[0])
	}
}

func TestStoreRecordTooLargeOnRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "exp.db")
	f, err := OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	emb := NewLocalEmbedder(32)
	if err := mustWorkspace(t, f, "default", emb).Add(ctx, []Experience{{Text: "router " + strings.Repeat("x", 3000)}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = OpenStoreFile(path, StoreOptions{MaxRecordBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = mustWorkspace(t, f, "default", emb).Retrieve(ctx, "router", 1)
	if !errors.Is(err, ErrRecordTooLarge) {
		t.Fatalf("err = %v, want ErrRecordTooLarge", err)
	}
}

func TestStoreEmbedderMismatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "exp.db")
	f, err := OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := mustWorkspace(t, f, "default", NewLocalEmbedder(64))
	if err := w.Add(ctx, routerLessons); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Workspace("default", NewLocalEmbedder(128)); !errors.Is(err, ErrEmbedderMismatch) {
		t.Errorf("same file, other dimension: %v", err)
	}
	if again := mustWorkspace(t, f, "default", NewLocalEmbedder(64)); again != w {
		t.Error("a second Workspace call returned another *Workspace")
	}
	f.Close()

	f, err = OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, emb := range []Embedder{NewLocalEmbedder(128), renamed{NewLocalEmbedder(64), "other-model"}} {
		_, err := f.Workspace("default", emb)
		var mm *EmbedderMismatchError
		if !errors.As(err, &mm) || !errors.Is(err, ErrEmbedderMismatch) ||
			mm.StoredName != LocalEmbedderName || mm.StoredDimension != 64 || mm.Name != emb.Name() || mm.Dimension != emb.Dimension() {
			t.Errorf("%s/%d: err = %v", emb.Name(), emb.Dimension(), err)
		}
	}
	if _, err := f.Workspace("default", NewLocalEmbedder(64)); err != nil {
		t.Errorf("the right embedder after refusals: %v", err)
	}
}

// renamed is an embedder under another name.
type renamed struct {
	Embedder
	name string
}

func (r renamed) Name() string { return r.name }

func TestStoreWorkspaceArguments(t *testing.T) {
	f, _ := openTestStore(t, StoreOptions{})
	for _, id := range []string{"", strings.Repeat("w", MaxWorkspaceIDBytes+1), "bad\xff"} {
		if _, err := f.Workspace(id, NewLocalEmbedder(8)); err == nil {
			t.Errorf("workspace id %q accepted", id)
		}
	}
	if _, err := f.Workspace("w", nil); err == nil {
		t.Error("nil embedder accepted")
	}
}

func TestStoreCorruptOrForeignFileIsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 3*4096)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	foreign := func(t *testing.T, path string) {
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte("someone-elses-data"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte("v"))
		})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	newerFormat := func(t *testing.T, path string) {
		f, err := OpenStoreFile(path, StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(rootBucket).Put(formatKey, []byte("2")) }); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	badMeta := func(t *testing.T, path string) {
		f, err := OpenStoreFile(path, StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Workspace("default", NewLocalEmbedder(8)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(rootBucket).Bucket(workspacesBucket).Bucket([]byte("default")).Put(metaKey, []byte("{not json"))
		})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	write := func(b []byte) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name      string
		make      func(*testing.T, string)
		workspace bool // the damage shows when the workspace is opened
	}{
		{"random bytes", write(garbage), false},
		{"a few bytes", write([]byte("hello")), false},
		{"a text file", write(bytes.Repeat([]byte("experience: lesson one\n"), 1000)), false},
		{"a JSON lines file", write([]byte(`{"id":"1","text":"ReMe local_vector_store"}` + "\n")), false},
		{"a foreign bbolt database", foreign, false},
		{"a newer store format", newerFormat, false},
		{"bad workspace metadata", badMeta, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "exp.db")
			tt.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := OpenStoreFile(path, StoreOptions{LockTimeout: 100 * time.Millisecond})
			if tt.workspace {
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.Workspace("default", NewLocalEmbedder(8))
				f.Close()
			} else if err == nil {
				f.Close()
			}
			var ce *CorruptStoreError
			if !errors.Is(err, ErrCorruptStore) || !errors.As(err, &ce) || ce.Path != path {
				t.Fatalf("err = %v, want a *CorruptStoreError for %s", err, path)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("the file was modified (%d bytes, now %d)", len(before), len(after))
			}
			t.Log(ce)
		})
	}
}

func TestStoreDamagedPagesNeverPanic(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "exp.db")
	f, err := OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := mustWorkspace(t, f, "default", NewLocalEmbedder(16))
	for i := range 20 {
		if err := w.Add(ctx, []Experience{{Text: fmt.Sprintf("lesson %d about routers and flights", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 8 {
		damaged := bytes.Clone(clean)
		// Keep the two meta pages, scramble the rest.
		for i := 2 * page; i < len(damaged); i++ {
			if rng.UintN(4) == 0 || trial%2 == 0 {
				damaged[i] = byte(rng.UintN(256))
			}
		}
		if err := os.WriteFile(path, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, verify := range []bool{false, true} {
			err := func() error {
				f, err := OpenStoreFile(path, StoreOptions{Verify: verify})
				if err != nil {
					return err
				}
				defer f.Close()
				w, err := f.Workspace("default", NewLocalEmbedder(16))
				if err != nil {
					return err
				}
				_, err = w.Retrieve(ctx, "routers", 3)
				return err
			}()
			if !errors.Is(err, ErrCorruptStore) {
				t.Errorf("trial %d, verify %v: err = %v, want ErrCorruptStore", trial, verify, err)
			} else if testing.Verbose() {
				t.Logf("trial %d, verify %v: %v", trial, verify, err)
			}
		}
	}
}

func TestStoreDamagedRecordIsCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "exp.db")
	f, err := OpenStoreFile(path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	emb := NewLocalEmbedder(16)
	if err := mustWorkspace(t, f, "default", emb).Add(ctx, []Experience{
		{ID: "good", Text: "flights and baggage"}, {ID: "bad", Text: "routers need a restart MARKER"},
	}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(raw, []byte(`{"id":"bad"`))
	if at < 0 || bytes.Count(raw, []byte(`{"id":"bad"`)) != 1 {
		t.Fatal("record not found once in the file")
	}
	raw[at] = '#' // the page stays valid, the record does not
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = OpenStoreFile(path, StoreOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := mustWorkspace(t, f, "default", emb)
	if got, err := w.Retrieve(ctx, "flights baggage", 1); err != nil || len(got) != 1 || got[0].ID != "good" {
		t.Fatalf("the intact record: %+v, %v", got, err)
	}
	_, err = w.Retrieve(ctx, "routers restart", 1)
	var ce *CorruptStoreError
	if !errors.As(err, &ce) || ce.Workspace != "default" || ce.Key != "bad" {
		t.Fatalf("err = %v, want a *CorruptStoreError for record \"bad\"", err)
	}
}

func TestStoreSecondOpenIsLocked(t *testing.T) {
	f, path := openTestStore(t, StoreOptions{})
	start := time.Now()
	_, err := OpenStoreFile(path, StoreOptions{LockTimeout: 150 * time.Millisecond})
	if !errors.Is(err, ErrStoreLocked) {
		t.Fatalf("second open: %v, want ErrStoreLocked", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %s for a 150ms lock timeout", d)
	}
	if _, err := OpenStoreFile(path, StoreOptions{LockTimeout: -1}); !errors.Is(err, ErrStoreLocked) {
		t.Fatalf("negative timeout: %v, want ErrStoreLocked", err)
	}
	f.Close()
	g, err := OpenStoreFile(path, StoreOptions{LockTimeout: -1})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	g.Close()
}

// TestStoreLockedByAnotherProcess opens the file here and again in a
// child process (this test binary, re-run): the child must fail with
// ErrStoreLocked after its lock timeout.
func TestStoreLockedByAnotherProcess(t *testing.T) {
	if path := os.Getenv("EXPERIENCE_STORE_LOCK_CHILD"); path != "" {
		_, err := OpenStoreFile(path, StoreOptions{LockTimeout: 200 * time.Millisecond})
		if errors.Is(err, ErrStoreLocked) {
			os.Exit(3)
		}
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, path := openTestStore(t, StoreOptions{})
	cmd := exec.Command(exe, "-test.run=^TestStoreLockedByAnotherProcess$")
	cmd.Env = append(os.Environ(), "EXPERIENCE_STORE_LOCK_CHILD="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("child: %v\n%s", err, out)
	}
	f.Close()
}

func TestStoreClosed(t *testing.T) {
	ctx := context.Background()
	f, _ := openTestStore(t, StoreOptions{})
	w := mustWorkspace(t, f, "default", NewLocalEmbedder(8))
	if err := w.Add(ctx, routerLessons); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Add(ctx, routerLessons); !errors.Is(err, ErrStoreClosed) {
		t.Errorf("Add: %v", err)
	}
	if _, err := w.Retrieve(ctx, "router", 1); !errors.Is(err, ErrStoreClosed) {
		t.Errorf("Retrieve: %v", err)
	}
	if _, err := f.Workspace("x", NewLocalEmbedder(8)); !errors.Is(err, ErrStoreClosed) {
		t.Errorf("Workspace: %v", err)
	}
	if _, err := f.Workspaces(); !errors.Is(err, ErrStoreClosed) {
		t.Errorf("Workspaces: %v", err)
	}
}

func TestStoreConcurrentWritersAndReaders(t *testing.T) {
	ctx := context.Background()
	f, path := openTestStore(t, StoreOptions{})
	emb := NewLocalEmbedder(64)
	w := mustWorkspace(t, f, "default", emb)
	const writers, perWriter = 16, 4
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter+writers)
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				e := Experience{Text: fmt.Sprintf("writer %d lesson %d about task %d", g, i, g*perWriter+i)}
				if i%2 == 1 {
					e.ID = fmt.Sprintf("w%02d-%d", g, i)
				}
				if err := w.Add(ctx, []Experience{e}); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range perWriter {
				if _, err := w.Retrieve(ctx, fmt.Sprintf("lesson about task %d", g), 3); err != nil {
					errs <- err
				}
				if _, err := f.Workspaces(); err != nil {
					errs <- err
				}
			}
		})
	}
	// Another workspace of the same file, written at the same time.
	wg.Go(func() {
		other := mustWorkspace(t, f, "other", emb)
		for i := range perWriter {
			if err := other.Add(ctx, []Experience{{Text: fmt.Sprint("other ", i)}}); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if w.Len() != writers*perWriter {
		t.Fatalf("Len = %d, want %d", w.Len(), writers*perWriter)
	}
	f.Close()
	g, err := OpenStoreFile(path, StoreOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	w2 := mustWorkspace(t, g, "default", emb)
	if w2.Len() != writers*perWriter {
		t.Fatalf("after reopen Len = %d, want %d", w2.Len(), writers*perWriter)
	}
	got, err := w2.Retrieve(ctx, "writer 3 lesson 2 about task 14", 1)
	if err != nil || len(got) != 1 || got[0].Text != "writer 3 lesson 2 about task 14" {
		t.Fatalf("Retrieve after reopen: %+v, %v", got, err)
	}
}

func TestStoreTopKMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, dim = 200, 16
	vecs := make([]float32, 0, n*dim)
	ids := make([]string, n)
	acc := make([]float64, dim)
	for i := range n {
		for j := range acc {
			acc[j] = rng.NormFloat64()
		}
		if i%7 == 0 && i > 0 { // exact ties with an earlier row
			copy(vecs[len(vecs):len(vecs)+dim], vecs[(i-1)*dim:i*dim])
			vecs = vecs[:len(vecs)+dim]
		} else {
			vecs = append(vecs, normalized(acc)...)
		}
		ids[i] = fmt.Sprintf("%04d", rng.UintN(10000))
	}
	for j := range acc {
		acc[j] = rng.NormFloat64()
	}
	q := normalized(acc)
	all := make([]scored, n)
	for i := range n {
		var s float32
		for j := range dim {
			s += vecs[i*dim+j] * q[j]
		}
		all[i] = scored{ids[i], s}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.better(b):
			return -1
		case b.better(a):
			return 1
		}
		return 0
	})
	for _, k := range []int{1, 3, 10, n, n + 5} {
		got := topK(vecs, ids, dim, q, k)
		want := all[:min(k, n)]
		if len(got) != len(want) {
			t.Fatalf("k=%d: %d results", k, len(got))
		}
		for i := range got {
			if got[i].id != want[i].id || abs32(got[i].score-want[i].score) > 1e-5 {
				t.Fatalf("k=%d, rank %d: got %+v, want %+v", k, i, got[i], want[i])
			}
		}
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
