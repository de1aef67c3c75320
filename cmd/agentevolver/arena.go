package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

func init() {
	register(command{
		name:    "arena",
		summary: "Avalon tournaments between models with a persistent Elo leaderboard (show reads Diplomacy's too): run | show | serve",
		run:     runArena,
	})
}

const arenaUsage = `Usage:
  agentevolver arena run  --model NAME=SPEC (repeatable) [--db FILE] [--id ID] [--matches N]
                          [--players N] [--roles percival,morgana,mordred,oberon] [--seed S]
                          [--workers N] [--log-dir DIR] [--temperature T] [--max-tokens N]
  agentevolver arena show [--db FILE]     (an Avalon or a Diplomacy leaderboard)
  agentevolver arena serve [--addr HOST:PORT] [--model NAME=SPEC (repeatable)] [--allow-origin PATTERN]

A SPEC is one of
  random[:SEED]           legal random moves (a baseline)
  saboteur[:SEED]         random, but evil always fails quests
  cautious[:SEED]         random, rarely approves, never fails quests
  informed[:SEED]         plays on what its role knows (a stronger baseline)
  openai:MODEL@BASE_URL   an OpenAI-compatible endpoint (vLLM, ollama, DashScope, …);
                          the key is read from OPENAI_API_KEY

"run" resumes a tournament whose --id is already in --db: recorded matches are
skipped, so an interrupted run can simply be started again.
`

func runArena(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, arenaUsage)
		return errHelp
	}
	switch args[0] {
	case "run":
		return runArenaRun(ctx, args[1:], stdout, stderr)
	case "show":
		return runArenaShow(args[1:], stdout, stderr)
	case "serve":
		return runArenaServe(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, arenaUsage)
	return fmt.Errorf("unknown arena subcommand %q", args[0])
}

// modelFlags collects repeated --model NAME=SPEC flags.
type modelFlags []string

func (m *modelFlags) String() string     { return strings.Join(*m, ",") }
func (m *modelFlags) Set(v string) error { *m = append(*m, v); return nil }

var avalonRoles = []string{"Merlin", "Servant", "Assassin", "Minion", "Percival", "Morgana", "Mordred", "Oberon"}

func runArenaRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var models modelFlags
	fs.Var(&models, "model", "an entrant, NAME=SPEC (repeatable; see agentevolver arena -h)")
	db := fs.String("db", "arena.db", "leaderboard file (created if absent)")
	id := fs.String("id", "avalon", "tournament id; an id already in --db is resumed")
	matches := fs.Int("matches", 20, "number of matches")
	players := fs.Int("players", avalon.DefaultPlayers, "players per game, 5 to 10")
	roles := fs.String("roles", "", "optional roles, comma-separated: percival,morgana,mordred,oberon")
	seed := fs.Uint64("seed", 1, "tournament seed")
	workers := fs.Int("workers", arena.DefaultWorkers, "matches played at once")
	logDir := fs.String("log-dir", "", "write each match's JSON lines log under this directory")
	temperature := fs.Float64("temperature", 0.7, "sampling temperature of endpoint models")
	maxTokens := fs.Int("max-tokens", 2048, "completion bound of endpoint models")
	concurrency := fs.Int("concurrency", 8, "requests in flight per endpoint model")
	verbose := fs.Bool("v", false, "log progress to stderr")
	fs.Usage = func() { fmt.Fprint(stderr, arenaUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(models) == 0 {
		return errors.New("no --model given")
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	var entrants []arena.Entrant
	for _, m := range models {
		e, err := parseEntrant(m, *concurrency, logger)
		if err != nil {
			return err
		}
		entrants = append(entrants, e)
	}
	var r avalon.Roles
	for _, name := range strings.Split(*roles, ",") {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "":
		case "percival":
			r.Percival = true
		case "morgana":
			r.Morgana = true
		case "mordred":
			r.Mordred = true
		case "oberon":
			r.Oberon = true
		default:
			return fmt.Errorf("unknown role %q in --roles", name)
		}
	}
	if *players < avalon.MinPlayers || *players > avalon.MaxPlayers {
		return fmt.Errorf("--players %d: want %d to %d", *players, avalon.MinPlayers, avalon.MaxPlayers)
	}
	if *matches <= 0 || *workers <= 0 {
		return errors.New("--matches and --workers must be positive")
	}
	cfg := avalon.Config{Players: *players, Roles: r, Logger: logger,
		Chat: llm.ChatOptions{Temperature: llm.Float(*temperature), MaxTokens: *maxTokens}}
	if _, err := r.Cast(mustSetup(*players)); err != nil {
		return err
	}
	lb, err := arena.Open(*db, arena.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer lb.Close()
	tour := arena.Tournament{
		ID: *id, Game: avalon.ArenaGame{Config: cfg}, Entrants: entrants,
		Matches: *matches, Seed: *seed, Workers: *workers, LogDir: *logDir, Logger: logger,
		Progress: func(p arena.Progress) {
			if *verbose || p.Done%10 == 0 || p.Done == p.Total {
				fmt.Fprintf(stderr, "arena: %d/%d matches recorded (%d failed)\n", p.Done, p.Total, p.Failed)
			}
		},
	}
	sum, runErr := tour.Run(ctx, lb)
	fmt.Fprintf(stdout, "tournament %q: %d matches played, %d already recorded, %d failed\n", *id, sum.Played, sum.Skipped, sum.Failed)
	names := make([]string, len(entrants))
	for i, e := range entrants {
		names[i] = e.Name
	}
	if err := showStandings(lb, stdout, names); err != nil {
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

func mustSetup(n int) avalon.Setup {
	s, _ := avalon.SetupFor(n)
	return s
}

func runArenaShow(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "arena.db", "leaderboard file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if _, err := os.Stat(*db); err != nil {
		return err
	}
	lb, err := arena.Open(*db, arena.Options{})
	if err != nil {
		return err
	}
	defer lb.Close()
	return showStandings(lb, stdout, nil)
}

func showStandings(lb *arena.Leaderboard, w io.Writer, models []string) error {
	st, err := lb.Standings()
	if err != nil {
		return err
	}
	return arena.Render(w, st, arena.RenderOptions{Roles: roleColumns(st), Models: models})
}

// roleColumns are the role columns of a leaderboard: Avalon's roles (its
// four basic ones always, once any Avalon role was played) in the game's
// order, Diplomacy's powers in the map's order, then any other role
// played, sorted. A Diplomacy leaderboard thus shows its seven powers and
// no empty Avalon columns.
func roleColumns(st []arena.Standing) []string {
	played := map[string]bool{}
	for _, s := range st {
		for r := range s.Roles {
			played[r] = true
		}
	}
	var cols []string
	known := map[string]bool{}
	avalonPlayed := false
	for _, r := range avalonRoles {
		known[r] = true
		avalonPlayed = avalonPlayed || played[r]
	}
	for _, r := range avalonRoles {
		if played[r] || (avalonPlayed && slices.Contains(avalonRoles[:4], r)) {
			cols = append(cols, r)
		}
	}
	for _, p := range diplomacy.Powers() {
		known[p.String()] = true
		if played[p.String()] {
			cols = append(cols, p.String())
		}
	}
	var other []string
	for r := range played {
		if !known[r] {
			other = append(other, r)
		}
	}
	slices.Sort(other)
	return append(cols, other...)
}

// parseEntrant reads NAME=SPEC.
func parseEntrant(s string, concurrency int, logger *slog.Logger) (arena.Entrant, error) {
	name, spec, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || spec == "" {
		return arena.Entrant{}, fmt.Errorf("--model %q: want NAME=SPEC", s)
	}
	kind, arg, _ := strings.Cut(spec, ":")
	seedOf := func() (uint64, error) {
		if arg == "" {
			return 0, nil
		}
		v, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("--model %q: bad seed %q", s, arg)
		}
		return v, nil
	}
	switch kind {
	case "random", "saboteur", "cautious", "informed":
		seed, err := seedOf()
		if err != nil {
			return arena.Entrant{}, err
		}
		m := avalon.Random{Seed: seed}
		switch kind {
		case "saboteur":
			m.FailProb = 1
		case "cautious":
			m.ApproveProb, m.FailProb = 0.2, -1
		case "informed":
			m.Informed = true
		}
		return arena.Entrant{Name: name, Model: m}, nil
	case "openai":
		model, url, ok := strings.Cut(arg, "@")
		if !ok || model == "" || url == "" {
			return arena.Entrant{}, fmt.Errorf("--model %q: want openai:MODEL@BASE_URL", s)
		}
		c, err := openai.New(openai.Config{BaseURL: url, Model: model, MaxConcurrency: concurrency, Logger: logger})
		if err != nil {
			return arena.Entrant{}, fmt.Errorf("--model %q: %w", s, err)
		}
		return arena.Entrant{Name: name, Model: c}, nil
	}
	return arena.Entrant{}, fmt.Errorf("--model %q: unknown kind %q (random, saboteur, cautious, informed, openai)", s, kind)
}
