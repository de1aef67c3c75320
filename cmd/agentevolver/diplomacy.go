package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

func init() {
	register(command{
		name:    "diplomacy",
		summary: "Diplomacy games and tournaments between models and bots (Elo leaderboard): play | arena",
		run:     runDiplomacy,
	})
}

const diplomacyUsage = `Usage:
  agentevolver diplomacy play  [--all SPEC] [--power POWER=SPEC (repeatable)] [--seed S]
                               [--max-phases N] [--negotiation-rounds N] [--log FILE]
                               [--resume OLDLOG --log FILE]
  agentevolver diplomacy arena --model NAME=SPEC (repeatable) [--db FILE] [--id ID] [--matches N]
                               [--seed S] [--workers N] [--log-dir DIR] [--max-phases N]
                               [--negotiation-rounds N]

"play" plays one game (the seven powers default to --all, greedy unless set)
and prints each power's supply centres and score; --log writes the game's
log (the reference's game_log.json shape). --resume goes on with the game
of an earlier log (one that stopped with an error, say), with the same
players and game flags, and writes the whole game to --log. "arena" plays a tournament into
an arena leaderboard file (Elo over the powers' scores; resumable by --id),
as "agentevolver arena run" does for Avalon.

A SPEC is one of
  greedy                  the greedy bot: takes centres, supports its attacks
  random[:SEED]           one random possible order per unit
  openai:MODEL@BASE_URL   an OpenAI-compatible endpoint (vLLM, ollama, DashScope, …);
                          the key is read from OPENAI_API_KEY
`

func runDiplomacy(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, diplomacyUsage)
		return errHelp
	}
	switch args[0] {
	case "play":
		return runDiplomacyPlay(ctx, args[1:], stdout, stderr)
	case "arena":
		return runDiplomacyArena(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, diplomacyUsage)
	return fmt.Errorf("unknown diplomacy subcommand %q", args[0])
}

// diplomacyGameFlags are the game flags both subcommands share.
type diplomacyGameFlags struct {
	maxPhases, rounds, maxTokens, concurrency *int
	temperature                               *float64
	verbose                                   *bool
}

func addDiplomacyGameFlags(fs *flag.FlagSet) diplomacyGameFlags {
	return diplomacyGameFlags{
		maxPhases:   fs.Int("max-phases", dipgame.DefaultMaxPhases, "phases before the game ends (retreats and adjustments count)"),
		rounds:      fs.Int("negotiation-rounds", dipgame.DefaultNegotiationRounds, "negotiation rounds before each movement phase (0: none)"),
		temperature: fs.Float64("temperature", 0.7, "sampling temperature of endpoint models"),
		maxTokens:   fs.Int("max-tokens", 2048, "completion bound of endpoint models"),
		concurrency: fs.Int("concurrency", 8, "requests in flight per endpoint model"),
		verbose:     fs.Bool("v", false, "log progress to stderr"),
	}
}

func (f diplomacyGameFlags) config(stderr io.Writer) (dipgame.Config, *slog.Logger, error) {
	if *f.maxPhases <= 0 || *f.rounds < 0 {
		return dipgame.Config{}, nil, errors.New("--max-phases must be positive and --negotiation-rounds not negative")
	}
	level := slog.LevelWarn
	if *f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	rounds := *f.rounds
	if rounds == 0 {
		rounds = -1 // dipgame's "none"
	}
	return dipgame.Config{MaxPhases: *f.maxPhases, NegotiationRounds: rounds, Logger: logger,
		Chat: llm.ChatOptions{Temperature: llm.Float(*f.temperature), MaxTokens: *f.maxTokens}}, logger, nil
}

// diplomacyModel builds the model of a SPEC.
func diplomacyModel(spec string, concurrency int, logger *slog.Logger) (llm.ChatModel, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "greedy":
		if arg != "" {
			return nil, fmt.Errorf("%q: greedy takes no argument", spec)
		}
		return dipgame.Greedy{}, nil
	case "random":
		var seed uint64
		if arg != "" {
			v, err := strconv.ParseUint(arg, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q: bad seed %q", spec, arg)
			}
			seed = v
		}
		return dipgame.Random{Seed: seed}, nil
	case "openai":
		model, url, ok := strings.Cut(arg, "@")
		if !ok || model == "" || url == "" {
			return nil, fmt.Errorf("%q: want openai:MODEL@BASE_URL", spec)
		}
		c, err := openai.New(openai.Config{BaseURL: url, Model: model, MaxConcurrency: concurrency, Logger: logger})
		if err != nil {
			return nil, fmt.Errorf("%q: %w", spec, err)
		}
		return c, nil
	}
	return nil, fmt.Errorf("%q: unknown kind %q (greedy, random, openai)", spec, kind)
}

