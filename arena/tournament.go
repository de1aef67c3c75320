package arena

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/org/agentevolver/llm"
)

// Defaults of Tournament's zero fields.
const (
	// DefaultMatches is the number of matches (the reference's 200).
	DefaultMatches = 200
	// DefaultWorkers is the number of matches played at once.
	DefaultWorkers = 4
)

// Entrant is a model taking part in a tournament.
type Entrant struct {
	// Name identifies the model on the leaderboard.
	Name string
	// Model plays the seats given to the entrant; it must be safe for
	// concurrent use (it may hold several seats and several matches).
	Model llm.ChatModel
}

// Tournament plays matches of one game between entrants and records them
// on a leaderboard. The zero value is not usable: set ID, Game and
// Entrants.
type Tournament struct {
	// ID names the tournament on the leaderboard. Running a tournament
	// whose ID is there already resumes it: recorded matches are skipped,
	// so an interrupted run loses nothing and counts nothing twice. The
	// ID is bound to the game, seed and entrant names; Matches may grow
	// (the plan of the first n matches never depends on the total).
	ID string
	// Game is the game played.
	Game Game
	// Entrants are the models; at least one.
	Entrants []Entrant
	// Matches is the number of matches; 0 means DefaultMatches.
	Matches int
	// Seed makes the tournament reproducible: seat assignment and every
	// match seed derive from it.
	Seed uint64
	// Workers is how many matches are played at once; 0 means
	// DefaultWorkers.
	Workers int
	// LogDir, when set, receives one JSON lines log per match,
	// <LogDir>/<ID>/match_<index>.jsonl (ID with any byte other than
	// letters, digits, '.', '-' and '_' replaced by '_'), written beside
	// and renamed into place when the match ends.
	LogDir string
	// Progress, when set, is called after each recorded match, from one
	// goroutine at a time.
	Progress func(Progress)
	// Logger receives progress records; nil discards them.
	Logger *slog.Logger
}

// Progress reports a tournament's advance.
type Progress struct {
	// Done counts the matches recorded (this run and earlier ones), of
	// Total; Failed counts those recorded as failed.
	Done, Total, Failed int
	// Last is the match just recorded.
	Last MatchRecord
}

// Summary is what a tournament run did.
type Summary struct {
	// Played counts the matches played and recorded by this run; Skipped
	// those found already recorded; Failed those recorded as failed (of
	// Played).
	Played, Skipped, Failed int
}

// Assignment is one planned match: its seed and the entrant of each seat.
type Assignment struct {
	// Index is the match's index.
	Index int
	// Seed is the match seed.
	Seed uint64
	// Seats holds an index into Tournament.Entrants per seat.
	Seats []int
}

func (t Tournament) check() error {
	if err := checkName("tournament id", t.ID); err != nil {
		return err
	}
	if t.Game == nil {
		return fmt.Errorf("%w: no game", ErrConfig)
	}
	if t.Game.Seats() < 1 || t.Game.Seats() > MaxSeats {
		return fmt.Errorf("%w: game has %d seats", ErrConfig, t.Game.Seats())
	}
	if len(t.Entrants) == 0 {
		return fmt.Errorf("%w: no entrants", ErrConfig)
	}
	seen := map[string]bool{}
	for i, e := range t.Entrants {
		if err := checkName("entrant name", e.Name); err != nil {
			return err
		}
		if seen[e.Name] {
			return fmt.Errorf("%w: entrant %q twice", ErrConfig, e.Name)
		}
		seen[e.Name] = true
		if e.Model == nil {
			return fmt.Errorf("%w: entrant %d (%q) has no model", ErrConfig, i, e.Name)
		}
	}
	if t.Matches < 0 || t.Workers < 0 {
		return fmt.Errorf("%w: %d matches, %d workers", ErrConfig, t.Matches, t.Workers)
	}
	return nil
}

