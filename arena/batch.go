package arena

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/org/agentevolver/llm"
)

// ErrNoResults reports a batch evaluation in which every match failed.
var ErrNoResults = errors.New("arena: every match failed")

// Batch is a batch evaluation (the reference's run_eval): matches of one
// game with a fixed way of seating models, aggregated per role and per
// model, with no leaderboard. The zero value is not usable: set Game and
// Seating.
type Batch struct {
	// Game is the game played.
	Game Game
	// Seating returns the model and name of every seat of a match, given
	// its index and seed. It must be safe for concurrent calls. (For
	// Avalon, avalon.RoleSeating seats models by role.)
	Seating func(index int, seed uint64) (models []llm.ChatModel, names []string, err error)
	// Matches is the number of matches; 0 means 1.
	Matches int
	// Seed makes the batch reproducible: match i is seeded from Seed and i.
	Seed uint64
	// Workers is how many matches are played at once; 0 means
	// DefaultWorkers.
	Workers int
	// LogDir, when set, receives <LogDir>/match_<index>.jsonl per match.
	LogDir string
	// Logger receives a record per failed match; nil discards them.
	Logger *slog.Logger
}

// ScoreStats summarises scores.
type ScoreStats struct {
	// Games is the number of seats counted.
	Games int `json:"games"`
	// Mean, Min and Max are over the seats' scores.
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// BatchReport is the outcome of a batch evaluation.
type BatchReport struct {
	// Matches counts the matches played; Failed those that failed.
	Matches, Failed int
	// Roles holds score statistics per role, every seat counted.
	Roles map[string]ScoreStats
	// Models holds score statistics per model name, every seat counted.
	Models map[string]ScoreStats
	// Errors holds the failed matches' errors by match index.
	Errors map[int]string
}

// MatchSeed is the seed of match index of a batch or tournament seeded
// with seed.
func MatchSeed(seed uint64, index int) uint64 {
	return rand.New(rand.NewPCG(seed, 0x6172656e61000000|uint64(index))).Uint64()
}

// Run plays the batch. A failed match (including a cancelled one) is
// counted in Failed and Errors; Run returns ctx's error when cancelled
// and ErrNoResults when every match failed.
func (b Batch) Run(ctx context.Context) (BatchReport, error) {
	if b.Game == nil || b.Seating == nil || b.Matches < 0 || b.Workers < 0 {
		return BatchReport{}, fmt.Errorf("%w: a batch needs a game, a seating and non-negative counts", ErrConfig)
	}
	n := max(b.Matches, 1)
	workers := b.Workers
	if workers == 0 {
		workers = DefaultWorkers
	}
	logger := b.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if b.LogDir != "" {
		if err := os.MkdirAll(b.LogDir, 0o755); err != nil {
			return BatchReport{}, fmt.Errorf("arena: log dir: %w", err)
		}
	}
	type outcome struct {
		names []string
		seats []SeatResult
		err   error
	}
	results := make([]outcome, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range jobs {
				names, seats, err := b.play(ctx, i)
				results[i] = outcome{names, seats, err}
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			results[i].err = ctx.Err()
			continue
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	rep := BatchReport{Matches: n, Errors: map[int]string{}}
	roles, models := map[string][]float64{}, map[string][]float64{}
	for i, o := range results {
		if o.err != nil {
			rep.Failed++
			rep.Errors[i] = o.err.Error()
			logger.Warn("arena: batch match failed", "index", i, "err", o.err)
			continue
		}
		for k, s := range o.seats {
			roles[s.Role] = append(roles[s.Role], s.Score)
			models[o.names[k]] = append(models[o.names[k]], s.Score)
		}
	}
	rep.Roles, rep.Models = summarise(roles), summarise(models)
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if rep.Failed == n {
		return rep, fmt.Errorf("%w: %d of %d", ErrNoResults, rep.Failed, n)
	}
	return rep, nil
}

func (b Batch) play(ctx context.Context, i int) ([]string, []SeatResult, error) {
	seed := MatchSeed(b.Seed, i)
	models, names, err := b.Seating(i, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("seating: %w", err)
	}
	if len(models) != b.Game.Seats() || len(names) != len(models) {
		return nil, nil, fmt.Errorf("%w: seating gave %d models and %d names for %d seats", ErrConfig, len(models), len(names), b.Game.Seats())
	}
	m := Match{Index: i, Seed: seed, Models: models, Names: names}
	var f *os.File
	if b.LogDir != "" {
		if f, err = os.Create(filepath.Join(b.LogDir, fmt.Sprintf("match_%06d.jsonl", i))); err != nil {
			return nil, nil, err
		}
		defer f.Close()
		m.Log = f
	}
	seats, err := Tournament{Game: b.Game}.safePlay(ctx, m)
	if err == nil && len(seats) != len(models) {
		err = fmt.Errorf("game %s returned %d seat results for %d seats", b.Game.Name(), len(seats), len(models))
	}
	for k := range seats {
		if err == nil && (bad(seats[k].Score) || seats[k].Score < 0 || seats[k].Score > 1) {
			err = fmt.Errorf("seat %d score %v outside [0, 1]", k, seats[k].Score)
		}
	}
	return names, seats, err
}

func summarise(m map[string][]float64) map[string]ScoreStats {
	out := make(map[string]ScoreStats, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		s := ScoreStats{Games: len(v), Min: math.Inf(1), Max: math.Inf(-1)}
		var sum float64
		for _, x := range v {
			sum += x
			s.Min = min(s.Min, x)
			s.Max = max(s.Max, x)
		}
		s.Mean = sum / float64(len(v))
		out[k] = s
	}
	return out
}
