package arena

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Bounds and defaults of the leaderboard.
const (
	// DefaultLockTimeout is how long Open waits for a file held by another
	// process.
	DefaultLockTimeout = 10 * time.Second
	// MaxRecordBytes bounds one stored record; a larger one is corrupt.
	MaxRecordBytes = 1 << 20
	// MaxNameBytes bounds model names, roles and tournament ids.
	MaxNameBytes = 256
	// MaxSeats bounds the seats of one recorded match.
	MaxSeats = 64
)

// Options configures Open. Zero values mean defaults.
type Options struct {
	// InitialElo is the rating of a model's first game; 0 means
	// DefaultInitialElo.
	InitialElo float64
	// K is the Elo K-factor per pair of seats; 0 means DefaultK.
	K float64
	// LockTimeout is how long to wait for a file another process holds;
	// 0 means DefaultLockTimeout, negative means fail at once.
	LockTimeout time.Duration
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger
}

// RoleStats counts the seats a model played in one role.
type RoleStats struct {
	// Games is the number of seats played in the role.
	Games int `json:"games"`
	// Wins is the sum of their scores.
	Wins float64 `json:"wins"`
}

// ModelStats is one model's record on the leaderboard.
type ModelStats struct {
	// Name is the entrant's name.
	Name string `json:"name"`
	// Elo is the current rating.
	Elo float64 `json:"elo"`
	// Games counts the seats the model played (a model holding two seats of
	// one match plays two games).
	Games int `json:"games"`
	// Matches counts the matches it took part in.
	Matches int `json:"matches"`
	// Wins is the sum of the seats' scores.
	Wins float64 `json:"wins"`
	// Roles holds per-role counts.
	Roles map[string]RoleStats `json:"roles,omitempty"`
}

// WinRate is Wins/Games, 0 without games.
func (m ModelStats) WinRate() float64 {
	if m.Games == 0 {
		return 0
	}
	return m.Wins / float64(m.Games)
}

// SeatRecord is one seat of a recorded match.
type SeatRecord struct {
	// Model is the entrant that held the seat.
	Model string `json:"model"`
	// Role is the seat's role.
	Role string `json:"role"`
	// Score is the seat's score in [0, 1].
	Score float64 `json:"score"`
}

// MatchRecord is a finished match as the leaderboard stores it.
type MatchRecord struct {
	// Tournament is the tournament's ID; with Index it identifies the
	// match, which is recorded once.
	Tournament string `json:"tournament"`
	// Index is the match's index in the tournament.
	Index int `json:"index"`
	// Game is the game's name.
	Game string `json:"game"`
	// Seed is the match seed.
	Seed uint64 `json:"seed"`
	// Seats holds every seat's entrant, role and score.
	Seats []SeatRecord `json:"seats"`
	// Failed, when not empty, says why the match produced no result; such
	// a match changes no rating and no count.
	Failed string `json:"failed,omitempty"`
	// EloDelta is the rating change of each model, filled in by Record.
	EloDelta map[string]float64 `json:"elo_delta,omitempty"`
}

// tournamentRecord is the configuration a tournament ID is bound to.
type tournamentRecord struct {
	Game     string   `json:"game"`
	Seats    int      `json:"seats"`
	Seed     uint64   `json:"seed"`
	Entrants []string `json:"entrants"`
}

// Layout of a leaderboard file, all under one top-level bucket so that a
// bbolt file of another program is recognised and left alone:
//
//	agentevolver.arena/
//	  format       "1"
//	  params       JSON {"initial_elo", "k"}
//	  models/      name -> JSON ModelStats
//	  tournaments/ id -> JSON {game, seats, seed, entrants}
//	  matches/     id 0x00 big-endian uint32 index -> JSON MatchRecord
var (
	rootBucket        = []byte("agentevolver.arena")
	formatKey         = []byte("format")
	formatVersion     = []byte("1")
	paramsKey         = []byte("params")
	modelsBucket      = []byte("models")
	tournamentsBucket = []byte("tournaments")
	matchesBucket     = []byte("matches")
)

type params struct {
	InitialElo float64 `json:"initial_elo"`
	K          float64 `json:"k"`
}

// Leaderboard is a persistent Elo leaderboard in an embedded bbolt file.
// Every match is recorded in one transaction together with its rating
// changes, fsynced before Record returns: a crash loses at most the match
// being recorded and never applies half of one, and a match is never
// counted twice (its key is checked in the same transaction). The Elo
// parameters are fixed when the file is created.
//
// A Leaderboard is safe for concurrent use; bbolt serialises writers. The
// file stays locked against other processes until Close.
type Leaderboard struct {
	path   string
	db     *bolt.DB
	p      params
	closed atomic.Bool
	logger *slog.Logger
}

