package avalon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
	"github.com/org/agentevolver/llm"
)

// EnvName is the environment type Env is registered as (env.type avalon).
const EnvName = "avalon"

// Opponent model names every Env knows (EnvConfig.Opponents).
const (
	// OpponentRandom is the Random baseline: legal random moves.
	OpponentRandom = "random"
	// OpponentInformed is Random with Informed set: it plays on what its
	// seat knows.
	OpponentInformed = "informed"
	// OpponentSaboteur is Random whose Evil players always fail quests.
	OpponentSaboteur = "saboteur"
	// OpponentCautious is Random that rarely approves a team and never
	// fails a quest.
	OpponentCautious = "cautious"
)

// Defaults of EnvConfig's zero fields.
const (
	// DefaultTrainTasks, DefaultValTasks and DefaultTestTasks are the
	// sizes of the splits.
	DefaultTrainTasks = 256
	DefaultValTasks   = 32
	DefaultTestTasks  = 32
	// DefaultOpponentMaxTokens bounds an opponent model's reply
	// (EnvConfig.OpponentMaxTokens).
	DefaultOpponentMaxTokens = 256
	// DefaultCorpusGames is the number of games Corpus plays.
	DefaultCorpusGames = 4
)

// Splits of an Env.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Errors of Env, for errors.Is. ErrUnknownTask, ErrUnknownSplit and
// ErrNoQuestion also match envclient.ErrBadRequest.
var (
	// ErrUnknownTask reports a task id that does not parse, or names a
	// player count, seat, role or opponent model the environment cannot
	// play.
	ErrUnknownTask = envkit.Kind("avalon: unknown task", envclient.ErrBadRequest)
	// ErrUnknownSplit reports a split other than train, val and test.
	ErrUnknownSplit = envkit.Kind("avalon: unknown split", envclient.ErrBadRequest)
	// ErrNoQuestion reports a step sent when the trained seat has not been
	// asked anything: the game is over.
	ErrNoQuestion = envkit.Kind("avalon: the trained seat was not asked anything", envclient.ErrBadRequest)
	// ErrNoDemonstration is returned by Env.Demonstrate when the informed
	// baseline, playing the trained seat, lost the task's game: there is
	// no winning play to imitate for that task.
	ErrNoDemonstration = errors.New("avalon: the informed baseline lost this game")
)

