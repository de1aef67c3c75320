package dipgame

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
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
	"github.com/org/agentevolver/llm"
)

// EnvName is the environment type Env is registered as (env.type
// diplomacy).
const EnvName = "diplomacy"

// Opponent model names every Env knows (EnvConfig.Opponents).
const (
	// OpponentRandom is the Random baseline.
	OpponentRandom = "random"
	// OpponentGreedy is the Greedy baseline.
	OpponentGreedy = "greedy"
)

// Defaults of EnvConfig's zero fields.
const (
	// DefaultTrainTasks, DefaultValTasks and DefaultTestTasks are the
	// sizes of the splits.
	DefaultTrainTasks = 256
	DefaultValTasks   = 32
	DefaultTestTasks  = 32
	// DefaultOpponentMaxTokens bounds an opponent model's reply.
	DefaultOpponentMaxTokens = 512
	// DefaultCorpusGames is the number of games Corpus plays.
	DefaultCorpusGames = 2
)

// Splits of an Env.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Errors of Env, for errors.Is; they also match envclient.ErrBadRequest.
var (
	// ErrUnknownTask reports a task id that does not parse or names a
	// power or opponent model the environment cannot play.
	ErrUnknownTask = envkit.Kind("dipgame: unknown task", envclient.ErrBadRequest)
	// ErrUnknownSplit reports a split other than train, val and test.
	ErrUnknownSplit = envkit.Kind("dipgame: unknown split", envclient.ErrBadRequest)
	// ErrNotAsked reports a step sent when the trained power has not been
	// asked anything: the game is over.
	ErrNotAsked = envkit.Kind("dipgame: the trained power was not asked anything", envclient.ErrBadRequest)
	// ErrNoDemonstration is returned by Env.Demonstrate when the greedy
	// baseline, playing the trained power, did not win the task's game.
	ErrNoDemonstration = errors.New("dipgame: the greedy baseline did not win this game")
)

