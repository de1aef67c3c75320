package arena

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver/llm"
)

func TestPlanDeterministicAndBalanced(t *testing.T) {
	for _, tc := range []struct{ entrants, seats int }{{4, 2}, {2, 5}, {6, 5}, {1, 3}, {3, 3}} {
		t.Run(fmt.Sprintf("%d-in-%d", tc.entrants, tc.seats), func(t *testing.T) {
			es := make([]Entrant, tc.entrants)
			for i := range es {
				es[i] = Entrant{Name: fmt.Sprint("m", i), Model: fixed("0")}
			}
			tour := Tournament{ID: "p", Game: duel{seats: tc.seats}, Entrants: es, Matches: 300, Seed: 9}
			a, err := tour.Plan()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := tour.Plan()
			short := tour
			short.Matches = 50
			c, _ := short.Plan()
			counts := make([]int, tc.entrants)
			for i := range a {
				if a[i].Seed != b[i].Seed || !slices.Equal(a[i].Seats, b[i].Seats) {
					t.Fatalf("plan %d differs between calls", i)
				}
				if i < len(c) && (a[i].Seed != c[i].Seed || !slices.Equal(a[i].Seats, c[i].Seats)) {
					t.Fatalf("the 50-match plan is not a prefix at %d", i)
				}
				if len(a[i].Seats) != tc.seats {
					t.Fatalf("match %d has %d seats", i, len(a[i].Seats))
				}
				distinct := map[int]bool{}
				for _, e := range a[i].Seats {
					counts[e]++
					distinct[e] = true
				}
				if want := min(tc.entrants, tc.seats); len(distinct) != want {
					t.Fatalf("match %d seats %v: %d distinct entrants, want %d", i, a[i].Seats, len(distinct), want)
				}
			}
			lo, hi := slices.Min(counts), slices.Max(counts)
			if float64(lo) < 0.9*float64(hi) {
				t.Fatalf("seat counts %v unbalanced", counts)
			}
		})
	}
}

func newTour(id string, workers int) Tournament {
	return Tournament{ID: id, Game: duel{seats: 3}, Entrants: entrants(), Matches: 40, Seed: 3, Workers: workers}
}

func standingsOf(t *testing.T, lb *Leaderboard) []Standing {
	t.Helper()
	s, err := lb.Standings()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sameStandings(t *testing.T, a, b []Standing) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d models", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Elo != b[i].Elo || a[i].Games != b[i].Games || a[i].Wins != b[i].Wins || a[i].Matches != b[i].Matches {
			t.Fatalf("standing %d: %+v vs %+v", i, a[i].ModelStats, b[i].ModelStats)
		}
	}
}

func TestTournamentRunWorkersIndependent(t *testing.T) {
	var ref []Standing
	for _, w := range []int{1, 3, 8} {
		lb, _ := openTemp(t, Options{})
		tour := newTour("w", w)
		var progress int
		tour.Progress = func(p Progress) {
			progress++
			if p.Done != progress || p.Total != 40 || p.Last.Index != progress-1 {
				t.Errorf("progress %+v after %d", p, progress)
			}
		}
		sum, err := tour.Run(context.Background(), lb)
		if err != nil || sum.Played != 40 || sum.Skipped != 0 || sum.Failed != 0 {
			t.Fatalf("workers %d: %+v %v", w, sum, err)
		}
		s := standingsOf(t, lb)
		if s[0].Name != "alpha" || s[len(s)-1].Name != "delta" {
			t.Fatalf("standings %+v", s)
		}
		var seats int
		for _, x := range s {
			seats += x.Games
		}
		if seats != 40*3 {
			t.Fatalf("%d seats counted, want 120", seats)
		}
		if ref == nil {
			ref = s
		} else {
			sameStandings(t, ref, s)
		}
		// Running again records nothing.
		sum, err = tour.Run(context.Background(), lb)
		if err != nil || sum.Played != 0 || sum.Skipped != 40 {
			t.Fatalf("rerun: %+v %v", sum, err)
		}
		sameStandings(t, ref, standingsOf(t, lb))
	}
}