// Open opens the leaderboard file at path, creating it if absent. A file
// that is not a leaderboard fails with ErrCorrupt; one created with other
// non-zero Options Elo parameters fails with ErrParamsMismatch (zero
// options accept the stored ones).
func Open(path string, opts Options) (*Leaderboard, error) {
	switch {
	case opts.LockTimeout == 0:
		opts.LockTimeout = DefaultLockTimeout
	case opts.LockTimeout < 0:
		opts.LockTimeout = time.Nanosecond // bbolt's 0 would wait forever
	}
	want := params{InitialElo: opts.InitialElo, K: opts.K}
	if bad(want.InitialElo) || bad(want.K) || want.K < 0 {
		return nil, fmt.Errorf("%w: Elo parameters %v, %v", ErrConfig, want.InitialElo, want.K)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	st, statErr := os.Stat(path)
	existed := statErr == nil && st.Mode().IsRegular() && st.Size() > 0
	db, err := openBolt(path, opts.LockTimeout, existed)
	if err != nil {
		return nil, err
	}
	l := &Leaderboard{path: path, db: db, logger: logger}
	if err := l.init(want); err != nil {
		_ = db.Close()
		return nil, err
	}
	return l, nil
}

func bad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }

func openBolt(path string, timeout time.Duration, existed bool) (db *bolt.DB, err error) {
	var file *os.File
	defer func() {
		if r := recover(); r != nil {
			if file != nil {
				_ = file.Close()
			}
			db, err = nil, fmt.Errorf("%w: %s: bbolt failed reading it: %v", ErrCorrupt, path, r)
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	db, err = bolt.Open(path, 0o600, &bolt.Options{
		Timeout: timeout,
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
		return nil, fmt.Errorf("%w: %s (waited %s)", ErrLocked, path, timeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	case existed && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	}
	return nil, fmt.Errorf("arena: open leaderboard %s: %w", path, err)
}

func (l *Leaderboard) init(want params) error {
	return l.db.Update(func(tx *bolt.Tx) error {
		root := tx.Bucket(rootBucket)
		if root == nil {
			var foreign []byte
			_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
				foreign = append([]byte(nil), name...)
				return errStop
			})
			if foreign != nil {
				return fmt.Errorf("%w: %s: a bbolt database of another program (bucket %.64q)", ErrCorrupt, l.path, foreign)
			}
			p := want
			if p.InitialElo == 0 {
				p.InitialElo = DefaultInitialElo
			}
			if p.K == 0 {
				p.K = DefaultK
			}
			var err error
			if root, err = tx.CreateBucket(rootBucket); err != nil {
				return err
			}
			b, _ := json.Marshal(p)
			for _, kv := range [][2][]byte{{formatKey, formatVersion}, {paramsKey, b}} {
				if err := root.Put(kv[0], kv[1]); err != nil {
					return err
				}
			}
			for _, name := range [][]byte{modelsBucket, tournamentsBucket, matchesBucket} {
				if _, err := root.CreateBucket(name); err != nil {
					return err
				}
			}
			l.p = p
			return nil
		}
		if v := root.Get(formatKey); !bytes.Equal(v, formatVersion) {
			return fmt.Errorf("%w: %s: format %.16q, this version reads %q", ErrCorrupt, l.path, v, formatVersion)
		}
		for _, name := range [][]byte{modelsBucket, tournamentsBucket, matchesBucket} {
			if root.Bucket(name) == nil {
				return fmt.Errorf("%w: %s: bucket %s missing", ErrCorrupt, l.path, name)
			}
		}
		var p params
		if err := decode(root.Get(paramsKey), &p); err != nil || bad(p.InitialElo) || bad(p.K) || p.K < 0 {
			return fmt.Errorf("%w: %s: bad Elo parameters: %v", ErrCorrupt, l.path, err)
		}
		if (want.InitialElo != 0 && want.InitialElo != p.InitialElo) || (want.K != 0 && want.K != p.K) {
			return fmt.Errorf("%w: file has initial %v and K %v, asked for %v and %v", ErrParamsMismatch, p.InitialElo, p.K, want.InitialElo, want.K)
		}
		l.p = p
		return nil
	})
}

var errStop = errors.New("stop")

// decode reads a bounded JSON record.
func decode(b []byte, v any) error {
	if b == nil {
		return errors.New("missing")
	}
	if len(b) > MaxRecordBytes {
		return fmt.Errorf("record of %d bytes over the %d limit", len(b), MaxRecordBytes)
	}
	return json.Unmarshal(b, v)
}

// Path returns the file's path.
func (l *Leaderboard) Path() string { return l.path }

// Params returns the initial rating and K-factor the file was created with.
func (l *Leaderboard) Params() (initialElo, k float64) { return l.p.InitialElo, l.p.K }

// Close releases the file.
func (l *Leaderboard) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	return l.db.Close()
}

func (l *Leaderboard) view(fn func(root *bolt.Bucket) error) error {
	if l.closed.Load() {
		return ErrClosed
	}
	return l.db.View(func(tx *bolt.Tx) error { return fn(tx.Bucket(rootBucket)) })
}

func (l *Leaderboard) update(fn func(root *bolt.Bucket) error) error {
	if l.closed.Load() {
		return ErrClosed
	}
	return l.db.Update(func(tx *bolt.Tx) error { return fn(tx.Bucket(rootBucket)) })
}

func matchKey(tournament string, index int) []byte {
	k := make([]byte, 0, len(tournament)+5)
	k = append(k, tournament...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint32(k, uint32(index))
}

func checkName(what, s string) error {
	if s == "" || len(s) > MaxNameBytes {
		return fmt.Errorf("%w: %s %.64q must be 1 to %d bytes", ErrConfig, what, s, MaxNameBytes)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return fmt.Errorf("%w: %s %.64q holds a NUL byte", ErrConfig, what, s)
		}
	}
	return nil
}

func (r *MatchRecord) validate() error {
	if err := checkName("tournament id", r.Tournament); err != nil {
		return err
	}
	if r.Index < 0 || int64(r.Index) > math.MaxUint32 {
		return fmt.Errorf("%w: match index %d", ErrConfig, r.Index)
	}
	if len(r.Seats) > MaxSeats {
		return fmt.Errorf("%w: %d seats over the %d limit", ErrConfig, len(r.Seats), MaxSeats)
	}
	if r.Failed != "" {
		return nil
	}
	if len(r.Seats) == 0 {
		return fmt.Errorf("%w: a match with no seats", ErrConfig)
	}
	for i, s := range r.Seats {
		if err := checkName("model name", s.Model); err != nil {
			return err
		}
		if len(s.Role) > MaxNameBytes {
			return fmt.Errorf("%w: role of seat %d too long", ErrConfig, i)
		}
		if bad(s.Score) || s.Score < 0 || s.Score > 1 {
			return fmt.Errorf("%w: seat %d score %v outside [0, 1]", ErrConfig, i, s.Score)
		}
	}
	return nil
}

// Record adds a finished match, its counts and its rating changes in one
// transaction. It reports false, and changes nothing, when the match
// (tournament, index) is already recorded. rec.EloDelta is filled in on
// the stored copy; the caller's is untouched.
func (l *Leaderboard) Record(rec MatchRecord) (bool, error) {
	if err := rec.validate(); err != nil {
		return false, err
	}
	rec.Seats = append([]SeatRecord(nil), rec.Seats...)
	added := false
	err := l.update(func(root *bolt.Bucket) error {
		matches, models := root.Bucket(matchesBucket), root.Bucket(modelsBucket)
		key := matchKey(rec.Tournament, rec.Index)
		if matches.Get(key) != nil {
			return nil
		}
		if rec.Failed == "" {
			stats := map[string]*ModelStats{}
			ratings := map[string]float64{}
			seats := make([]RatedSeat, len(rec.Seats))
			for i, s := range rec.Seats {
				seats[i] = RatedSeat{Model: s.Model, Score: s.Score}
				if _, ok := stats[s.Model]; ok {
					continue
				}
				m, err := l.loadModel(models, s.Model)
				if err != nil {
					return err
				}
				stats[s.Model] = m
				ratings[s.Model] = m.Elo
			}
			rec.EloDelta = EloDeltas(ratings, seats, l.p.K, l.p.InitialElo)
			for _, s := range rec.Seats {
				m := stats[s.Model]
				m.Games++
				m.Wins += s.Score
				if m.Roles == nil {
					m.Roles = map[string]RoleStats{}
				}
				rs := m.Roles[s.Role]
				rs.Games++
				rs.Wins += s.Score
				m.Roles[s.Role] = rs
			}
			for name, m := range stats {
				m.Matches++
				m.Elo += rec.EloDelta[name]
				b, err := json.Marshal(m)
				if err != nil {
					return err
				}
				if err := models.Put([]byte(name), b); err != nil {
					return err
				}
			}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if len(b) > MaxRecordBytes {
			return fmt.Errorf("%w: match record of %d bytes", ErrConfig, len(b))
		}
		if err := matches.Put(key, b); err != nil {
			return err
		}
		added = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("arena: record match %d of %q: %w", rec.Index, rec.Tournament, err)
	}
	l.logger.Debug("arena: match recorded", "tournament", rec.Tournament, "index", rec.Index, "added", added)
	return added, nil
}

func (l *Leaderboard) loadModel(models *bolt.Bucket, name string) (*ModelStats, error) {
	b := models.Get([]byte(name))
	if b == nil {
		return &ModelStats{Name: name, Elo: l.p.InitialElo}, nil
	}
	var m ModelStats
	if err := decode(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: model %.64q: %w", ErrCorrupt, l.path, name, err)
	}
	if m.Name != name || bad(m.Elo) || bad(m.Wins) || m.Games < 0 || m.Matches < 0 || len(m.Roles) > 4096 {
		return nil, fmt.Errorf("%w: %s: model %.64q has an invalid record", ErrCorrupt, l.path, name)
	}
	return &m, nil
}

// AddModel puts a model on the leaderboard with the initial rating if it
// is not there yet, so that it shows before its first match.
func (l *Leaderboard) AddModel(name string) error {
	if err := checkName("model name", name); err != nil {
		return err
	}
	return l.update(func(root *bolt.Bucket) error {
		models := root.Bucket(modelsBucket)
		if models.Get([]byte(name)) != nil {
			return nil
		}
		b, _ := json.Marshal(ModelStats{Name: name, Elo: l.p.InitialElo})
		return models.Put([]byte(name), b)
	})
}

// Model returns one model's record; ok is false when it is not on the
// leaderboard.
func (l *Leaderboard) Model(name string) (m ModelStats, ok bool, err error) {
	err = l.view(func(root *bolt.Bucket) error {
		b := root.Bucket(modelsBucket).Get([]byte(name))
		if b == nil {
			return nil
		}
		p, err := l.loadModel(root.Bucket(modelsBucket), name)
		if err != nil {
			return err
		}
		m, ok = *p, true
		return nil
	})
	return m, ok, err
}

// Standings returns every model, ranked: by Elo, higher first; ties by
// win rate, then by games played (more first), then by name (byte order).
// Rank numbers are 1-based and distinct.
func (l *Leaderboard) Standings() ([]Standing, error) {
	var out []Standing
	err := l.view(func(root *bolt.Bucket) error {
		models := root.Bucket(modelsBucket)
		return models.ForEach(func(k, _ []byte) error {
			m, err := l.loadModel(models, string(k))
			if err != nil {
				return err
			}
			out = append(out, Standing{ModelStats: *m})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	Rank(out)
	return out, nil
}

// Standing is a model's place on the leaderboard.
type Standing struct {
	// Rank is the 1-based place.
	Rank int
	ModelStats
}

// Rank sorts standings by the leaderboard's order (see
// Leaderboard.Standings) and numbers them.
func Rank(s []Standing) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Elo != b.Elo {
			return a.Elo > b.Elo
		}
		if a.WinRate() != b.WinRate() {
			return a.WinRate() > b.WinRate()
		}
		if a.Games != b.Games {
			return a.Games > b.Games
		}
		return a.Name < b.Name
	})
	for i := range s {
		s[i].Rank = i + 1
	}
}

// Matches returns the recorded matches of a tournament, by index.
func (l *Leaderboard) Matches(tournament string) ([]MatchRecord, error) {
	var out []MatchRecord
	err := l.view(func(root *bolt.Bucket) error {
		prefix := append([]byte(tournament), 0)
		c := root.Bucket(matchesBucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(k) != len(prefix)+4 {
				continue // another tournament whose id extends this one's
			}
			var r MatchRecord
			if err := decode(v, &r); err != nil {
				return fmt.Errorf("%w: %s: match %x: %w", ErrCorrupt, l.path, k, err)
			}
			if r.Tournament != tournament || r.Index != int(binary.BigEndian.Uint32(k[len(prefix):])) {
				return fmt.Errorf("%w: %s: match %x does not match its key", ErrCorrupt, l.path, k)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// bindTournament records the configuration of a tournament ID, or checks
// it against the recorded one.
func (l *Leaderboard) bindTournament(id string, t tournamentRecord) error {
	return l.update(func(root *bolt.Bucket) error {
		b := root.Bucket(tournamentsBucket)
		if old := b.Get([]byte(id)); old != nil {
			var got tournamentRecord
			if err := decode(old, &got); err != nil {
				return fmt.Errorf("%w: %s: tournament %.64q: %w", ErrCorrupt, l.path, id, err)
			}
			if got.Game != t.Game || got.Seats != t.Seats || got.Seed != t.Seed || !slices.Equal(got.Entrants, t.Entrants) {
				return fmt.Errorf("%w: %q was %s/%d seats/seed %d/%v, now %s/%d seats/seed %d/%v", ErrTournamentMismatch, id,
					got.Game, got.Seats, got.Seed, got.Entrants, t.Game, t.Seats, t.Seed, t.Entrants)
			}
			return nil
		}
		v, _ := json.Marshal(t)
		return b.Put([]byte(id), v)
	})
}