// EnvConfig configures an Env. The zero value is usable: the reference's
// 20-phase game with 3 negotiation rounds, the trained power drawn per
// task, every other power played by the greedy baseline. Its YAML keys
// are those of a run configuration's env.diplomacy section.
type EnvConfig struct {
	// Game configures every game (MaxPhases, NegotiationRounds,
	// MaxHistoryBytes, Sequential, Chat for the opponents' sampling);
	// SeatNames, GameID, LogCalls and Logger are not used.
	Game Config `yaml:",inline"`
	// Power chooses the trained power of listed tasks: "" or "any" draws
	// it from each task's seed; a power's name ("FRANCE") fixes it.
	Power string `yaml:"power"`
	// Opponents names the models of the other powers: one name for all,
	// or one per other power in diplomacy.Powers order. Names are the
	// built-in baselines (OpponentRandom, OpponentGreedy) and the keys of
	// Models; empty means OpponentGreedy.
	Opponents []string `yaml:"opponents"`
	// Models adds named opponent models (fixed endpoints, earlier
	// snapshots of the policy); a name here shadows a built-in one. They
	// must be safe for concurrent use.
	Models map[string]llm.ChatModel `yaml:"-"`
	// Snapshots names opponent models saved as policy directories, by the
	// name Opponents uses; whoever builds the environment loads each into
	// Models (package envs/builtin does), and NewEnv rejects a snapshot
	// missing from Models.
	Snapshots map[string]string `yaml:"snapshots"`
	// OpponentMaxTokens bounds an opponent model's reply when
	// Game.Chat.MaxTokens is 0 (0: DefaultOpponentMaxTokens), and
	// OpponentTemperature is its temperature when Game.Chat.Temperature
	// is nil (0: greedy). The baselines ignore both.
	OpponentMaxTokens   int     `yaml:"opponent_max_tokens"`
	OpponentTemperature float64 `yaml:"opponent_temperature"`
	// Seed selects the task seeds; the splits never share a game seed.
	Seed uint64 `yaml:"seed"`
	// TrainTasks, ValTasks and TestTasks are the split sizes.
	TrainTasks int `yaml:"train_size"`
	ValTasks   int `yaml:"val_size"`
	TestTasks  int `yaml:"test_size"`
	// CorpusGames is the number of games Corpus plays (0:
	// DefaultCorpusGames).
	CorpusGames int `yaml:"corpus_games"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// Env is Diplomacy as a training environment for one power
// (envservice.Environment), the reference's DiplomacyWorkflow (§1.4.3)
// served as an environment. A task is a game: its seed, the trained
// power and the other powers' models. An instance starts the game with
// Play; every call of the trained power's model is a step:
//
//   - the observation is the request Play sends that power (its system
//     prompt and the user message with its history, the current board
//     and the question: negotiation messages or orders);
//   - the action is the policy's reply, read by Play as any power's
//     (ParseNegotiation, ParseOrders);
//   - the other powers play until the trained power is asked again or
//     the game ends (a terminal step).
//
// Reward (Evaluate): the power's score at the end, 0 if eliminated else
// min(centres/18, 1) (§1.3.5); 0 for a game the episode left unfinished
// (rollout.max_steps reached first). A step's reward is 0 except on the
// terminal step.
//
// Optional capabilities: Expert (the greedy baseline's play of the
// trained power in the games it wins, for the warm start) and
// CorpusProvider. Env is safe for
// concurrent use.
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

// NewEnv returns an Env. It fails with ErrConfig for a configuration
// whose tasks could not be played.
func NewEnv(cfg EnvConfig) (*Env, error) {
	if len(cfg.Opponents) == 0 {
		cfg.Opponents = []string{OpponentGreedy}
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
	if cfg.Game.MaxPhases < 0 {
		return nil, fmt.Errorf("%w: negative max_phases", ErrConfig)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	e := &Env{cfg: cfg, logger: logger, splits: arena.Splits{Seed: cfg.Seed, Train: cfg.TrainTasks, Val: cfg.ValTasks, Test: cfg.TestTasks}}
	t, err := e.listedTask(SplitTrain, 0)
	if err != nil {
		return nil, err
	}
	if _, err := e.resolve(t); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return e, nil
}

// EnvTask is one task of an Env: a game and the power it trains. Its ID
// is self-describing, so any id that parses is a playable task.
type EnvTask struct {
	// Seed is the game seed.
	Seed uint64
	// Power is the trained power.
	Power diplomacy.Power
	// Opponents names the other powers' models: one for all, or one per
	// other power in diplomacy.Powers order.
	Opponents []string
}

// ID returns the task id, for example
// "seed=17,power=FRANCE,opponents=greedy".
func (t EnvTask) ID() string {
	return fmt.Sprintf("seed=%d,power=%s,opponents=%s", t.Seed, t.Power, strings.Join(t.Opponents, "+"))
}

// ParseEnvTask parses a task id written by EnvTask.ID. It fails with
// ErrUnknownTask.
func ParseEnvTask(id string) (EnvTask, error) {
	var t EnvTask
	bad := func(why string) (EnvTask, error) {
		return EnvTask{}, fmt.Errorf("%w %.128q: %s", ErrUnknownTask, id, why)
	}
	if len(id) > 4096 {
		return bad("too long")
	}
	seen := map[string]bool{}
	for field := range strings.SplitSeq(id, ",") {
		k, v, ok := strings.Cut(field, "=")
		if !ok || seen[k] {
			return bad("want seed=,power=,opponents= fields")
		}
		seen[k] = true
		var err error
		switch k {
		case "seed":
			t.Seed, err = strconv.ParseUint(v, 10, 64)
		case "power":
			t.Power, err = diplomacy.ParsePower(v)
		case "opponents":
			t.Opponents = strings.Split(v, "+")
		default:
			return bad("unknown field " + k)
		}
		if err != nil {
			return bad(k + ": " + err.Error())
		}
	}
	if !seen["seed"] || !seen["power"] || !seen["opponents"] {
		return bad("want seed=,power=,opponents= fields")
	}
	return t, nil
}

// streamPower draws the trained power of a listed task.
const streamPower = 0x64697030_706f7772 // "dip0" "powr"

// listedTask is the k-th task of split.
func (e *Env) listedTask(split string, k int) (EnvTask, error) {
	seed, ok := e.splits.TaskSeed(split, k)
	if !ok {
		return EnvTask{}, fmt.Errorf("%w %.32q (want train, val or test)", ErrUnknownSplit, split)
	}
	t := EnvTask{Seed: seed, Opponents: e.cfg.Opponents}
	if e.cfg.Power == "" || strings.EqualFold(e.cfg.Power, "any") {
		t.Power = diplomacy.Powers()[rand.New(rand.NewPCG(seed, streamPower)).IntN(diplomacy.NumPowers)]
		return t, nil
	}
	p, err := diplomacy.ParsePower(e.cfg.Power)
	if err != nil {
		return EnvTask{}, fmt.Errorf("%w: power %q: want \"any\" or a power's name", ErrConfig, e.cfg.Power)
	}
	t.Power = p
	return t, nil
}

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

// resolve checks t and returns the other powers' models (nil at the
// trained power's index).
func (e *Env) resolve(t EnvTask) ([]llm.ChatModel, error) {
	if !t.Power.Valid() {
		return nil, fmt.Errorf("%w: power %v", ErrUnknownTask, t.Power)
	}
	if len(t.Opponents) != 1 && len(t.Opponents) != diplomacy.NumPowers-1 {
		return nil, fmt.Errorf("%w: %d opponent models for %d other powers (want 1 or %d)", ErrUnknownTask, len(t.Opponents), diplomacy.NumPowers-1, diplomacy.NumPowers-1)
	}
	models := make([]llm.ChatModel, diplomacy.NumPowers)
	k := 0
	for i, p := range diplomacy.Powers() {
		if p == t.Power {
			continue
		}
		m, err := e.model(t.Opponents[min(k, len(t.Opponents)-1)], t.Seed, i)
		if err != nil {
			return nil, err
		}
		k++
		models[i] = m
	}
	return models, nil
}

// model returns the opponent model called name for the power at index i.
func (e *Env) model(name string, seed uint64, i int) (llm.ChatModel, error) {
	if m, ok := e.cfg.Models[name]; ok && m != nil {
		return m, nil
	}
	switch name {
	case OpponentRandom:
		return Random{Seed: seed ^ uint64(i)}, nil
	case OpponentGreedy:
		return Greedy{}, nil
	}
	known := []string{OpponentGreedy, OpponentRandom}
	for n := range e.cfg.Models {
		known = append(known, n)
	}
	slices.Sort(known)
	return nil, fmt.Errorf("%w: opponent model %.64q (known: %s)", ErrUnknownTask, name, strings.Join(known, ", "))
}

// gameConfig is the configuration of a task's game.
func (e *Env) gameConfig() Config {
	cfg := e.cfg.Game
	cfg.SeatNames, cfg.GameID, cfg.LogCalls, cfg.Logger = nil, "", false, nil
	return cfg
}

// New starts the game of taskID; its first question to the trained power
// is the instance's initial state.
func (e *Env) New(ctx context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := ParseEnvTask(taskID)
	if err != nil {
		return nil, err
	}
	models, err := e.resolve(t)
	if err != nil {
		return nil, err
	}
	in := &envInstance{task: t}
	in.game = arena.StartSeat(ctx, func(ctx context.Context, m llm.ChatModel) (err error) {
		models[t.Power-1] = m
		if in.res, err = Play(ctx, e.gameConfig(), t.Seed, models, nil); err != nil {
			return fmt.Errorf("dipgame: game %s: %w", t.ID(), err)
		}
		return nil
	})
	return in, nil
}

// envInstance is one game in play. The Manager serialises its methods;
// res is written by the game goroutine before game reports the end.
type envInstance struct {
	task EnvTask
	game *arena.Seat
	res  Result
}

// next waits until the trained power is asked or the game ends.
func (in *envInstance) next(ctx context.Context) (envclient.StepResult, error) {
	msgs, over, err := in.game.Next(ctx)
	if err != nil {
		return envclient.StepResult{}, err
	}
	if !over {
		info := map[string]any{"call": in.game.Asked() - 1, "power": in.task.Power.String()}
		if q, err := ReadQuestion(diplomacy.Standard(), msgs); err == nil {
			info["phase"] = q.Phase.String()
			info["action"] = "orders"
			if q.Negotiation {
				info["action"] = "negotiation"
			}
		}
		return envclient.StepResult{State: msgs, Info: info}, nil
	}
	p := in.task.Power
	score := in.res.Score(p)
	text := fmt.Sprintf("Game over at %s: %s has %d supply centres, score %.3f.", in.res.Phase, p, in.res.Centers[p-1], score)
	return envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: text}},
		Reward:       score,
		IsTerminated: true,
		Info:         map[string]any{"score": score, "centers": in.res.Centers[p-1], "calls": in.game.Asked(), "power": p.String()},
	}, nil
}

// InitState returns the trained power's first question.
func (in *envInstance) InitState(ctx context.Context, _ map[string]any) (envclient.InitState, error) {
	if in.game.Asked() > 0 || in.game.Over() {
		return envclient.InitState{}, fmt.Errorf("%w: initial state asked twice", envclient.ErrBadRequest)
	}
	r, err := in.next(ctx)
	if err != nil {
		return envclient.InitState{}, err
	}
	if r.IsTerminated {
		return envclient.InitState{}, fmt.Errorf("dipgame: game %s ended before %s was asked", in.task.ID(), in.task.Power)
	}
	return envclient.InitState{State: r.State, Info: r.Info}, nil
}

// Step answers the pending question with action's text and runs the game
// until the trained power is asked again or the game ends.
func (in *envInstance) Step(ctx context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	if !in.game.Answer(action.Content) {
		return envclient.StepResult{}, ErrNotAsked
	}
	return in.next(ctx)
}

// Evaluate returns the trained power's score, 0 when the game is
// unfinished; with params["sparse"] true, 1 for a solo win and 0
// otherwise.
func (in *envInstance) Evaluate(_ context.Context, params map[string]any) (float64, error) {
	if !in.game.Over() {
		return 0, nil
	}
	score := in.res.Score(in.task.Power)
	if sparse, _ := params["sparse"].(bool); sparse && score < 1 {
		return 0, nil // sparse: a solo win or nothing
	}
	return score, nil
}

// Info describes the task.
func (in *envInstance) Info(context.Context, map[string]any) (any, error) {
	return map[string]any{
		"task_id": in.task.ID(), "seed": in.task.Seed, "power": in.task.Power.String(),
		"calls": in.game.Asked(), "finished": in.game.Over(),
	}, nil
}

// Close stops the game and waits for its goroutine to end.
func (in *envInstance) Close() error { return in.game.Close() }

// playAs plays the game of taskID with model as the trained power.
func (e *Env) playAs(ctx context.Context, taskID string, model llm.ChatModel) (*arena.Recorder, Result, diplomacy.Power, error) {
	t, err := ParseEnvTask(taskID)
	if err != nil {
		return nil, Result{}, 0, err
	}
	models, err := e.resolve(t)
	if err != nil {
		return nil, Result{}, 0, err
	}
	rec := &arena.Recorder{Model: model}
	models[t.Power-1] = rec
	res, err := Play(ctx, e.gameConfig(), t.Seed, models, nil)
	if err != nil {
		return nil, Result{}, 0, err
	}
	return rec, res, t.Power, nil
}

// Demonstrate implements envservice.Expert: when the greedy baseline,
// playing the trained power, wins the task's game (18 centres, score 1),
// its replies (one assistant message per call) are the demonstration;
// sent to a fresh instance of taskID one per step they replay the same
// game to the same win. Otherwise the error wraps ErrNoDemonstration
// (the trainer's warm start skips the task). Against random bots in
// 20-phase games the greedy bot wins about half of the games; in short
// games it cannot win.
func (e *Env) Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error) {
	rec, res, power, err := e.playAs(ctx, taskID, Greedy{})
	if err != nil {
		return nil, err
	}
	if s := res.Score(power); s < 1 {
		return nil, fmt.Errorf("%w (%s scored %.3f)", ErrNoDemonstration, power, s)
	}
	return rec.Demonstration(), nil
}

// Corpus implements envservice.CorpusProvider: the prompts and replies of
// the trained power, played by the greedy baseline, in the games of the
// split's first CorpusGames tasks (system prompts once each).
func (e *Env) Corpus(ctx context.Context, split string) ([]string, error) {
	ids, err := e.TaskIDs(ctx, split, nil)
	if err != nil {
		return nil, err
	}
	var docs []string
	seen := map[string]bool{}
	for _, id := range ids[:min(len(ids), e.cfg.CorpusGames)] {
		rec, _, _, err := e.playAs(ctx, id, Greedy{})
		if err != nil {
			return nil, err
		}
		docs = append(docs, rec.Corpus(seen)...)
	}
	return docs, nil
}