func TestTournamentResumeAfterCancel(t *testing.T) {
	full, _ := openTemp(t, Options{})
	if _, err := newTour("r", 2).Run(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	for _, stopAt := range []int{0, 7, 23} {
		lb, _ := openTemp(t, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		tour := newTour("r", 3)
		tour.Game = duel{seats: 3, hook: func(m Match) error {
			if m.Index == stopAt {
				cancel()
				return ctx.Err()
			}
			return nil
		}}
		sum, err := tour.Run(ctx, lb)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stop at %d: err %v", stopAt, err)
		}
		done, _ := lb.Matches("r")
		if len(done) != sum.Played || len(done) > stopAt {
			t.Fatalf("stop at %d: %d recorded, summary %+v", stopAt, len(done), sum)
		}
		for i, r := range done {
			if r.Index != i {
				t.Fatalf("recorded matches are not a prefix: %d at %d", r.Index, i)
			}
		}
		sum2, err := newTour("r", 3).Run(context.Background(), lb)
		if err != nil || sum2.Skipped != len(done) || sum2.Played != 40-len(done) {
			t.Fatalf("resume: %+v %v", sum2, err)
		}
		sameStandings(t, standingsOf(t, full), standingsOf(t, lb))
	}
}

func TestTournamentUnavailableStopsFailedRecorded(t *testing.T) {
	lb, _ := openTemp(t, Options{})
	var calls atomic.Int32
	tour := newTour("u", 2)
	tour.Game = duel{seats: 3, hook: func(m Match) error {
		switch m.Index {
		case 2:
			return errors.New("the game broke") // recorded as failed
		case 5:
			if calls.Add(1) == 1 {
				return fmt.Errorf("model: %w", llm.ErrUnavailable) // stops the run
			}
		case 6:
			panic("bad game")
		}
		return nil
	}}
	sum, err := tour.Run(context.Background(), lb)
	if !errors.Is(err, llm.ErrUnavailable) || sum.Played != 5 || sum.Failed != 1 {
		t.Fatalf("first run: %+v %v", sum, err)
	}
	sum, err = tour.Run(context.Background(), lb)
	if err != nil || sum.Skipped != 5 || sum.Played != 35 || sum.Failed != 1 {
		t.Fatalf("second run: %+v %v", sum, err)
	}
	ms, _ := lb.Matches("u")
	if ms[2].Failed == "" || ms[6].Failed == "" || ms[5].Failed != "" || len(ms) != 40 {
		t.Fatalf("records: %d, failed flags %q %q %q", len(ms), ms[2].Failed, ms[5].Failed, ms[6].Failed)
	}
}

func TestTournamentMismatch(t *testing.T) {
	lb, _ := openTemp(t, Options{})
	tour := newTour("m", 1)
	tour.Matches = 3
	if _, err := tour.Run(context.Background(), lb); err != nil {
		t.Fatal(err)
	}
	other := tour
	other.Seed = 4
	if _, err := other.Run(context.Background(), lb); !errors.Is(err, ErrTournamentMismatch) {
		t.Fatalf("other seed: %v", err)
	}
	more := tour
	more.Matches = 5
	if sum, err := more.Run(context.Background(), lb); err != nil || sum.Played != 2 || sum.Skipped != 3 {
		t.Fatalf("extended: %+v %v", sum, err)
	}
	for _, bad := range []Tournament{
		{Game: duel{seats: 2}, Entrants: entrants()},
		{ID: "x", Entrants: entrants()},
		{ID: "x", Game: duel{seats: 2}},
		{ID: "x", Game: duel{seats: 2}, Entrants: []Entrant{{"a", fixed("1")}, {"a", fixed("1")}}},
		{ID: "x", Game: duel{seats: 2}, Entrants: []Entrant{{"a", nil}}},
	} {
		if _, err := bad.Run(context.Background(), lb); !errors.Is(err, ErrConfig) {
			t.Errorf("Run(%+v) = %v", bad, err)
		}
	}
}

func TestSafeDirName(t *testing.T) {
	for in, want := range map[string]string{"run-1": "run-1", "../etc": ".._etc", "..": "_..", "a/b c": "a_b_c", "ü": "__"} {
		if got := safeDirName(in); got != want {
			t.Errorf("safeDirName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTournamentLogs(t *testing.T) {
	lb, _ := openTemp(t, Options{})
	tour := newTour("logs", 2)
	tour.Matches = 4
	tour.LogDir = t.TempDir()
	if _, err := tour.Run(context.Background(), lb); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(tour.LogDir, "logs", "*"))
	if len(files) != 4 || filepath.Base(files[0]) != "match_000000.jsonl" {
		t.Fatalf("log files %v", files)
	}
}

// TestTournamentCrashResume kills a process in the middle of a tournament
// (os.Exit while a match is being played, the leaderboard open), then
// resumes in this process: no recorded match is lost or counted twice, and
// the final ratings equal an uninterrupted run's.
func TestTournamentCrashResume(t *testing.T) {
	if os.Getenv("ARENA_CRASH_HELPER") != "" {
		return
	}
	full, _ := openTemp(t, Options{})
	if _, err := newTour("crash", 1).Run(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{3, 17} {
		path := filepath.Join(t.TempDir(), "crash.db")
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
		cmd.Env = append(os.Environ(), "ARENA_CRASH_HELPER=1", "ARENA_CRASH_DB="+path, "ARENA_CRASH_AT="+strconv.Itoa(at))
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		lb, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		done, err := lb.Matches("crash")
		// Matches are recorded in order while later ones are played, so
		// at most the matches before the crashing one survive.
		t.Logf("crash at match %d: %d matches had been recorded", at, len(done))
		if err != nil || len(done) > at {
			t.Fatalf("crash at %d: %d matches survived (%v)", at, len(done), err)
		}
		for i, r := range done {
			if r.Index != i {
				t.Fatalf("recorded matches are not a prefix: %d at %d", r.Index, i)
			}
		}
		sum, err := newTour("crash", 3).Run(context.Background(), lb)
		if err != nil || sum.Skipped != len(done) || sum.Skipped+sum.Played != 40 {
			t.Fatalf("resume: %+v %v", sum, err)
		}
		sameStandings(t, standingsOf(t, full), standingsOf(t, lb))
		lb.Close()
	}
}

// TestCrashHelper is the process TestTournamentCrashResume kills.
func TestCrashHelper(t *testing.T) {
	path := os.Getenv("ARENA_CRASH_DB")
	if os.Getenv("ARENA_CRASH_HELPER") == "" || path == "" {
		t.Skip("helper process for TestTournamentCrashResume")
	}
	at, _ := strconv.Atoi(os.Getenv("ARENA_CRASH_AT"))
	lb, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tour := newTour("crash", 3)
	tour.Game = duel{seats: 3, hook: func(m Match) error {
		if m.Index == at {
			os.Exit(3)
		}
		return nil
	}}
	_, err = tour.Run(context.Background(), lb)
	t.Fatalf("tournament finished without crashing: %v", err)
}
