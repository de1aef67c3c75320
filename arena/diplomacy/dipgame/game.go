package dipgame

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/llm"
)

// Defaults of Config's zero fields.
const (
	// DefaultMaxPhases is the phase limit of the reference's arena and
	// evaluation configurations.
	DefaultMaxPhases = 20
	// DefaultNegotiationRounds is the reference's negotiation_rounds.
	DefaultNegotiationRounds = 3
	// DefaultMaxHistoryBytes bounds the history block of one prompt.
	DefaultMaxHistoryBytes = 32 << 10
)

// Errors of the package, for errors.Is.
var (
	// ErrConfig reports an unusable game configuration.
	ErrConfig = errors.New("dipgame: invalid configuration")
	// ErrModel reports a model call that failed; the error names the power.
	ErrModel = errors.New("dipgame: model error")
)

// Config configures a game. The zero value is the reference's arena game:
// 20 phases, 3 negotiation rounds before each movement phase.
type Config struct {
	// MaxPhases ends the game after this many processed phases (movement,
	// retreats and adjustments; skipped phases do not count), as the
	// reference's max_phases; 0 means DefaultMaxPhases.
	MaxPhases int `yaml:"max_phases"`
	// NegotiationRounds is the number of negotiation rounds before each
	// movement phase; 0 means DefaultNegotiationRounds, negative means
	// none.
	NegotiationRounds int `yaml:"negotiation_rounds"`
	// MaxHistoryBytes bounds the history shown in one prompt (the oldest
	// messages are left out, with a note; the system prompt and the
	// current board are never left out); 0 means DefaultMaxHistoryBytes.
	MaxHistoryBytes int `yaml:"max_history_bytes"`
	// Chat holds the sampling options of every call. Seed is replaced per
	// call by one derived from the game seed, the power and the call's
	// index.
	Chat llm.ChatOptions `yaml:"-"`
	// Sequential asks the powers one at a time; by default they are
	// asked concurrently, as in the reference. The log is the same either
	// way for models whose answer depends only on the request.
	Sequential bool `yaml:"-"`
	// LogCalls records every model call (the messages sent, the reply,
	// token ids) in the log. Logs grow large.
	LogCalls bool `yaml:"-"`
	// SeatNames, when set (one per power, in diplomacy.Powers order),
	// are the log's model_names.
	SeatNames []string `yaml:"-"`
	// GameID is the log's game_id.
	GameID string `yaml:"-"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
	// Observe, when set, is told of the game's progress as it happens
	// (see Progress): the board of each phase, each negotiation round
	// and each processed phase, in order, from the goroutine that runs
	// the game (Play or Resume; a resumed game reports its replayed
	// phases too). It must return promptly and must not change what it
	// is given: the game waits for it, and Round, Log and Record are
	// shared with the game's log. It never changes the game: results and
	// log bytes are the same with or without it.
	Observe func(Progress) `yaml:"-"`
}

func (c Config) withDefaults() Config {
	if c.MaxPhases == 0 {
		c.MaxPhases = DefaultMaxPhases
	}
	if c.NegotiationRounds == 0 {
		c.NegotiationRounds = DefaultNegotiationRounds
	} else if c.NegotiationRounds < 0 {
		c.NegotiationRounds = 0
	}
	if c.MaxHistoryBytes <= 0 {
		c.MaxHistoryBytes = DefaultMaxHistoryBytes
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Result is the outcome of a game.
type Result struct {
	// Seed is the game's seed.
	Seed uint64
	// Phase is the phase the game stopped at.
	Phase diplomacy.Phase
	// Winner is the power with 18 centres, or NoPower.
	Winner diplomacy.Power
	// Scores and Centers hold each power's reward (0 if eliminated, else
	// min(centres/18, 1)) and supply-centre count, in diplomacy.Powers
	// order.
	Scores  []float64
	Centers []int
	// Calls counts model calls; Unread the order replies from which no
	// order could be read (the units held); Fallbacks the order replies
	// read by the substring fallback; Rejected the order texts refused.
	Calls, Unread, Fallbacks, Rejected int
}

// Score returns p's reward.
func (r Result) Score(p diplomacy.Power) float64 {
	if !p.Valid() || int(p) > len(r.Scores) {
		return 0
	}
	return r.Scores[p-1]
}

type entry struct{ from, text string }

// game is one game in play.
type game struct {
	cfg    Config
	seed   uint64
	models []llm.ChatModel
	g      *diplomacy.Game
	sys    []string
	hist   [][]entry
	calls  []int
	rnd    *rand.Rand
	boards []string // each power's board context of the current phase
	log    Log
	res    Result
	logger *slog.Logger
}

// Play plays one game from seed with models[i] playing diplomacy.Powers()[i]
// and writes its log (one JSON object, see Log) to w (nil: no log). A
// nil model means a power with no agent: it plays one uniformly random
// possible order per location, drawn from the seed, as the reference does
// for powers without an agent.
//
// Each movement phase starts with Config.NegotiationRounds rounds in
// which every surviving power with a model is asked (concurrently) for
// messages; a round's messages are delivered once every reply is in: a
// private one to its recipient and its sender, a global one to everyone.
// Then every power with something to order is asked for its orders
// (ParseOrders; whatever is not a possible order is refused and logged,
// and units without an order hold), every power's orders are shown to
// all, the phase is adjudicated and its results and the supply-centre
// counts are announced. Retreats and adjustment phases have orders only.
//
// A model error, a cancelled ctx or a log write error stops the game
// with an error (ErrModel for the model, naming the power); the log
// written so far is still written, with the error. The same seed,
// configuration and deterministic models give the same log bytes.
func Play(ctx context.Context, cfg Config, seed uint64, models []llm.ChatModel, w io.Writer) (Result, error) {
	gm, err := newGame(cfg, seed, models)
	if err != nil {
		return Result{}, err
	}
	gm.broadcast(fmt.Sprintf("The game starts in %s. Powers: %s.", gm.g.Phase(), powerList()))
	gm.observePosition()
	return gm.play(ctx, w)
}

// Resume goes on with the game of an earlier log (as Play wrote it, for
// example one that stopped with an error) and writes the whole game's log
// to w. cfg and models must be those of the earlier game: the recorded
// phases are replayed through the engine (diplomacy.Replay checks them
// against the rules; a log that does not replay is refused with
// diplomacy.ErrState), each power's history and the game's random draws
// and call seeds are rebuilt as they were, and play goes on from the
// first unrecorded phase. With deterministic models a resumed game
// writes the same log bytes as the uninterrupted one. A log of a finished
// game is refused.
func Resume(ctx context.Context, cfg Config, prev *Log, models []llm.ChatModel, w io.Writer) (Result, error) {
	if prev == nil || len(prev.History) == 0 || len(prev.History) != len(prev.Game.Phases) {
		return Result{}, fmt.Errorf("%w: a log with one history record per phase is needed to resume", diplomacy.ErrState)
	}
	gm, err := newGame(cfg, prev.Game.Initialization.Seed, models)
	if err != nil {
		return Result{}, err
	}
	check, err := diplomacy.Replay(diplomacy.Standard(), diplomacy.Config{MaxPhases: gm.cfg.MaxPhases}, prev.History)
	if err != nil {
		return Result{}, err
	}
	if check.Done() {
		return Result{}, fmt.Errorf("%w: the logged game is over", diplomacy.ErrState)
	}
	gm.broadcast(fmt.Sprintf("The game starts in %s. Powers: %s.", gm.g.Phase(), powerList()))
	gm.observePosition()
	for i, rec := range prev.History {
		if err := gm.replayPhase(rec, prev.Game.Phases[i]); err != nil {
			return Result{}, fmt.Errorf("dipgame: resume at %s: %w", rec.Position.Phase, err)
		}
	}
	gm.log.Calls = append(gm.log.Calls, prev.Calls...)
	return gm.play(ctx, w)
}

func newGame(cfg Config, seed uint64, models []llm.ChatModel) (*game, error) {
	cfg = cfg.withDefaults()
	if len(models) != diplomacy.NumPowers {
		return nil, fmt.Errorf("%w: %d models for %d powers", ErrConfig, len(models), diplomacy.NumPowers)
	}
	if cfg.SeatNames != nil && len(cfg.SeatNames) != diplomacy.NumPowers {
		return nil, fmt.Errorf("%w: %d seat names for %d powers", ErrConfig, len(cfg.SeatNames), diplomacy.NumPowers)
	}
	gm := &game{
		cfg: cfg, seed: seed, models: models,
		g:      diplomacy.NewGame(diplomacy.Config{MaxPhases: cfg.MaxPhases}),
		sys:    make([]string, diplomacy.NumPowers),
		hist:   make([][]entry, diplomacy.NumPowers),
		calls:  make([]int, diplomacy.NumPowers),
		rnd:    rand.New(rand.NewPCG(seed, streamRandomOrders)),
		logger: cfg.Logger,
	}
	var powers []string
	for _, p := range diplomacy.Powers() {
		powers = append(powers, p.String())
		gm.sys[p-1] = systemPrompt(p, cfg.MaxPhases)
	}
	gm.log = Log{MapName: "standard", GameID: cfg.GameID, ModelNames: cfg.SeatNames,
		Game: GameLog{Initialization: Initialization{MapName: "standard", Seed: seed, Powers: powers}, Phases: []PhaseLog{}}}
	return gm, nil
}

// play runs the game to its end and writes the log.
func (gm *game) play(ctx context.Context, w io.Writer) (Result, error) {
	err := gm.run(ctx)
	gm.finish()
	if err != nil {
		gm.log.Error = err.Error()
	}
	if werr := gm.log.write(w); werr != nil && err == nil {
		err = fmt.Errorf("dipgame: write log: %w", werr)
	}
	if err != nil {
		return Result{}, err
	}
	return gm.res, nil
}

// replayPhase replays a recorded phase: what every power saw, the random
// draws and the call counts, as the phase was played, and the engine's
// adjudication of the recorded orders.
func (gm *game) replayPhase(rec diplomacy.PhaseRecord, pl PhaseLog) error {
	g := gm.g
	if g.Phase() != rec.Position.Phase || pl.Phase != rec.Position.Phase.String() {
		return fmt.Errorf("%w: the log's phases do not follow the game", diplomacy.ErrState)
	}
	for _, nl := range pl.Negotiation {
		for _, p := range gm.active() {
			gm.calls[p-1]++
			gm.res.Calls++
		}
		gm.deliver(nl.Messages)
		gm.observe(Progress{Kind: ProgressRound, Phase: rec.Position.Phase, Round: &nl})
	}
	poss := g.PossibleOrders()
	for _, p := range diplomacy.Powers() {
		locs := g.OrderableLocations(p)
		if len(locs) == 0 {
			continue
		}
		if gm.models[p-1] == nil {
			gm.randomOrders(locs, poss)
		} else {
			gm.calls[p-1]++
			gm.res.Calls++
			if len(pl.Orders[p.String()]) == 0 {
				gm.res.Unread++
			}
		}
		if err := g.SetOrders(p, rec.Orders[p]); err != nil {
			return err
		}
	}
	gm.res.Fallbacks += len(pl.Fallback)
	for _, r := range pl.OrderLogs {
		gm.res.Rejected += len(r)
	}
	gm.announceOrders()
	done, err := g.Process()
	if err != nil {
		return err
	}
	gm.broadcast(resultsText(done, g))
	gm.log.Game.Phases = append(gm.log.Game.Phases, pl)
	gm.observe(Progress{Kind: ProgressPhase, Phase: rec.Position.Phase, Log: &pl, Record: done})
	gm.observePosition()
	return nil
}

// streamRandomOrders and streamCalls number the seeded random streams.
const (
	streamRandomOrders = 0x64697030_72616e64 // "dip0" "rand"
	streamCalls        = 0x64697030_63616c6c // "dip0" "call"
)

func (gm *game) run(ctx context.Context) error {
	for !gm.g.Done() {
		if err := ctx.Err(); err != nil {
			return err
		}
		gm.boards = make([]string, diplomacy.NumPowers)
		for _, p := range diplomacy.Powers() {
			if !gm.g.Eliminated(p) && gm.models[p-1] != nil {
				gm.boards[p-1] = boardContext(gm.g, p)
			}
		}
		pl := PhaseLog{Phase: gm.g.Phase().String(), Negotiation: []NegotiationLog{}, Orders: map[string][]string{}, OrderLogs: map[string][]diplomacy.Rejection{}}
		if gm.g.Phase().Type == diplomacy.Movement {
			for r := 1; r <= gm.cfg.NegotiationRounds; r++ {
				nl, err := gm.negotiate(ctx, r)
				if err != nil {
					return err
				}
				pl.Negotiation = append(pl.Negotiation, nl)
			}
		}
		if err := gm.orders(ctx, &pl); err != nil {
			return err
		}
		rec, err := gm.g.Process()
		if err != nil {
			return err
		}
		pl.SCCounts = map[string]int{}
		for _, p := range diplomacy.Powers() {
			if !gm.g.Eliminated(p) {
				pl.SCCounts[p.String()] = len(gm.g.Centers(p))
			}
		}
		gm.broadcast(resultsText(rec, gm.g))
		gm.log.Game.Phases = append(gm.log.Game.Phases, pl)
		gm.logger.Debug("dipgame: phase processed", "phase", pl.Phase, "sc", pl.SCCounts)
		gm.observe(Progress{Kind: ProgressPhase, Phase: rec.Position.Phase, Log: &pl, Record: rec})
		gm.observePosition()
	}
	return nil
}

// finish fills the result and the log's outcome from the game.
func (gm *game) finish() {
	g := gm.g
	gm.res.Seed, gm.res.Phase, gm.res.Winner = gm.seed, g.Phase(), g.Winner()
	gm.log.Outcome = []string{g.Phase().String()}
	gm.log.Scores, gm.log.Centers = map[string]float64{}, map[string]int{}
	gm.res.Scores, gm.res.Centers = nil, nil
	for _, p := range diplomacy.Powers() {
		s, n := g.Score(p), len(g.Centers(p))
		gm.res.Scores = append(gm.res.Scores, s)
		gm.res.Centers = append(gm.res.Centers, n)
		gm.log.Scores[p.String()], gm.log.Centers[p.String()] = s, n
		if g.Winner() == diplomacy.NoPower && !g.Eliminated(p) {
			gm.log.Outcome = append(gm.log.Outcome, p.String())
		}
	}
	if g.Winner() != diplomacy.NoPower {
		gm.log.Outcome = append(gm.log.Outcome, g.Winner().String())
	}
	gm.log.History = g.History()
}

// active returns the surviving powers that have a model.
func (gm *game) active() []diplomacy.Power {
	var out []diplomacy.Power
	for _, p := range diplomacy.Powers() {
		if gm.models[p-1] != nil && !gm.g.Eliminated(p) {
			out = append(out, p)
		}
	}
	return out
}

// answer is one power's reply to a question.
type answer struct {
	reply string
	call  *Call
	err   error
}

// askAll asks every power in ps its question, concurrently unless
// Sequential, and returns the replies in ps's order. Histories are only
// read while the calls are in flight.
func (gm *game) askAll(ctx context.Context, ps []diplomacy.Power, action string, question func(diplomacy.Power) string) ([]answer, error) {
	out := make([]answer, len(ps))
	qs := make([]string, len(ps))
	for i, p := range ps {
		qs[i] = question(p)
	}
	one := func(i int) { out[i] = gm.ask(ctx, ps[i], action, qs[i]) }
	if gm.cfg.Sequential || len(ps) == 1 {
		for i := range ps {
			one(i)
		}
	} else {
		var wg sync.WaitGroup
		for i := range ps {
			wg.Go(func() { one(i) })
		}
		wg.Wait()
	}
	for _, a := range out {
		gm.res.Calls++
		if a.call != nil {
			gm.log.Calls = append(gm.log.Calls, *a.call)
		}
	}
	for _, a := range out {
		if a.err != nil {
			return nil, a.err
		}
	}
	return out, nil
}

// ask makes one model call for p.
func (gm *game) ask(ctx context.Context, p diplomacy.Power, action, question string) answer {
	i := int(p) - 1
	msgs := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: gm.sys[i]},
		{Role: agentevolver.RoleUser, Content: gm.historyBlock(i) + "\n\n" + question},
	}
	opts := gm.cfg.Chat
	opts.Seed = new(callSeed(gm.seed, int(p), gm.calls[i]))
	gm.calls[i]++
	c, err := gm.models[i].Chat(ctx, msgs, opts)
	if err != nil {
		if ctx.Err() != nil {
			return answer{err: ctx.Err()}
		}
		return answer{err: fmt.Errorf("%w: %s (%s): %w", ErrModel, p, action, err)}
	}
	reply := clip(c.Message.Content, MaxReplyBytes)
	a := answer{reply: reply}
	if gm.cfg.LogCalls {
		a.call = &Call{Power: p.String(), Phase: gm.g.Phase().String(), Action: action, Prompt: msgs, Reply: reply, TokenIDs: c.TokenIDs}
	}
	return a
}

// callSeed derives the sampling seed of power's k-th call.
func callSeed(seed uint64, power, k int) int64 {
	r := rand.New(rand.NewPCG(seed^uint64(power)<<32^uint64(k), streamCalls))
	return int64(r.Uint64() >> 1)
}

func (gm *game) negotiate(ctx context.Context, round int) (NegotiationLog, error) {
	ps := gm.active()
	nl := NegotiationLog{RoundIdx: round - 1, Messages: []Message{}}
	answers, err := gm.askAll(ctx, ps, "negotiation", func(p diplomacy.Power) string {
		return negotiationQuestion(gm.boards[p-1], gm.g.Phase(), round, gm.cfg.NegotiationRounds)
	})
	if err != nil {
		return nl, err
	}
	for k, a := range answers {
		for _, m := range ParseNegotiation(a.reply, ps[k]) {
			nl.Messages = append(nl.Messages, m)
		}
	}
	gm.deliver(nl.Messages)
	gm.observe(Progress{Kind: ProgressRound, Phase: gm.g.Phase(), Round: &nl})
	return nl, nil
}

// deliver gives each message to the histories of those who see it.
func (gm *game) deliver(msgs []Message) {
	for _, m := range msgs {
		text := m.Sender + " -> " + m.Recipient + ": " + m.Content
		from, err := diplomacy.ParsePower(m.Sender)
		if err != nil {
			continue
		}
		if m.Recipient == Global {
			for i := range gm.hist {
				gm.hist[i] = append(gm.hist[i], entry{m.Sender, text})
			}
			continue
		}
		to, err := diplomacy.ParsePower(m.Recipient)
		if err != nil {
			continue
		}
		gm.hist[to-1] = append(gm.hist[to-1], entry{m.Sender, text})
		gm.hist[from-1] = append(gm.hist[from-1], entry{m.Sender, text})
	}
}

// randomOrders draws one random possible order per location, for a power
// without a model.
func (gm *game) randomOrders(locs []diplomacy.Loc, poss map[diplomacy.Loc][]diplomacy.Order) []string {
	var texts []string
	for _, l := range locs {
		if os := poss[l]; len(os) > 0 {
			texts = append(texts, os[gm.rnd.IntN(len(os))].String())
		}
	}
	return texts
}

// announceOrders shows every power's orders of the phase to everyone.
func (gm *game) announceOrders() {
	for _, p := range diplomacy.Powers() {
		os := gm.g.Orders(p)
		if len(os) == 0 {
			continue
		}
		nl := make([]string, len(os))
		for i, o := range os {
			nl[i] = o.NaturalLanguage()
		}
		gm.broadcast(fmt.Sprintf("%s orders: [%s]", p, strings.Join(nl, ", ")))
	}
}

// orders asks every power with something to order for its orders and
// submits them.
func (gm *game) orders(ctx context.Context, pl *PhaseLog) error {
	g := gm.g
	poss := g.PossibleOrders()
	possOf := func(p diplomacy.Power) map[diplomacy.Loc][]diplomacy.Order {
		out := map[diplomacy.Loc][]diplomacy.Order{}
		for _, l := range g.OrderableLocations(p) {
			out[l] = poss[l]
		}
		return out
	}
	var asked []diplomacy.Power
	for _, p := range diplomacy.Powers() {
		if len(g.OrderableLocations(p)) == 0 {
			continue
		}
		if gm.models[p-1] != nil {
			asked = append(asked, p)
			continue
		}
		// No agent: one random possible order per location.
		if err := gm.submit(p, gm.randomOrders(g.OrderableLocations(p), poss), nil, pl); err != nil {
			return err
		}
		pl.Defaulted = append(pl.Defaulted, p.String())
	}
	answers, err := gm.askAll(ctx, asked, "orders", func(p diplomacy.Power) string { return ordersQuestion(gm.boards[p-1], g, p) })
	if err != nil {
		return err
	}
	for k, a := range answers {
		p := asked[k]
		ch := ParseOrders(g.Map(), a.reply, possOf(p))
		if ch.Fallback {
			gm.res.Fallbacks++
			pl.Fallback = append(pl.Fallback, p.String())
		}
		if len(ch.Orders) == 0 {
			gm.res.Unread++
		}
		if err := gm.submit(p, ch.Orders, ch.Dropped, pl); err != nil {
			return err
		}
	}
	gm.announceOrders()
	return nil
}

// submit gives p's orders to the engine and logs what was refused.
func (gm *game) submit(p diplomacy.Power, texts []string, dropped []diplomacy.Rejection, pl *PhaseLog) error {
	accepted, rejected, err := gm.g.Submit(p, texts)
	if err != nil {
		return err
	}
	rejected = append(slices.Clone(dropped), rejected...)
	gm.res.Rejected += len(rejected)
	if len(rejected) > 0 {
		pl.OrderLogs[p.String()] = rejected
		gm.logger.Debug("dipgame: orders refused", "power", p.String(), "refused", len(rejected))
	}
	out := make([]string, len(accepted))
	for i, o := range accepted {
		out[i] = o.String()
	}
	pl.Orders[p.String()] = out
	return nil
}

// resultsText announces a processed phase: the orders that did not
// succeed, the dislodged units and the supply-centre counts.
func resultsText(rec *diplomacy.PhaseRecord, g *diplomacy.Game) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Results of %s:", rec.Position.Phase)
	n := 0
	for _, r := range rec.Results {
		if r.Result != 0 {
			fmt.Fprintf(&b, " %s (%s);", r.Order, r.Result)
			n++
		}
	}
	if n == 0 {
		b.WriteString(" every order succeeded;")
	}
	var sc []string
	for _, p := range diplomacy.Powers() {
		if !g.Eliminated(p) {
			sc = append(sc, fmt.Sprintf("%s %d", p, len(g.Centers(p))))
		}
	}
	fmt.Fprintf(&b, " supply centres: %s. Next phase: %s.", strings.Join(sc, ", "), g.Phase())
	return b.String()
}

func (gm *game) broadcast(text string) {
	for i := range gm.hist {
		gm.hist[i] = append(gm.hist[i], entry{Moderator, text})
	}
}

// historyBlock renders power i's history in the reference's layout
// (<agent:NAME>text</agent:NAME> lines inside <history> tags), newest
// messages kept within MaxHistoryBytes.
func (gm *game) historyBlock(i int) string {
	h := gm.hist[i]
	var lines []string
	total, start := 0, len(h)
	for k := len(h) - 1; k >= 0; k-- {
		line := "<agent:" + h[k].from + ">" + h[k].text + "</agent:" + h[k].from + ">"
		if total+len(line)+1 > gm.cfg.MaxHistoryBytes {
			break
		}
		total += len(line) + 1
		lines = append(lines, line)
		start = k
	}
	slices.Reverse(lines)
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
