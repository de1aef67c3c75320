package toolworld

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
)

// Name is the environment's name (its env_type).
const Name = "toolworld"

// Split names.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Default split sizes, used when a Config size is zero.
const (
	DefaultTrainSize = 500
	DefaultValSize   = 100
	DefaultTestSize  = 100
)

// MaxSplitSize bounds each split's size.
const MaxSplitSize = 20000

// NumLevels is the number of task levels: levels run from 1 to NumLevels.
const NumLevels = 3

// Errors callers can test with errors.Is. The first three also match
// envclient.ErrBadRequest (and a closed instance envclient.ErrInstanceNotFound),
// so a server can map them to the right status.
var (
	// ErrUnknownTask reports a task id that names no task of the environment.
	ErrUnknownTask = envkit.Kind("toolworld: unknown task", envclient.ErrBadRequest)
	// ErrUnknownSplit reports a split other than train, val and test.
	ErrUnknownSplit = envkit.Kind("toolworld: unknown split", envclient.ErrBadRequest)
	// ErrBadParams reports create, step, evaluate or info params of the
	// wrong form.
	ErrBadParams = envkit.Kind("toolworld: bad params", envclient.ErrBadRequest)
	// ErrClosed reports a call on a closed instance.
	ErrClosed = envkit.Kind("toolworld: instance closed", envclient.ErrInstanceNotFound)
)

// maxReservedDraws bounds, per task kept, the train tasks drawn under
// Config.TrainReserved: a share so small that no instruction falls in it
// would otherwise keep New drawing for ever.
const maxReservedDraws = 100

// Env is the toolworld environment: a fixed, generated set of tasks over
// four small apps. It implements envservice.Environment and every optional
// capability of envservice (ProfileProvider, Expert, CorpusProvider,
// TaskMetadataProvider, StepOracle, TaskSynthesizer, RandomExplorer), and
// is safe for concurrent use. Besides its generated tasks it runs the
// hindsight tasks that SynthesizeTask names.
type Env struct {
	cat    *catalog
	log    *slog.Logger
	system string     // the classic world's system prompt
	worlds []*surface // the varied worlds' surfaces (Config.Worlds), drawn as tasks need them
	cfg    Config
	tasks  map[string]*task
	splits map[string][]string // every generated task, by split
	listed map[string][]string // the tasks TaskIDs lists (Config.MinLevel, MaxLevel)
}

var (
	_ envservice.Environment          = (*Env)(nil)
	_ envservice.ProfileProvider      = (*Env)(nil)
	_ envservice.Expert               = (*Env)(nil)
	_ envservice.CorpusProvider       = (*Env)(nil)
	_ envservice.TaskMetadataProvider = (*Env)(nil)
	_ envservice.Instance             = (*Instance)(nil)
)

// TaskInfo describes one task.
type TaskInfo struct {
	ID    string
	Split string
	// Level is 1 (one call), 2 (several independent calls) or 3 (chained
	// calls, where a later call needs an earlier result).
	Level int
	// Instruction is the user message of the task.
	Instruction string
	// World is the index of the task's world (0 without Config.Worlds).
	World int
	// Family names the kinds of the task's goals, joined with "+" in the
	// order the instruction asks them ("pay", "add_contact+ask_phone",
	// "chain_pay_bill"): tasks of one family are solved by the same calls
	// with other values. A hindsight task's family is "hindsight".
	Family string
}