// Plan returns the seat assignment of every match. It is a pure function
// of Seed, the number of entrants, the game's seats and Matches, and the
// plan of n matches is a prefix of the plan of more.
//
// As in the reference, entrants are drawn with weights 1/(seats held so
// far + 1), so that seat counts stay balanced: with at least as many
// entrants as seats, seats-many distinct entrants are drawn without
// replacement; with fewer, every entrant gets a seat and the rest are
// drawn with replacement; then the seats are shuffled. Unlike the
// reference, the counts are those of the plan itself, not of the
// leaderboard at the time a match starts, which made the assignment
// depend on how earlier matches interleaved (§1.9 item 10).
func (t Tournament) Plan() ([]Assignment, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	n := t.matches()
	seats, m := t.Game.Seats(), len(t.Entrants)
	counts := make([]int, m)
	out := make([]Assignment, n)
	for i := range n {
		rng := rand.New(rand.NewPCG(t.Seed, 0x6172656e61000000|uint64(i))) // "arena" + index
		seed := rng.Uint64()                                               // = MatchSeed(t.Seed, i)
		weight := func(e int) float64 { return 1 / float64(counts[e]+1) }
		var pick []int
		if m >= seats {
			avail := make([]int, m)
			for e := range avail {
				avail[e] = e
			}
			for range seats {
				k := draw(rng, avail, weight)
				pick = append(pick, avail[k])
				avail = append(avail[:k], avail[k+1:]...)
			}
		} else {
			all := make([]int, m)
			for e := range all {
				all[e] = e
				pick = append(pick, e)
			}
			for range seats - m {
				pick = append(pick, all[draw(rng, all, weight)])
			}
		}
		rng.Shuffle(len(pick), func(a, b int) { pick[a], pick[b] = pick[b], pick[a] })
		for _, e := range pick {
			counts[e]++
		}
		out[i] = Assignment{Index: i, Seed: seed, Seats: pick}
	}
	return out, nil
}

// draw picks an index into items with probability proportional to weight.
func draw(rng *rand.Rand, items []int, weight func(int) float64) int {
	var total float64
	for _, it := range items {
		total += weight(it)
	}
	x := rng.Float64() * total
	for k, it := range items {
		x -= weight(it)
		if x < 0 {
			return k
		}
	}
	return len(items) - 1
}

func (t Tournament) matches() int {
	if t.Matches == 0 {
		return DefaultMatches
	}
	return t.Matches
}

// isAbort reports an error that stops the tournament without recording
// the match.
func isAbort(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, llm.ErrUnavailable)
}