// EnvConfig configures an Env. The zero value is usable: 5-player games,
// the trained seat drawn per task, every other seat played by the informed
// baseline. Its YAML keys are those of a run configuration's env.avalon
// section (Game's players, the optional roles, max_retries and
// max_history_bytes among them); the fields that hold code or are set
// per game have none.
type EnvConfig struct {
	// Game configures every game (optional roles, MaxRetries,
	// MaxHistoryBytes, AllowGoodFail, Sequential, Chat for the opponents'
	// sampling). Game.Players is the player count of listed tasks (0:
	// DefaultPlayers); SeatNames, LogCalls and Logger are not used.
	Game Config `yaml:",inline"`
	// Seat chooses the trained seat of listed tasks: "" or "any" draws it
	// from each task's seed, so that the policy plays every role in turn;
	// a number fixes it.
	Seat string `yaml:"seat"`
	// Role, when set ("Merlin", "Servant", "Assassin", …), trains the seat
	// dealt that role in each game instead of Seat.
	Role string `yaml:"role"`
	// Opponents names the models of the other seats of listed tasks: one
	// name for all of them, or one per other seat in seat order. Names are
	// the built-in baselines (OpponentRandom, OpponentInformed,
	// OpponentSaboteur, OpponentCautious, as in the arena's command line)
	// and the keys of Models; empty means OpponentInformed.
	Opponents []string `yaml:"opponents"`
	// Models adds named opponent models: fixed endpoints, or earlier
	// snapshots of the policy loaded as llm.ChatModels. A name here
	// shadows a built-in one. The models must be safe for concurrent use
	// (several seats and instances call them at once) and should answer
	// deterministically for the same request and ChatOptions.Seed, or the
	// same task no longer gives the same game.
	Models map[string]llm.ChatModel `yaml:"-"`
	// Snapshots names opponent models saved as policy directories (a
	// run's final/ or reference/, a checkpoint's model/, holding their
	// tokenizer.json), by the name Opponents uses: the policy against
	// earlier snapshots of itself. NewEnv does not load them: whoever
	// builds the environment loads each into Models under its name
	// (package envs/builtin does, with its Config.LoadPolicy), and NewEnv
	// rejects a snapshot missing from Models.
	Snapshots map[string]string `yaml:"snapshots"`
	// OpponentMaxTokens bounds an opponent model's reply when
	// Game.Chat.MaxTokens is 0 (0: DefaultOpponentMaxTokens), and
	// OpponentTemperature is its sampling temperature when
	// Game.Chat.Temperature is nil (0: greedy). The built-in baselines
	// ignore both.
	OpponentMaxTokens   int     `yaml:"opponent_max_tokens"`
	OpponentTemperature float64 `yaml:"opponent_temperature"`
	// Seed selects the task seeds; the splits draw from distinct streams
	// and never share a game seed.
	Seed uint64 `yaml:"seed"`
	// TrainTasks, ValTasks and TestTasks are the split sizes (0: the
	// defaults above).
	TrainTasks int `yaml:"train_size"`
	ValTasks   int `yaml:"val_size"`
	TestTasks  int `yaml:"test_size"`
	// CorpusGames is the number of games Corpus plays (0:
	// DefaultCorpusGames).
	CorpusGames int `yaml:"corpus_games"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// Env is Avalon as a training environment for one seat
// (envservice.Environment). A task is a game: its seed, the player count,
// the trained seat (or the role whose seat is trained) and the opponents'
// models. An instance starts the game with Play; every call of the
// trained seat's model becomes a step of the episode:
//
//   - the observation (the initial state, then each step's state) is the
//     request Play sends that seat, message for message: its system
//     prompt and the user message with its history and the question,
//     followed, when an earlier answer could not be read, by that answer
//     and the moderator's re-ask. Nothing else reaches the policy: no
//     other seat's prompt, role or thinking, only what the seat may see;
//   - the action is the policy's reply, parsed by Play exactly as any
//     seat's (re-asked up to Game.MaxRetries times, then the documented
//     fallback);
//   - the other seats are played by their fixed models until the trained
//     seat is asked again (the next step's state) or the game ends (a
//     terminal step whose state says who won).
//
// Reward (Evaluate): 1 when the trained seat's side won the game, 0 when
// it lost, and 0 for a game the episode left unfinished (rollout.max_steps
// reached first, or a prompt that no longer fit the policy's context
// window; set max_steps well above a game's calls, about 15-60 for five
// players, and bound the history with Game.MaxHistoryBytes). Unreadable replies are not penalised beyond what their
// fallback costs the side in the game. A step's reward is 0 except on the
// terminal step, which carries the outcome.
//
// The same task and the same policy replies give the same game: the deal,
// the fallbacks and every opponent call are seeded from the task seed.
//
// Optional capabilities: Expert (the informed baseline's play of the
// trained seat in the games its side wins, for the warm start) and
// CorpusProvider (the prompts and replies of a few such games, to learn a
// tokenizer from). Env is safe for concurrent use.
type Env struct {
	cfg    EnvConfig
	splits arena.Splits
	logger *slog.Logger
}

var (
	_ envservice.Environment    = (*Env)(nil)
	_ envservice.Expert         = (*Env)(nil)
	_ envservice.CorpusProvider = (*Env)(nil)
)

// NewEnv returns an Env. It fails with ErrConfig for a configuration whose
// listed tasks could not be played (player count, roles, seat, role or
// opponent names).
func NewEnv(cfg EnvConfig) (*Env, error) {
	if cfg.Game.Players == 0 {
		cfg.Game.Players = DefaultPlayers
	}
	if len(cfg.Opponents) == 0 {
		cfg.Opponents = []string{OpponentInformed}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.TrainTasks, DefaultTrainTasks)
	def(&cfg.ValTasks, DefaultValTasks)
	def(&cfg.TestTasks, DefaultTestTasks)
	def(&cfg.CorpusGames, DefaultCorpusGames)
	def(&cfg.OpponentMaxTokens, DefaultOpponentMaxTokens)
	if cfg.Game.Chat.MaxTokens == 0 {
		cfg.Game.Chat.MaxTokens = cfg.OpponentMaxTokens
	}
	if cfg.Game.Chat.Temperature == nil {
		cfg.Game.Chat.Temperature = llm.Float(cfg.OpponentTemperature)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Snapshots)) {
		if _, ok := cfg.Models[name]; !ok {
			return nil, fmt.Errorf("%w: snapshot %q (%s) is not loaded into Models", ErrConfig, name, cfg.Snapshots[name])
		}
	}
	if cfg.TrainTasks < 0 || cfg.ValTasks < 0 || cfg.TestTasks < 0 || cfg.CorpusGames < 0 {
		return nil, fmt.Errorf("%w: negative task count", ErrConfig)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	e := &Env{cfg: cfg, logger: logger, splits: arena.Splits{Seed: cfg.Seed, Train: cfg.TrainTasks, Val: cfg.ValTasks, Test: cfg.TestTasks}}
	// Every listed task must be playable: check one of each kind.
	t, err := e.listedTask(SplitTrain, 0)
	if err != nil {
		return nil, err
	}
	if _, err := e.resolve(t); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return e, nil
}

// EnvTask is one task of an Env: a game and the seat it trains. Its ID is
// self-describing, so any id that parses is a playable task, listed or
// not.
type EnvTask struct {
	// Seed is the game seed.
	Seed uint64
	// Players is the player count.
	Players int
	// Seat is the trained seat; ignored when Role is set.
	Seat int
	// Role, when not empty, trains the seat dealt this role.
	Role string
	// Opponents names the other seats' models: one for all, or one per
	// other seat in seat order.
	Opponents []string
}

// ID returns the task id, for example
// "seed=17,players=5,seat=2,opponents=informed" or
// "seed=17,players=5,role=Merlin,opponents=random+informed+random+random".
func (t EnvTask) ID() string {
	who := "seat=" + strconv.Itoa(t.Seat)
	if t.Role != "" {
		who = "role=" + t.Role
	}
	return fmt.Sprintf("seed=%d,players=%d,%s,opponents=%s", t.Seed, t.Players, who, strings.Join(t.Opponents, "+"))
}

// ParseEnvTask parses a task id written by EnvTask.ID. It fails with
// ErrUnknownTask.
func ParseEnvTask(id string) (EnvTask, error) {
	var t EnvTask
	bad := func(why string) (EnvTask, error) {
		return EnvTask{}, fmt.Errorf("%w %.128q: %s", ErrUnknownTask, id, why)
	}
	seen := map[string]bool{}
	for field := range strings.SplitSeq(id, ",") {
		k, v, ok := strings.Cut(field, "=")
		if !ok || seen[k] {
			return bad("want seed=,players=,seat= or role=,opponents= fields")
		}
		seen[k] = true
		var err error
		switch k {
		case "seed":
			t.Seed, err = strconv.ParseUint(v, 10, 64)
		case "players":
			t.Players, err = strconv.Atoi(v)
		case "seat":
			t.Seat, err = strconv.Atoi(v)
		case "role":
			var r Role
			err = r.UnmarshalText([]byte(v))
			t.Role = v
		case "opponents":
			t.Opponents = strings.Split(v, "+")
		default:
			return bad("unknown field " + k)
		}
		if err != nil {
			return bad(k + ": " + err.Error())
		}
	}
	if !seen["seed"] || !seen["players"] || !seen["opponents"] || seen["seat"] == seen["role"] {
		return bad("want seed=,players=,seat= or role=,opponents= fields")
	}
	return t, nil
}

// listedTask is the k-th task of split.
func (e *Env) listedTask(split string, k int) (EnvTask, error) {
	seed, ok := e.splits.TaskSeed(split, k)
	if !ok {
		return EnvTask{}, fmt.Errorf("%w %.32q (want train, val or test)", ErrUnknownSplit, split)
	}
	t := EnvTask{Seed: seed, Players: e.cfg.Game.Players, Role: e.cfg.Role, Opponents: e.cfg.Opponents}
	switch {
	case t.Role != "":
	case e.cfg.Seat == "" || e.cfg.Seat == "any":
		t.Seat = rand.New(rand.NewPCG(seed, streamSeat)).IntN(t.Players)
	default:
		seat, err := strconv.Atoi(e.cfg.Seat)
		if err != nil {
			return EnvTask{}, fmt.Errorf("%w: seat %q: want \"any\" or a seat number", ErrConfig, e.cfg.Seat)
		}
		t.Seat = seat
	}
	return t, nil
}

// streamSeat draws the trained seat of a listed task.
const streamSeat = 0x61766c6e_73656174 // "avln" "seat"

// TaskIDs lists the ids of split: train, val or test.
func (e *Env) TaskIDs(ctx context.Context, split string, _ map[string]any) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, ok := e.splits.Size(split)
	if !ok {
		return nil, fmt.Errorf("%w %.32q (want train, val or test)", ErrUnknownSplit, split)
	}
	ids := make([]string, 0, n)
	for k := range n {
		t, err := e.listedTask(split, k)
		if err != nil {
			return nil, err
		}
		ids = append(ids, t.ID())
	}
	return ids, nil
}

// resolved is a task made playable: its configuration, its trained seat and
// the models of the other seats.
type resolved struct {
	cfg    Config
	seat   int
	role   Role
	models []llm.ChatModel // nil at seat
}

// resolve checks t and builds its seats (the trained one left nil).
func (e *Env) resolve(t EnvTask) (resolved, error) {
	cfg := e.cfg.Game
	cfg.Players, cfg.SeatNames, cfg.LogCalls, cfg.Logger = t.Players, nil, false, nil
	s, err := SetupFor(t.Players)
	if err != nil {
		return resolved{}, fmt.Errorf("%w: %w", ErrUnknownTask, err)
	}
	deal, err := DealRoles(t.Seed, s, cfg.Roles)
	if err != nil {
		return resolved{}, fmt.Errorf("%w: %w", ErrUnknownTask, err)
	}
	seat := t.Seat
	if t.Role != "" {
		var role Role
		if err := role.UnmarshalText([]byte(t.Role)); err != nil {
			return resolved{}, fmt.Errorf("%w: %w", ErrUnknownTask, err)
		}
		seat = slices.Index(deal.Roles, role)
		if seat < 0 {
			return resolved{}, fmt.Errorf("%w: no %s in a %d-player game with these roles", ErrUnknownTask, role, t.Players)
		}
	}
	if seat < 0 || seat >= t.Players {
		return resolved{}, fmt.Errorf("%w: seat %d of %d players", ErrUnknownTask, seat, t.Players)
	}
	if len(t.Opponents) != 1 && len(t.Opponents) != t.Players-1 {
		return resolved{}, fmt.Errorf("%w: %d opponent models for %d other seats (want 1 or %d)", ErrUnknownTask, len(t.Opponents), t.Players-1, t.Players-1)
	}
	models := make([]llm.ChatModel, t.Players)
	k := 0
	for i := range models {
		if i == seat {
			continue
		}
		name := t.Opponents[min(k, len(t.Opponents)-1)]
		k++
		m, err := e.model(name)
		if err != nil {
			return resolved{}, err
		}
		models[i] = m
	}
	return resolved{cfg: cfg, seat: seat, role: deal.Roles[seat], models: models}, nil
}

// model returns the opponent model called name.
func (e *Env) model(name string) (llm.ChatModel, error) {
	if m, ok := e.cfg.Models[name]; ok && m != nil {
		return m, nil
	}
	switch name {
	case OpponentRandom:
		return Random{}, nil
	case OpponentInformed:
		return Random{Informed: true}, nil
	case OpponentSaboteur:
		return Random{FailProb: 1}, nil
	case OpponentCautious:
		return Random{ApproveProb: 0.2, FailProb: -1}, nil
	}
	known := []string{OpponentCautious, OpponentInformed, OpponentRandom, OpponentSaboteur}
	for n := range e.cfg.Models {
		known = append(known, n)
	}
	slices.Sort(known)
	return nil, fmt.Errorf("%w: opponent model %.64q (known: %s)", ErrUnknownTask, name, strings.Join(known, ", "))
}

// New starts the game of taskID; its first question to the trained seat
// is the instance's initial state.
func (e *Env) New(ctx context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := ParseEnvTask(taskID)
	if err != nil {
		return nil, err
	}
	r, err := e.resolve(t)
	if err != nil {
		return nil, err
	}
	return e.start(ctx, t, r), nil
}

// start runs the game of t in its own goroutine.
func (e *Env) start(ctx context.Context, t EnvTask, r resolved) *envInstance {
	in := &envInstance{task: t, seat: r.seat, role: r.role}
	in.game = arena.StartSeat(ctx, func(ctx context.Context, m llm.ChatModel) (err error) {
		seats := slices.Clone(r.models)
		seats[r.seat] = m
		if in.res, err = Play(ctx, r.cfg, t.Seed, seats, nil); err != nil {
			return fmt.Errorf("avalon: game %s: %w", t.ID(), err)
		}
		return nil
	})
	return in
}

// envInstance is one game in play. The Manager serialises its methods;
// res is written by the game goroutine before game reports the end.
type envInstance struct {
	task   EnvTask
	seat   int
	role   Role
	game   *arena.Seat
	res    Result
	reasks int // calls of the trained seat that re-asked an unreadable answer
}

// next waits until the trained seat is asked (a question) or the game
// ends, and returns what the episode sees.
func (in *envInstance) next(ctx context.Context) (envclient.StepResult, error) {
	msgs, over, err := in.game.Next(ctx)
	if err != nil {
		return envclient.StepResult{}, err
	}
	if !over {
		info := map[string]any{"call": in.game.Asked() - 1, "seat": in.seat}
		if len(msgs) > 2 {
			in.reasks++
			info["reask"] = true
		}
		if q, err := ReadQuestion(msgs); err == nil {
			info["action"] = string(q.Action)
		}
		return envclient.StepResult{State: msgs, Info: info}, nil
	}
	won := in.res.Won(in.seat)
	verdict := "lost"
	reward := 0.0
	if won {
		verdict, reward = "won", 1
	}
	winner := "Evil"
	if in.res.GoodWins {
		winner = "Good"
	}
	text := fmt.Sprintf("Game over: %s wins (%s). Your side (%s) %s.", winner, in.res.Reason, in.role.Side(), verdict)
	return envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: text}},
		Reward:       reward,
		IsTerminated: true,
		Info:         map[string]any{"won": won, "calls": in.game.Asked(), "reasks": in.reasks, "seat": in.seat},
	}, nil
}

// InitState returns the trained seat's first question: its system prompt
// and the user message with the history so far and the question.
func (in *envInstance) InitState(ctx context.Context, _ map[string]any) (envclient.InitState, error) {
	if in.game.Asked() > 0 || in.game.Over() {
		return envclient.InitState{}, fmt.Errorf("%w: initial state asked twice", envclient.ErrBadRequest)
	}
	r, err := in.next(ctx)
	if err != nil {
		return envclient.InitState{}, err
	}
	if r.IsTerminated {
		return envclient.InitState{}, fmt.Errorf("avalon: game %s ended before seat %d was asked", in.task.ID(), in.seat)
	}
	return envclient.InitState{State: r.State, Info: r.Info}, nil
}

// Step answers the pending question with action's text and runs the game
// until the trained seat is asked again or the game ends.
func (in *envInstance) Step(ctx context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	if !in.game.Answer(action.Content) {
		return envclient.StepResult{}, ErrNoQuestion
	}
	return in.next(ctx)
}

// Evaluate returns 1 when the trained seat's side won, 0 when it lost or
// the game is unfinished.
func (in *envInstance) Evaluate(context.Context, map[string]any) (float64, error) {
	if !in.game.Over() || !in.res.Won(in.seat) {
		return 0, nil
	}
	return 1, nil
}

// Info describes the task: no secret of any seat but the trained seat's
// own role.
func (in *envInstance) Info(context.Context, map[string]any) (any, error) {
	return map[string]any{
		"task_id": in.task.ID(), "seed": in.task.Seed, "players": in.task.Players,
		"seat": in.seat, "role": in.role.String(), "calls": in.game.Asked(), "finished": in.game.Over(),
	}, nil
}

// Close stops the game and waits for its goroutine (and the vote
// goroutines under it) to end. Opponent models must honour their context
// for Close to return promptly.
func (in *envInstance) Close() error { return in.game.Close() }

// playAs plays the game of taskID with model in the trained seat and
// returns the result, the seat and what the seat was asked and answered.
func (e *Env) playAs(ctx context.Context, taskID string, model llm.ChatModel) (Result, int, *arena.Recorder, error) {
	t, err := ParseEnvTask(taskID)
	if err != nil {
		return Result{}, 0, nil, err
	}
	r, err := e.resolve(t)
	if err != nil {
		return Result{}, 0, nil, err
	}
	rec := &arena.Recorder{Model: model}
	seats := slices.Clone(r.models)
	seats[r.seat] = rec
	res, err := Play(ctx, r.cfg, t.Seed, seats, nil)
	if err != nil {
		return Result{}, 0, nil, err
	}
	return res, r.seat, rec, nil
}

// Demonstrate implements envservice.Expert: the informed baseline plays
// the trained seat, and when its side wins, its replies (one assistant
// message per call) are the demonstration; sent to a fresh instance of
// taskID one per step they replay the same game to the same win. When
// its side loses the error wraps ErrNoDemonstration (the trainer's warm
// start skips the task).
func (e *Env) Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error) {
	res, seat, rec, err := e.playAs(ctx, taskID, Random{Informed: true})
	if err != nil {
		return nil, err
	}
	if !res.Won(seat) {
		return nil, fmt.Errorf("%w (seat %d, %s)", ErrNoDemonstration, seat, res.Roles[seat])
	}
	return rec.Demonstration(), nil
}

// Corpus implements envservice.CorpusProvider: the system prompts, user
// messages and replies of the trained seat in the games of the split's
// first CorpusGames tasks, played by the informed baseline, in call
// order (system prompts once each).
func (e *Env) Corpus(ctx context.Context, split string) ([]string, error) {
	ids, err := e.TaskIDs(ctx, split, nil)
	if err != nil {
		return nil, err
	}
	var docs []string
	seen := map[string]bool{}
	for _, id := range ids[:min(len(ids), e.cfg.CorpusGames)] {
		_, _, rec, err := e.playAs(ctx, id, Random{Informed: true})
		if err != nil {
			return nil, err
		}
		docs = append(docs, rec.Corpus(seen)...)
	}
	return docs, nil
}