// New generates the tasks of cfg. Splits are disjoint: no two tasks, in any
// splits, share both instruction and solution. The test split is generated
// first, then val, then train, each skipping repeats of the earlier ones:
// the test split depends only on the seed and its size, and growing a
// split appends tasks without changing the existing ones.
func New(cfg Config) (*Env, error) {
	sizes := map[string]int{SplitTrain: cfg.TrainSize, SplitVal: cfg.ValSize, SplitTest: cfg.TestSize}
	defaults := map[string]int{SplitTrain: DefaultTrainSize, SplitVal: DefaultValSize, SplitTest: DefaultTestSize}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for split, n := range sizes {
		if n == 0 {
			sizes[split] = defaults[split]
		}
	}
	e := &Env{
		cat:    newCatalog(),
		log:    cfg.Logger,
		tasks:  map[string]*task{},
		splits: map[string][]string{},
		listed: map[string][]string{},
		cfg:    cfg,
	}
	if cfg.Worlds > 0 {
		e.worlds = make([]*surface, cfg.Worlds)
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.system = e.cat.fullPrompt()
	if cfg.Compact {
		e.system = e.cat.compactPrompt()
	}
	if cfg.SystemPrompt != "" {
		e.system = cfg.SystemPrompt
	}
	seen := map[string]bool{}
	for code, split := range []string{SplitTest, SplitVal, SplitTrain} {
		filtered := split == SplitTrain && cfg.TrainReserved > 0
		for i, kept := 0, 0; kept < sizes[split]; i++ {
			if filtered && i >= maxReservedDraws*(sizes[split]+1) {
				return nil, fmt.Errorf("toolworld: only %d of %d train tasks in %d draws have a reserved instruction (share %v); ask for fewer or a larger share",
					kept, sizes[split], i, cfg.TrainReserved)
			}
			t, err := e.generate(uint64(cfg.Seed), uint64(code+1), split, i, seen)
			if err != nil {
				return nil, err
			}
			if filtered && !ReservedInstruction(t.info.Instruction, cfg.TrainReserved) {
				continue
			}
			kept++
			e.tasks[t.info.ID] = t
			e.splits[split] = append(e.splits[split], t.info.ID)
			if (cfg.MaxLevel == 0 || t.info.Level <= cfg.MaxLevel) && t.info.Level >= cfg.MinLevel {
				e.listed[split] = append(e.listed[split], t.info.ID)
			}
		}
	}
	return e, nil
}

// ReservedInstruction reports whether instruction falls in the reserved
// share of all instructions: its FNV-1a hash, read as a fraction of 2^64,
// is below share. The choice depends on the words alone, so a corpus and
// an environment of any seed agree on it.
func ReservedInstruction(instruction string, share float64) bool {
	if share <= 0 {
		return false
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(instruction))
	return float64(h.Sum64())/(1<<64) < share
}

// maxAttempts bounds the redraws of a task that repeats an earlier one.
const maxAttempts = 100

func (e *Env) generate(seed, code uint64, split string, index int, seen map[string]bool) (*task, error) {
	id := fmt.Sprintf("tw-%s-%04d", split, index)
	s, world, err := e.worldOf(index)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		t, err := buildTask(e.cat, s, newRNG(seed, code, uint64(index), uint64(attempt)), 1+index%3)
		if err != nil {
			return nil, fmt.Errorf("toolworld: task %s: %w", id, err)
		}
		if t == nil || seen[t.signature()] {
			continue
		}
		seen[t.signature()] = true
		t.info.ID, t.info.Split, t.info.World = id, split, world
		return t, nil
	}
	return nil, fmt.Errorf("toolworld: cannot draw a new distinct task for %s; use fewer tasks or another seed", id)
}

// OneLinePrompt is the one-line system prompt of the shipped base policy
// (models.ToolworldBase) and of the trainer's main job, which starts from
// it: a policy that learnt the classic world's calls by imitation needs no
// API documentation, and every prompt token costs it compute. With varied
// worlds (Config.Worlds) it is the line before each world's tool list.
const OneLinePrompt = "Call one tool per turn in a tool block; end with task.finish."

// MaxWorlds bounds Config.Worlds.
const MaxWorlds = 1 << 20

// surfaceStream separates the worlds' random streams from the tasks'.
const surfaceStream = 0x737572666163 // "surface"

// worldOf returns the surface of the task with the given index in its
// split and its world's index: the classic surface without Config.Worlds,
// else world index mod Worlds, drawn the first time a task needs it.
func (e *Env) worldOf(index int) (*surface, int, error) {
	if len(e.worlds) == 0 {
		return e.cat.canon, 0, nil
	}
	w := index % len(e.worlds)
	if e.worlds[w] == nil {
		r := newRNG(surfaceStream, uint64(e.cfg.WorldSeed), uint64(w))
		if e.cfg.ValuesOnly {
			s := canonicalSurface(e.cat)
			s.pools = drawPools(r)
			if e.cfg.Drift > 0 {
				s.drift(e.cat, r, e.cfg.Drift, e.system)
			}
			e.worlds[w] = s
			return s, w, nil
		}
		s, err := drawSurface(e.cat, r, e.cfg.SystemPrompt)
		if err != nil {
			return nil, 0, err
		}
		e.worlds[w] = s
	}
	return e.worlds[w], w, nil
}