func runDiplomacyPlay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diplomacy play", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var powers modelFlags
	all := fs.String("all", "greedy", "SPEC of every power not set by --power")
	fs.Var(&powers, "power", "POWER=SPEC for one power (repeatable)")
	seed := fs.Uint64("seed", 1, "game seed")
	logPath := fs.String("log", "", "write the game's log (JSON) to this file")
	resume := fs.String("resume", "", "go on with the game of this log (needs --log)")
	gf := addDiplomacyGameFlags(fs)
	fs.Usage = func() { fmt.Fprint(stderr, diplomacyUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, logger, err := gf.config(stderr)
	if err != nil {
		return err
	}
	specs := make([]string, diplomacy.NumPowers)
	for i := range specs {
		specs[i] = *all
	}
	for _, ps := range powers {
		name, spec, ok := strings.Cut(ps, "=")
		p, err := diplomacy.ParsePower(strings.TrimSpace(name))
		if !ok || err != nil {
			return fmt.Errorf("--power %q: want POWER=SPEC with a power's name", ps)
		}
		specs[p-1] = spec
	}
	models := make([]llm.ChatModel, diplomacy.NumPowers)
	for i, s := range specs {
		if models[i], err = diplomacyModel(s, *gf.concurrency, logger); err != nil {
			return err
		}
	}
	cfg.SeatNames = specs
	if *resume != "" && (*logPath == "" || *logPath == *resume) {
		return errors.New("--resume needs a --log file other than the resumed one")
	}
	var w io.Writer
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	var res dipgame.Result
	if *resume != "" {
		prev, err := readDiplomacyLog(*resume)
		if err != nil {
			return err
		}
		res, err = dipgame.Resume(ctx, cfg, prev, models, w)
		if err != nil {
			return err
		}
	} else if res, err = dipgame.Play(ctx, cfg, *seed, models, w); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "game over at %s", res.Phase)
	if res.Winner != diplomacy.NoPower {
		fmt.Fprintf(stdout, ": %s wins", res.Winner)
	}
	fmt.Fprintf(stdout, " (%d model calls, %d order replies unread, %d orders refused)\n", res.Calls, res.Unread, res.Rejected)
	fmt.Fprintf(stdout, "%-8s  %-24s  %7s  %5s\n", "power", "player", "centres", "score")
	for i, p := range diplomacy.Powers() {
		fmt.Fprintf(stdout, "%-8s  %-24.24s  %7d  %.3f\n", p, specs[i], res.Centers[i], res.Scores[i])
	}
	return nil
}

// maxDiplomacyLogBytes bounds a log read by --resume.
const maxDiplomacyLogBytes = 256 << 20

func readDiplomacyLog(path string) (*dipgame.Log, error) {
	data, err := fsutil.ReadFile(path, maxDiplomacyLogBytes)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("--resume %s: not a game log: %w", path, err)
	}
	return &l, nil
}

func runDiplomacyArena(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diplomacy arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var models modelFlags
	fs.Var(&models, "model", "an entrant, NAME=SPEC (repeatable)")
	db := fs.String("db", "diplomacy.db", "leaderboard file (created if absent)")
	id := fs.String("id", "diplomacy", "tournament id; an id already in --db is resumed")
	matches := fs.Int("matches", 20, "number of matches")
	seed := fs.Uint64("seed", 1, "tournament seed")
	workers := fs.Int("workers", arena.DefaultWorkers, "matches played at once")
	logDir := fs.String("log-dir", "", "write each match's log under this directory")
	gf := addDiplomacyGameFlags(fs)
	fs.Usage = func() { fmt.Fprint(stderr, diplomacyUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(models) == 0 {
		return errors.New("no --model given")
	}
	if *matches <= 0 || *workers <= 0 {
		return errors.New("--matches and --workers must be positive")
	}
	cfg, logger, err := gf.config(stderr)
	if err != nil {
		return err
	}
	var entrants []arena.Entrant
	names := make([]string, 0, len(models))
	for _, m := range models {
		name, spec, ok := strings.Cut(m, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || spec == "" {
			return fmt.Errorf("--model %q: want NAME=SPEC", m)
		}
		model, err := diplomacyModel(spec, *gf.concurrency, logger)
		if err != nil {
			return fmt.Errorf("--model %w", err)
		}
		entrants = append(entrants, arena.Entrant{Name: name, Model: model})
		names = append(names, name)
	}
	lb, err := arena.Open(*db, arena.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer lb.Close()
	tour := arena.Tournament{
		ID: *id, Game: dipgame.ArenaGame{Config: cfg}, Entrants: entrants,
		Matches: *matches, Seed: *seed, Workers: *workers, LogDir: *logDir, Logger: logger,
		Progress: func(p arena.Progress) {
			if *gf.verbose || p.Done%10 == 0 || p.Done == p.Total {
				fmt.Fprintf(stderr, "diplomacy: %d/%d matches recorded (%d failed)\n", p.Done, p.Total, p.Failed)
			}
		},
	}
	sum, runErr := tour.Run(ctx, lb)
	fmt.Fprintf(stdout, "tournament %q: %d matches played, %d already recorded, %d failed\n", *id, sum.Played, sum.Skipped, sum.Failed)
	st, err := lb.Standings()
	if err != nil {
		return err
	}
	var roles []string
	for _, p := range diplomacy.Powers() {
		roles = append(roles, p.String())
	}
	if err := arena.Render(stdout, st, arena.RenderOptions{Roles: roles, Models: names}); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("%w (run again with the same --id to resume)", runErr)
	}
	if sum.Played > 0 && sum.Failed == sum.Played {
		return errors.New("every match failed")
	}
	return nil
}
