package arena

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func openTemp(t *testing.T, opts Options) (*Leaderboard, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "board.db")
	lb, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lb.Close() })
	return lb, path
}

func TestLeaderboardRecordAndReopen(t *testing.T) {
	lb, path := openTemp(t, Options{})
	if i, k := lb.Params(); i != 1500 || k != 32 {
		t.Fatalf("params %v %v", i, k)
	}
	rec := MatchRecord{Tournament: "t", Index: 0, Game: "avalon", Seats: []SeatRecord{
		{"A", "Merlin", 1}, {"B", "Servant", 1}, {"C", "Servant", 1}, {"D", "Assassin", 0}, {"A", "Minion", 0},
	}}
	added, err := lb.Record(rec)
	if err != nil || !added {
		t.Fatalf("Record: %v %v", added, err)
	}
	again, err := lb.Record(rec)
	if err != nil || again {
		t.Fatalf("second Record: %v %v", again, err)
	}
	before, err := lb.Standings()
	if err != nil {
		t.Fatal(err)
	}
	// Hand-computed, 5 seats so 32/4 = 8 per pair, ±4 at E = 0.5; ties
	// not rated. A: Merlin beats D (+4), Minion loses to B and C (−8): −4.
	// B: beats D and A's Minion: +8; C likewise; D loses to A's Merlin, B
	// and C: −12.
	want := map[string]float64{"A": 1496, "B": 1508, "C": 1508, "D": 1488}
	for _, s := range before {
		if s.Elo != want[s.Name] {
			t.Errorf("%s: Elo %v, want %v", s.Name, s.Elo, want[s.Name])
		}
	}
	a, ok, err := lb.Model("A")
	if err != nil || !ok || a.Games != 2 || a.Matches != 1 || a.Wins != 1 || a.Roles["Minion"].Games != 1 || a.Roles["Merlin"].Wins != 1 {
		t.Fatalf("A = %+v, %v, %v", a, ok, err)
	}
	if err := lb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.Standings(); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	lb2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lb2.Close()
	after, err := lb2.Standings()
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d models after reopening, %d before", len(after), len(before))
	}
	for i := range after {
		if after[i].Name != before[i].Name || after[i].Elo != before[i].Elo || after[i].Games != before[i].Games {
			t.Fatalf("reopened standing %+v, before %+v", after[i], before[i])
		}
	}
	ms, err := lb2.Matches("t")
	if err != nil || len(ms) != 1 || ms[0].EloDelta["D"] != -12 {
		t.Fatalf("matches %+v %v", ms, err)
	}
}

func TestLeaderboardRankTies(t *testing.T) {
	s := []Standing{
		{ModelStats: ModelStats{Name: "b", Elo: 1500, Games: 2, Wins: 1}},
		{ModelStats: ModelStats{Name: "a", Elo: 1500, Games: 2, Wins: 1}},
		{ModelStats: ModelStats{Name: "c", Elo: 1500, Games: 4, Wins: 2}},
		{ModelStats: ModelStats{Name: "d", Elo: 1500, Games: 2, Wins: 2}},
		{ModelStats: ModelStats{Name: "e", Elo: 1600}},
	}
	Rank(s)
	var got []string
	for i, x := range s {
		got = append(got, x.Name)
		if x.Rank != i+1 {
			t.Errorf("%s rank %d", x.Name, x.Rank)
		}
	}
	// Elo, then win rate, then games, then name.
	if want := []string{"e", "d", "c", "a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestLeaderboardParamsFixed(t *testing.T) {
	lb, path := openTemp(t, Options{InitialElo: 1000, K: 16})
	lb.Close()
	if _, err := Open(path, Options{K: 32}); !errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("other K: %v", err)
	}
	lb2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lb2.Close()
	if i, k := lb2.Params(); i != 1000 || k != 16 {
		t.Fatalf("params %v %v", i, k)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x"), Options{K: -1}); !errors.Is(err, ErrConfig) {
		t.Fatalf("negative K: %v", err)
	}
}

func TestLeaderboardRejects(t *testing.T) {
	lb, _ := openTemp(t, Options{})
	bad := []MatchRecord{
		{Tournament: "", Seats: []SeatRecord{{"A", "r", 1}}},
		{Tournament: "t", Index: -1, Seats: []SeatRecord{{"A", "r", 1}}},
		{Tournament: "t"},
		{Tournament: "t", Seats: []SeatRecord{{"", "r", 1}}},
		{Tournament: "t", Seats: []SeatRecord{{"A", "r", 2}}},
		{Tournament: "t\x00x", Seats: []SeatRecord{{"A", "r", 1}}},
	}
	for _, r := range bad {
		if _, err := lb.Record(r); !errors.Is(err, ErrConfig) {
			t.Errorf("Record(%+v) = %v", r, err)
		}
	}
	// A failed match is recorded but changes nothing.
	if ok, err := lb.Record(MatchRecord{Tournament: "t", Failed: "boom"}); !ok || err != nil {
		t.Fatalf("failed match: %v %v", ok, err)
	}
	if s, _ := lb.Standings(); len(s) != 0 {
		t.Fatalf("failed match added models: %+v", s)
	}
}

func TestLeaderboardCorruptAndLocked(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte("this is not a database, just some text that is long enough"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(garbage, Options{LockTimeout: -1}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("garbage: %v", err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := bolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err })
	db.Close()
	if _, err := Open(foreign, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("foreign: %v", err)
	}
	// A damaged model record is reported, not trusted.
	lb, path := openTemp(t, Options{})
	if _, err := lb.Record(MatchRecord{Tournament: "t", Seats: []SeatRecord{{"A", "r", 1}, {"B", "r", 0}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{LockTimeout: -1}); !errors.Is(err, ErrLocked) {
		t.Errorf("second open: %v", err)
	}
	_ = lb.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(rootBucket).Bucket(modelsBucket).Put([]byte("A"), []byte(`{"name":"A","elo":"NaN"`))
	})
	if _, err := lb.Standings(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged model record: %v", err)
	}
}