// systemPrompt is the system prompt of t's world.
func (e *Env) systemPrompt(t *task) string {
	if s := t.rootTask().surface; s != nil && !s.canonical {
		return s.prompt
	}
	return e.system
}

// shown returns the surface t's world shows.
func (e *Env) shown(t *task) *surface { return e.cat.names(t.rootTask().surface) }

// TaskIDs lists the task ids of a split ("train", "val" or "test"), only
// those of level <= Config.MaxLevel and >= Config.MinLevel when they are
// set. params are ignored.
func (e *Env) TaskIDs(ctx context.Context, split string, _ map[string]any) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, ok := e.splits[split]; !ok {
		return nil, fmt.Errorf("%w: %q (want train, val or test)", ErrUnknownSplit, split)
	}
	return append([]string(nil), e.listed[split]...), nil
}

// Task describes a task.
func (e *Env) Task(taskID string) (TaskInfo, error) {
	t, err := e.task(taskID)
	if err != nil {
		return TaskInfo{}, err
	}
	return t.info, nil
}

// task returns the task taskID names: a generated task, or a hindsight
// task rebuilt from its id (see SynthesizeTask).
func (e *Env) task(taskID string) (*task, error) {
	if t, ok := e.tasks[taskID]; ok {
		return t, nil
	}
	if strings.HasPrefix(taskID, HindsightPrefix) {
		return e.hindsightTask(context.Background(), taskID)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownTask, clip(taskID))
}

// New creates an instance running taskID; it is a *Instance. params may
// hold "sparse" (bool), the default scoring of the instance's step rewards.
func (e *Env) New(ctx context.Context, taskID, instanceID string, params map[string]any) (envservice.Instance, error) {
	return e.newInstance(ctx, taskID, instanceID, params)
}

func (e *Env) newInstance(ctx context.Context, taskID, instanceID string, params map[string]any) (*Instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	sparse, _, err := sparseParam(params)
	if err != nil {
		return nil, err
	}
	e.log.Debug("toolworld: new instance", "task_id", taskID, "instance_id", instanceID)
	return &Instance{
		env: e, task: t, id: instanceID, sparse: sparse,
		world: t.world.clone(), done: make([]bool, len(t.solution)-1),
	}, nil
}

// sparseParam reads params["sparse"] (envservice.SparseParam).
func sparseParam(params map[string]any) (sparse, present bool, err error) {
	return envservice.SparseParam(params, ErrBadParams)
}

// Solve returns the expert's actions for taskID: one assistant message per
// call, each a tool block, ending with task.finish. Replayed from the
// initial state they score 1.0.
func (e *Env) Solve(taskID string) ([]agentevolver.Message, error) {
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	s := e.shown(t)
	msgs := make([]agentevolver.Message, len(t.solution))
	for i, c := range t.solution {
		msgs[i] = s.render(c).Message()
	}
	return msgs, nil
}

// JudgeSteps replays actions on a fresh instance of taskID and reports, per
// action, whether it was a correct and useful step: a call the expert
// solution still needed (same API, equivalent arguments) that succeeded, or
// a task.finish that completed the task with a perfect score. Malformed
// actions, failed calls, detours (such as listing all contacts), repeats
// and anything after task.finish are false. It is an oracle step judge for
// credit assignment.
func (e *Env) JudgeSteps(ctx context.Context, taskID string, actions []agentevolver.Message) ([]bool, error) {
	in, err := e.newInstance(ctx, taskID, "judge", nil)
	if err != nil {
		return nil, err
	}
	verdicts := make([]bool, len(actions))
	for i, a := range actions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		verdicts[i] = in.apply(a).useful
	}
	return verdicts, nil
}