// Run plays the tournament's unrecorded matches and records each on lb.
//
// Matches are played Workers at a time but recorded strictly in index
// order (a match that ends early waits for the ones before it), so the
// ratings after a run are the same whatever the number of workers and
// however often the run was interrupted and resumed. A match whose Play
// fails with a cancellation or llm.ErrUnavailable stops the run: the
// matches before it are recorded, it and the later ones are played again
// by the next run. Any other error is recorded as a failed match, which
// changes no rating. Run returns ctx's error when cancelled.
func (t Tournament) Run(ctx context.Context, lb *Leaderboard) (Summary, error) {
	plan, err := t.Plan()
	if err != nil {
		return Summary{}, err
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	names := make([]string, len(t.Entrants))
	for i, e := range t.Entrants {
		names[i] = e.Name
	}
	if err := lb.bindTournament(t.ID, tournamentRecord{Game: t.Game.Name(), Seats: t.Game.Seats(), Seed: t.Seed, Entrants: names}); err != nil {
		return Summary{}, err
	}
	for _, n := range names {
		if err := lb.AddModel(n); err != nil {
			return Summary{}, err
		}
	}
	done, err := lb.Matches(t.ID)
	if err != nil {
		return Summary{}, err
	}
	recorded := map[int]bool{}
	var sum Summary
	failedBefore := 0
	for _, r := range done {
		recorded[r.Index] = true
		if r.Failed != "" {
			failedBefore++
		}
	}
	var todo []Assignment
	for _, a := range plan {
		if recorded[a.Index] {
			sum.Skipped++
		} else {
			todo = append(todo, a)
		}
	}
	if len(todo) == 0 {
		return sum, nil
	}
	if t.LogDir != "" {
		if err := os.MkdirAll(filepath.Join(t.LogDir, safeDirName(t.ID)), 0o755); err != nil {
			return sum, fmt.Errorf("arena: log dir: %w", err)
		}
	}
	workers := t.Workers
	if workers == 0 {
		workers = DefaultWorkers
	}
	workers = min(workers, len(todo))

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		pos int
		rec MatchRecord
		err error // abort error
	}
	jobs := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for pos := range jobs {
				rec, err := t.play(runCtx, todo[pos], names)
				select {
				case results <- result{pos, rec, err}:
				case <-runCtx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for pos := range todo {
			select {
			case jobs <- pos:
			case <-runCtx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	pending := map[int]result{}
	next := 0
	var runErr error
	total := len(plan)
	for r := range results {
		if runErr != nil {
			continue
		}
		pending[r.pos] = r
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if p.err != nil {
				runErr = p.err
				cancel()
				break
			}
			if _, err := lb.Record(p.rec); err != nil {
				runErr = err
				cancel()
				break
			}
			sum.Played++
			if p.rec.Failed != "" {
				sum.Failed++
				logger.Warn("arena: match failed", "tournament", t.ID, "index", p.rec.Index, "err", p.rec.Failed)
			}
			next++
			logger.Debug("arena: match recorded", "tournament", t.ID, "index", p.rec.Index)
			if t.Progress != nil {
				t.Progress(Progress{Done: sum.Skipped + sum.Played, Total: total, Failed: failedBefore + sum.Failed, Last: p.rec})
			}
		}
	}
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	if runErr != nil {
		return sum, fmt.Errorf("arena: tournament %q stopped after %d of %d matches: %w", t.ID, sum.Skipped+sum.Played, total, runErr)
	}
	return sum, nil
}

// play plays one match, writing its log; the error is an abort error only.
func (t Tournament) play(ctx context.Context, a Assignment, names []string) (MatchRecord, error) {
	rec := MatchRecord{Tournament: t.ID, Index: a.Index, Game: t.Game.Name(), Seed: a.Seed}
	m := Match{Index: a.Index, Seed: a.Seed}
	for _, e := range a.Seats {
		m.Models = append(m.Models, t.Entrants[e].Model)
		m.Names = append(m.Names, names[e])
	}
	var f *os.File
	var logPath string
	if t.LogDir != "" {
		logPath = filepath.Join(t.LogDir, safeDirName(t.ID), fmt.Sprintf("match_%06d.jsonl", a.Index))
		var err error
		if f, err = os.Create(logPath + ".tmp"); err != nil {
			return rec, fmt.Errorf("arena: match log: %w", err)
		}
		m.Log = f
	}
	seats, err := t.safePlay(ctx, m)
	if f != nil {
		cerr := f.Close()
		if err == nil && cerr != nil {
			err = fmt.Errorf("arena: match log: %w", cerr)
		}
		if err == nil || !isAbort(err) {
			if rerr := os.Rename(logPath+".tmp", logPath); rerr != nil && err == nil {
				err = fmt.Errorf("arena: match log: %w", rerr)
			}
		} else {
			_ = os.Remove(logPath + ".tmp")
		}
	}
	if err == nil && len(seats) != len(m.Models) {
		err = fmt.Errorf("game %s returned %d seat results for %d seats", t.Game.Name(), len(seats), len(m.Models))
	}
	if err != nil {
		if isAbort(err) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return rec, ctx.Err()
			}
			return rec, err
		}
		rec.Failed = err.Error()
		if len(rec.Failed) > 4096 {
			rec.Failed = rec.Failed[:4096]
		}
		return rec, nil
	}
	for i, s := range seats {
		rec.Seats = append(rec.Seats, SeatRecord{Model: m.Names[i], Role: s.Role, Score: s.Score})
	}
	if err := rec.validate(); err != nil {
		rec.Seats, rec.Failed = nil, "invalid result: "+err.Error()
	}
	return rec, nil
}

// safePlay turns a panicking game into a failed match.
func (t Tournament) safePlay(ctx context.Context, m Match) (seats []SeatResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			seats, err = nil, fmt.Errorf("game %s panicked: %v", t.Game.Name(), r)
		}
	}()
	return t.Game.Play(ctx, m)
}

// safeDirName makes a tournament ID usable as one path element.
func safeDirName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	s := string(b)
	if s == "." || s == ".." {
		s = "_" + s
	}
	return s
}
