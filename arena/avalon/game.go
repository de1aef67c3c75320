package avalon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// Defaults of Config's zero fields.
const (
	// DefaultPlayers is the player count of the shipped configuration.
	DefaultPlayers = 5
	// DefaultMaxRetries is how many times an unparsable action reply is
	// re-asked before the fallback applies.
	DefaultMaxRetries = 2
	// DefaultMaxHistoryBytes bounds the history block of one prompt.
	DefaultMaxHistoryBytes = 48 << 10
	// MaxSpeechBytes bounds what one discussion turn adds to the others'
	// histories (its public part, cut at a rune boundary), so that one
	// verbose player cannot push the rest of the game out of the bounded
	// history.
	MaxSpeechBytes = 4 << 10
)

// Config configures a game. The zero value is the reference's default game:
// 5 players, Merlin and Servants against the Assassin and Minions.
type Config struct {
	// Players is the number of seats, 5 to 10; 0 means DefaultPlayers.
	Players int `yaml:"players"`
	// Roles adds optional characters; the zero value adds none.
	Roles Roles `yaml:",inline"`
	// MaxRetries is how many times an unparsable team, vote or target is
	// asked again (with the parse error explained) before the fallback; 0
	// means DefaultMaxRetries, negative means no re-ask.
	MaxRetries int `yaml:"max_retries"`
	// MaxHistoryBytes bounds the history shown in one prompt: the oldest
	// messages are left out (never the system prompt, which holds the
	// rules and the seat's role); 0 means DefaultMaxHistoryBytes.
	MaxHistoryBytes int `yaml:"max_history_bytes"`
	// Chat holds the sampling options of every call. Seed is replaced per
	// call by one derived from the game seed, the seat and the call's
	// index, so that seeded sampling models reproduce a game.
	Chat llm.ChatOptions `yaml:"-"`
	// Sequential asks the seats one at a time during votes; by default the
	// voters are asked concurrently (as in the reference). The log is the
	// same either way for models whose answer depends only on the request.
	Sequential bool `yaml:"-"`
	// AllowGoodFail lets a Good player's fail card count. By default a Good
	// player's fail is turned into a success (the rules say Good must play
	// success; the reference did not enforce it) and a coerced event is
	// logged.
	AllowGoodFail bool `yaml:"-"`
	// LogCalls adds a call event per model call with the exact messages
	// sent, the full reply and token ids, for training and debugging. Logs
	// grow large.
	LogCalls bool `yaml:"-"`
	// SeatNames, when set (one per seat), names each seat's model in the
	// game_start event.
	SeatNames []string `yaml:"-"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// Result is the outcome of a finished game.
type Result struct {
	// Seed is the game's seed.
	Seed uint64
	// Roles holds every seat's role.
	Roles []Role
	// Leader is the first leader.
	Leader int
	// GoodWins says which side won.
	GoodWins bool
	// Reason says how the game ended, in words.
	Reason string
	// QuestResults are the quests played, true = succeeded.
	QuestResults []bool
	// Calls counts model calls; ParseFailures the replies that could not be
	// read; Fallbacks the actions decided by fallback.
	Calls, ParseFailures, Fallbacks int
}

// Won reports whether the player in seat is on the winning side.
func (r Result) Won(seat int) bool {
	if seat < 0 || seat >= len(r.Roles) {
		return false
	}
	return (r.Roles[seat].Side() == Good) == r.GoodWins
}

// game is one game in play.
type game struct {
	cfg    Config
	setup  Setup
	seed   uint64
	seats  []llm.ChatModel
	eng    *Engine
	hist   [][]entry
	sys    []string
	calls  []int
	fall   *rand.Rand
	log    *logWriter
	logger *slog.Logger
	res    Result
}

type entry struct{ from, text string }

// Play plays one game from seed with seats[i] in seat i and writes its log
// to w as JSON lines (w may be nil). The same seed, configuration and
// deterministic models give the same game and the same log bytes.
//
// Fallbacks after MaxRetries unparsable replies (each logged as a fallback
// event):
//   - team: the leader and the seats after it in order, as many as needed;
//   - team vote: reject (an unreadable vote does not help a majority, as an
//     abstention);
//   - quest card: success (a fail must be a readable, deliberate choice);
//   - assassination: a seeded uniform draw among the seats the Assassin
//     does not know to be Evil.
//
// A model error, a cancelled ctx or a log write error stops the game with a
// wrapped error (ErrModel for the model, with the seat).
func Play(ctx context.Context, cfg Config, seed uint64, seats []llm.ChatModel, w io.Writer) (Result, error) {
	g, err := newGame(cfg, seed, seats, w)
	if err != nil {
		return Result{}, err
	}
	return g.run(ctx)
}

func newGame(cfg Config, seed uint64, seats []llm.ChatModel, w io.Writer) (*game, error) {
	if cfg.Players == 0 {
		cfg.Players = DefaultPlayers
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.MaxHistoryBytes <= 0 {
		cfg.MaxHistoryBytes = DefaultMaxHistoryBytes
	}
	s, err := SetupFor(cfg.Players)
	if err != nil {
		return nil, err
	}
	if len(seats) != s.Players {
		return nil, fmt.Errorf("%w: %d seat models for %d players", ErrConfig, len(seats), s.Players)
	}
	for i, m := range seats {
		if m == nil {
			return nil, fmt.Errorf("%w: seat %d has no model", ErrConfig, i)
		}
	}
	if cfg.SeatNames != nil && len(cfg.SeatNames) != s.Players {
		return nil, fmt.Errorf("%w: %d seat names for %d players", ErrConfig, len(cfg.SeatNames), s.Players)
	}
	deal, err := DealRoles(seed, s, cfg.Roles)
	if err != nil {
		return nil, err
	}
	eng, err := NewEngine(s, deal)
	if err != nil {
		return nil, err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g := &game{
		cfg: cfg, setup: s, seed: seed, seats: seats, eng: eng,
		hist: make([][]entry, s.Players), sys: make([]string, s.Players), calls: make([]int, s.Players),
		fall:   rand.New(rand.NewPCG(seed, streamFallback)),
		log:    &logWriter{w: w},
		logger: logger,
	}
	g.res = Result{Seed: seed, Roles: deal.Roles, Leader: deal.Leader}
	return g, nil
}

func (g *game) run(ctx context.Context) (Result, error) {
	n := g.setup.Players
	roles := g.eng.Roles()
	g.log.emit(Event{Type: EventGameStart, Seed: ptr(g.seed), Players: n, Leader: ptr(g.res.Leader), Roles: roles, Models: g.cfg.SeatNames})
	g.broadcast(greeting(n))
	for i, r := range roles {
		know := Knowledge(roles, i)
		g.sys[i] = systemPrompt(g.setup, roles, i, r, know)
		g.private(i, roleMessage(i, r, know))
		g.log.emit(Event{Type: EventRole, Seat: ptr(i), Role: ptr(r), Knowledge: know})
	}
	for !g.eng.Done() {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		var err error
		switch g.eng.Phase() {
		case PhaseTeamSelection:
			err = g.teamSelection(ctx)
		case PhaseTeamVote:
			err = g.teamVote(ctx)
		case PhaseQuest:
			err = g.questVote(ctx)
		case PhaseAssassination:
			err = g.assassination(ctx)
		}
		if err != nil {
			return Result{}, err
		}
		if g.log.err != nil {
			return Result{}, g.log.err
		}
	}
	g.res.GoodWins, g.res.Reason, g.res.QuestResults = g.eng.GoodWins(), g.eng.Reason(), g.eng.QuestResults()
	g.broadcast(endMessage(g.res.GoodWins, g.res.Reason, roles))
	g.log.emit(Event{Type: EventGameEnd, GoodWins: ptr(g.res.GoodWins), Reason: g.res.Reason, QuestResults: g.res.QuestResults, Roles: roles})
	if g.log.err != nil {
		return Result{}, g.log.err
	}
	return g.res, nil
}

func (g *game) broadcast(text string) {
	for i := range g.hist {
		g.hist[i] = append(g.hist[i], entry{Moderator, text})
	}
}

func (g *game) private(seat int, text string) {
	g.hist[seat] = append(g.hist[seat], entry{Moderator, text})
}

// speak records a seat's public words: the others see them under its name;
// the seat sees them as its own.
func (g *game) speak(seat int, text string) {
	for i := range g.hist {
		g.hist[i] = append(g.hist[i], entry{PlayerName(seat), text})
	}
}

func (g *game) teamSelection(ctx context.Context) error {
	e := g.eng
	q, p, leader, n := e.Quest(), e.Proposal(), e.Leader(), g.setup.Players
	g.broadcast(selectionAnnouncement(e))
	for k := range n {
		seat := (leader + k) % n
		reply, err := g.ask(ctx, seat, ActionDiscuss, discussionInstruction(e, seat), nil)
		if err != nil {
			return err
		}
		text := truncate(Public(reply), MaxSpeechBytes)
		if text == "" {
			text = "(says nothing)"
		}
		g.speak(seat, text)
		g.log.emit(Event{Type: EventDiscussion, Quest: ptr(q), Proposal: ptr(p), Seat: ptr(seat), Text: text})
	}
	size := e.TeamSize()
	format := fmt.Sprintf("Answer with exactly %d distinct player ids from 0 to %d in brackets, for example %s.", size, n-1, listSeats(exampleTeam(size)))
	var team []int
	_, err := g.askParsed(ctx, leader, ActionTeam, teamInstruction(e), format, func(reply string) error {
		t, err := ParseTeam(reply, size, n)
		team = t
		return err
	})
	if err != nil {
		return err
	}
	if team == nil {
		for k := range size {
			team = append(team, (leader+k)%n)
		}
		sortInts(team)
		g.fallback(leader, ActionTeam, listSeats(team))
	}
	if err := e.ProposeTeam(leader, team); err != nil {
		return err
	}
	g.broadcast(proposalAnnouncement(leader, team))
	g.log.emit(Event{Type: EventTeamProposed, Quest: ptr(q), Proposal: ptr(p), Seat: ptr(leader), Team: team})
	return nil
}

func (g *game) fallback(seat int, a Action, value string) {
	g.res.Fallbacks++
	g.log.emit(Event{Type: EventFallback, Seat: ptr(seat), Action: a, Value: value})
}

// poll asks every seat in voters for a yes/no, concurrently unless
// Sequential, and returns the answers in voters' order (nil = unreadable).
func (g *game) poll(ctx context.Context, voters []int, action Action, instr func(seat int) string) ([]*bool, error) {
	type answer struct {
		v      *bool
		events []Event
		calls  int
		fails  int
		err    error
	}
	out := make([]answer, len(voters))
	one := func(k int) {
		seat := voters[k]
		// Each voter logs into its own buffer, merged in seat order.
		sub := &game{cfg: g.cfg, setup: g.setup, seed: g.seed, seats: g.seats, hist: g.hist, sys: g.sys, calls: g.calls, logger: g.logger}
		var evs []Event
		sub.log = &logWriter{events: &evs}
		var vote *bool
		format := "Answer \"Yes\" or \"No\"."
		_, err := sub.askParsed(ctx, seat, action, instr(seat), format, func(reply string) error {
			v, err := ParseVote(reply)
			if err == nil {
				vote = &v
			}
			return err
		})
		out[k] = answer{vote, evs, sub.res.Calls, sub.res.ParseFailures, err}
	}
	if g.cfg.Sequential || len(voters) == 1 {
		for k := range voters {
			one(k)
		}
	} else {
		var wg sync.WaitGroup
		for k := range voters {
			wg.Go(func() { one(k) })
		}
		wg.Wait()
	}
	votes := make([]*bool, len(voters))
	var firstErr error
	for k, a := range out {
		for _, e := range a.events {
			g.log.emit(e)
		}
		g.res.Calls += a.calls
		g.res.ParseFailures += a.fails
		if a.err != nil && firstErr == nil {
			firstErr = a.err
		}
		votes[k] = a.v
	}
	return votes, firstErr
}

func (g *game) teamVote(ctx context.Context) error {
	e := g.eng
	q, p, team := e.Quest(), e.Proposal(), e.Team()
	n := g.setup.Players
	voters := make([]int, n)
	for i := range voters {
		voters[i] = i
	}
	instr := teamVoteInstruction(e)
	raw, err := g.poll(ctx, voters, ActionTeamVote, func(int) string { return instr })
	if err != nil {
		return err
	}
	votes := make([]bool, n)
	for i, v := range raw {
		if v == nil {
			g.fallback(i, ActionTeamVote, "reject")
			continue
		}
		votes[i] = *v
	}
	approved, forced, err := e.VoteTeam(votes)
	if err != nil {
		return err
	}
	g.broadcast(teamVoteResult(team, votes, approved, forced))
	g.log.emit(Event{Type: EventTeamVote, Quest: ptr(q), Proposal: ptr(p), Team: team, Votes: votes, Approved: ptr(approved), Forced: forced})
	return nil
}

func (g *game) questVote(ctx context.Context) error {
	e := g.eng
	q, team := e.Quest(), e.Team()
	roles := g.res.Roles
	raw, err := g.poll(ctx, team, ActionQuestVote, func(seat int) string { return questInstruction(q, team, roles[seat]) })
	if err != nil {
		return err
	}
	cards := make([]bool, len(team))
	for k, v := range raw {
		seat := team[k]
		switch {
		case v == nil:
			cards[k] = true
			g.fallback(seat, ActionQuestVote, "success")
		case !*v && roles[seat].Side() == Good && !g.cfg.AllowGoodFail:
			cards[k] = true
			g.log.emit(Event{Type: EventCoerced, Seat: ptr(seat), Action: ActionQuestVote, Value: "success"})
		default:
			cards[k] = *v
		}
	}
	succeeded, fails, err := e.VoteQuest(cards)
	if err != nil {
		return err
	}
	g.broadcast(questResult(q, team, succeeded, fails))
	g.log.emit(Event{Type: EventQuest, Quest: ptr(q), Team: team, Votes: cards, Fails: ptr(fails), Succeeded: ptr(succeeded)})
	return nil
}

func (g *game) assassination(ctx context.Context) error {
	e := g.eng
	a, n := e.Assassin(), g.setup.Players
	g.broadcast(assassinationAnnouncement(a))
	format := fmt.Sprintf("Answer with \"Player <id>\", one id from 0 to %d other than %d.", n-1, a)
	target := -1
	_, err := g.askParsed(ctx, a, ActionAssassinate, assassinInstruction(n, a), format, func(reply string) error {
		t, err := ParseTarget(reply, n, a)
		if err == nil {
			target = t
		}
		return err
	})
	if err != nil {
		return err
	}
	if target < 0 {
		known := map[int]bool{a: true}
		for _, s := range Knowledge(g.res.Roles, a) {
			known[s.Seat] = true
		}
		var pool []int
		for i := range n {
			if !known[i] {
				pool = append(pool, i)
			}
		}
		target = pool[g.fall.IntN(len(pool))]
		g.fallback(a, ActionAssassinate, PlayerName(target))
	}
	goodWins, err := e.Assassinate(a, target)
	if err != nil {
		return err
	}
	g.broadcast(assassinationResult(a, target, goodWins))
	g.log.emit(Event{Type: EventAssassination, Seat: ptr(a), Target: ptr(target), TargetRole: ptr(g.res.Roles[target]), GoodWins: ptr(goodWins)})
	return nil
}

// askParsed asks seat, parses with parse, and re-asks up to MaxRetries
// times with the parse error explained. It returns the last reply; parse
// having never succeeded is not an error (the caller applies its
// fallback).
func (g *game) askParsed(ctx context.Context, seat int, a Action, instr, format string, parse func(string) error) (string, error) {
	var extra []agentevolver.Message
	var reply string
	for attempt := 0; attempt <= g.cfg.MaxRetries; attempt++ {
		var err error
		reply, err = g.ask(ctx, seat, a, instr, extra)
		if err != nil {
			return "", err
		}
		perr := parse(reply)
		if perr == nil {
			if public := Public(reply); public != "" {
				g.hist[seat] = append(g.hist[seat], entry{PlayerName(seat) + " (private answer)", public})
			}
			return reply, nil
		}
		g.res.ParseFailures++
		g.log.emit(Event{Type: EventParseFailure, Seat: ptr(seat), Action: a, Attempt: attempt, Error: perr.Error(), Reply: truncate(Public(reply), 512)})
		g.logger.Debug("avalon: unparsable reply", "seat", seat, "action", string(a), "attempt", attempt, "err", perr)
		extra = append(extra,
			agentevolver.Message{Role: agentevolver.RoleAssistant, Content: truncate(reply, MaxParseBytes)},
			agentevolver.Message{Role: agentevolver.RoleUser, Content: reaskMessage(perr, format)})
	}
	return reply, nil
}

// ask makes one model call for seat.
func (g *game) ask(ctx context.Context, seat int, a Action, instr string, extra []agentevolver.Message) (string, error) {
	msgs := make([]agentevolver.Message, 0, 2+len(extra))
	msgs = append(msgs,
		agentevolver.Message{Role: agentevolver.RoleSystem, Content: g.sys[seat]},
		agentevolver.Message{Role: agentevolver.RoleUser, Content: g.historyBlock(seat) + "\n\n" + instr})
	msgs = append(msgs, extra...)
	opts := g.cfg.Chat
	opts.Seed = ptr(callSeed(g.seed, seat, g.calls[seat]))
	g.calls[seat]++
	g.res.Calls++
	c, err := g.seats[seat].Chat(ctx, msgs, opts)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w: seat %d (%s): %w", ErrModel, seat, a, err)
	}
	reply := truncate(c.Message.Content, MaxParseBytes)
	if g.cfg.LogCalls {
		g.log.emit(Event{Type: EventCall, Seat: ptr(seat), Action: a, Attempt: len(extra) / 2, Prompt: msgs, Reply: reply, TokenIDs: c.TokenIDs})
	}
	return reply, nil
}

// callSeed derives the sampling seed of seat's k-th call.
func callSeed(seed uint64, seat, k int) int64 {
	r := rand.New(rand.NewPCG(seed^uint64(seat)<<32^uint64(k), streamCalls))
	return int64(r.Uint64() >> 1)
}

// historyBlock renders seat's history in the reference's layout, newest
// messages kept within MaxHistoryBytes.
func (g *game) historyBlock(seat int) string {
	h := g.hist[seat]
	lines := make([]string, 0, len(h))
	total := 0
	start := len(h)
	for i := len(h) - 1; i >= 0; i-- {
		line := "<agent:" + h[i].from + ">" + h[i].text + "</agent:" + h[i].from + ">"
		if total+len(line)+1 > g.cfg.MaxHistoryBytes {
			break
		}
		total += len(line) + 1
		lines = append(lines, line)
		start = i
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	var b strings.Builder
	b.WriteString("# Conversation History\nThe content between <history></history> tags is the game so far, one message per line.\n")
	if start > 0 {
		fmt.Fprintf(&b, "(%d older messages are not shown.)\n", start)
	}
	b.WriteString("<history>\n")
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n</history>\n\nThe <agent:...> format is only used in the history above; never use it in your reply.")
	return b.String()
}
