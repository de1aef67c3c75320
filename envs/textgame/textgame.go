package textgame

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
)

// Name is the environment's name (its env_type).
const Name = "textgame"

// Split names.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Defaults used when a Config field is zero.
const (
	DefaultMaxCommands         = 60
	DefaultReadTimeout         = 5 * time.Second
	DefaultMaxObservationBytes = 4096
	// DefaultBinary is the name of open-adventure's program.
	DefaultBinary = "advent"
)

// Errors callers can test with errors.Is. The first three also match
// envclient.ErrBadRequest (a closed instance envclient.ErrInstanceNotFound)
// so that a server maps them to the right status. ErrGame reports an
// environment failure: the game process crashed, was killed, stopped
// answering or could not be started.
var (
	// ErrUnknownTask reports a task id that names no task.
	ErrUnknownTask = envkit.Kind("textgame: unknown task", envclient.ErrBadRequest)
	// ErrUnknownSplit reports a split other than train, val and test.
	ErrUnknownSplit = envkit.Kind("textgame: unknown split", envclient.ErrBadRequest)
	// ErrBadParams reports params of the wrong form.
	ErrBadParams = envkit.Kind("textgame: bad params", envclient.ErrBadRequest)
	// ErrClosed reports a call on a released instance.
	ErrClosed = envkit.Kind("textgame: instance closed", envclient.ErrInstanceNotFound)
	// ErrGame reports a failure of the game process: an environment
	// failure, never the agent's doing.
	ErrGame = errors.New("textgame: game process failed")
	// ErrNoBinary reports that the game is not installed.
	ErrNoBinary = errors.New("textgame: advent not found; install the Debian package open-adventure (apt-get install open-adventure) or set Config.Binary")
)

// Config configures an Env. The zero value is ready to use. Its YAML keys
// are those of a run configuration's env.textgame section.
type Config struct {
	// Binary is the path of open-adventure's advent. Empty means "advent"
	// looked up in PATH, then /usr/games/advent.
	Binary string `yaml:"binary"`
	// Seed selects the game seed of every task (TaskInfo.Seed); the same
	// seed gives the same tasks.
	Seed int64 `yaml:"seed"`
	// MaxCommands ends an episode after that many actions; zero means
	// DefaultMaxCommands. The game takes points off after 350 turns, far
	// beyond it.
	MaxCommands int `yaml:"max_commands"`
	// ReadTimeout bounds the wait for the game's answer to one command;
	// zero means DefaultReadTimeout. A game that does not prompt again in
	// time is an environment failure.
	ReadTimeout time.Duration `yaml:"read_timeout"`
	// MaxObservationBytes bounds one observation; zero means
	// DefaultMaxObservationBytes. Longer output is cut and marked.
	MaxObservationBytes int `yaml:"max_observation_bytes"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// Env is the Colossal Cave Adventure environment. It implements
// envservice.Environment, ProfileProvider, Expert, CorpusProvider,
// TaskMetadataProvider and ProcessBacked, and is safe for concurrent use.
type Env struct {
	binary      string
	maxCommands int
	timeout     time.Duration
	maxObs      int
	log         *slog.Logger
	system      string
	tasks       map[string]*task
	splits      map[string][]string

	baseMu    sync.Mutex
	baseKnown bool // guarded by baseMu; baseScore is immutable once set
	baseScore int
}

var (
	_ envservice.Environment          = (*Env)(nil)
	_ envservice.ProfileProvider      = (*Env)(nil)
	_ envservice.Expert               = (*Env)(nil)
	_ envservice.CorpusProvider       = (*Env)(nil)
	_ envservice.TaskMetadataProvider = (*Env)(nil)
	_ envservice.ProcessBacked        = (*Env)(nil)
	_ envservice.Instance             = (*Instance)(nil)
)

// ProcessBacked reports true: every instance is an advent process on a
// pseudo-terminal of its own, so a Manager counts instances against its
// limit of process-backed instances (envservice.ManagerConfig.
// MaxProcessInstances).
func (e *Env) ProcessBacked() bool { return true }

// FindBinary returns the path of the advent program: name when it holds
// a slash, else name looked up in PATH and then in /usr/games. An empty
// name means DefaultBinary. It returns an error matching ErrNoBinary when
// there is none.
func FindBinary(name string) (string, error) {
	if name == "" {
		name = DefaultBinary
	}
	if strings.Contains(name, "/") {
		if st, err := os.Stat(name); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%w (%s is not an executable file)", ErrNoBinary, name)
		}
		return name, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/games", name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", fmt.Errorf("%w (looked for %q in PATH and /usr/games)", ErrNoBinary, name)
}

// New returns the environment of cfg. It fails with an error matching
// ErrNoBinary when the game is not installed.
func New(cfg Config) (*Env, error) {
	bin, err := FindBinary(cfg.Binary)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.MaxCommands < 0:
		return nil, fmt.Errorf("textgame: negative MaxCommands %d", cfg.MaxCommands)
	case cfg.ReadTimeout < 0:
		return nil, fmt.Errorf("textgame: negative ReadTimeout %v", cfg.ReadTimeout)
	case cfg.MaxObservationBytes < 0:
		return nil, fmt.Errorf("textgame: negative MaxObservationBytes %d", cfg.MaxObservationBytes)
	}
	e := &Env{
		binary: bin, maxCommands: cfg.MaxCommands, timeout: cfg.ReadTimeout,
		maxObs: cfg.MaxObservationBytes, log: cfg.Logger, system: systemPrompt,
	}
	if e.maxCommands == 0 {
		e.maxCommands = DefaultMaxCommands
	}
	if e.timeout == 0 {
		e.timeout = DefaultReadTimeout
	}
	if e.maxObs == 0 {
		e.maxObs = DefaultMaxObservationBytes
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.tasks, e.splits = buildTasks(cfg.Seed)
	sweepStaleDirs(e.log)
	return e, nil
}

// systemPrompt is the first message of every episode.
const systemPrompt = "You are playing Colossal Cave Adventure, a text adventure. " +
	"Each of your messages is exactly one command of one or two words, such as " +
	"\"north\", \"enter building\", \"take lamp\", \"light lamp\" or \"inventory\". " +
	"The game answers with what happens. Reach the goal in as few commands as you can."

// TaskIDs lists the task ids of a split ("train", "val" or "test").
// params are ignored.
func (e *Env) TaskIDs(ctx context.Context, split string, _ map[string]any) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, ok := e.splits[split]
	if !ok {
		return nil, fmt.Errorf("%w: %q (want train, val or test)", ErrUnknownSplit, split)
	}
	return append([]string(nil), ids...), nil
}

// Task describes a task.
func (e *Env) Task(taskID string) (TaskInfo, error) {
	t, err := e.task(taskID)
	if err != nil {
		return TaskInfo{}, err
	}
	return t.info, nil
}

func (e *Env) task(taskID string) (*task, error) {
	t, ok := e.tasks[taskID]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTask, clip(taskID))
	}
	return t, nil
}

// New starts a game for taskID (it is a *Instance): a fresh advent
// process on its own pseudo-terminal, which declines the instructions and
// sets the task's seed before the agent's first command. params may hold
// "sparse" (bool), the default scoring of the step rewards. The process
// lives until Close.
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
	if t.spec.scoreTarget > 0 {
		if _, err := e.startScore(ctx); err != nil {
			return nil, err
		}
	}
	g, err := startGame(e.binary)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGame, err)
	}
	defer func() {
		if r := recover(); r != nil {
			g.kill() // a panic must not leave the process behind
			panic(r)
		}
	}()
	in := &Instance{env: e, task: t, id: instanceID, sparse: sparse, game: g}
	if err := in.start(ctx); err != nil {
		g.kill()
		return nil, err
	}
	// A backstop for an Instance dropped without Close: the process goes
	// when the Instance is collected. Close is still the rule.
	runtime.AddCleanup(in, func(g *game) { g.kill() }, g)
	e.log.Debug("textgame: new instance", "task_id", taskID, "instance_id", instanceID, "pid", g.pid())
	return in, nil
}

// sparseParam reads params["sparse"] (envservice.SparseParam).
func sparseParam(params map[string]any) (sparse, present bool, err error) {
	return envservice.SparseParam(params, ErrBadParams)
}

// finalScore matches the line the game prints when it ends.
var finalScore = regexp.MustCompile(`You scored (-?\d+) out of a possible (\d+)`)

// parseFinalScore returns the last final score in out.
func parseFinalScore(out string) (int, bool) {
	m := finalScore.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(m[len(m)-1][1])
	return n, err == nil
}

// startScore is the game's score before any command (32 in
// open-adventure 1.12: 10 for each of three unused lives and 2 for
// "rounding off"), measured once by a replay.
func (e *Env) startScore(ctx context.Context) (int, error) {
	e.baseMu.Lock()
	defer e.baseMu.Unlock()
	if !e.baseKnown {
		s, err := e.replayScore(ctx, 0, nil)
		if err != nil {
			return 0, err // not kept: a later call, with another ctx, tries again
		}
		e.baseScore, e.baseKnown = s, true
	}
	return e.baseScore, nil
}

// replayScore replays commands on a fresh game with the given seed, its
// input a pipe rather than a terminal, and returns the score the game
// prints when its input ends. This is how an instance learns its score
// without typing "score" into the live game, which would cost a turn
// there and could change what follows (turn-counted hints, the lamp).
// When the commands leave the game waiting on a yes/no question (a hint,
// reincarnation, quitting), the answer "no" is added, which ends the game
// in the reincarnation case and prints the final score either way.
func (e *Env) replayScore(ctx context.Context, seed int32, commands []string) (int, error) {
	for _, extra := range []string{"", "no\n"} {
		out, err := e.replay(ctx, seed, commands, extra)
		if err != nil {
			return 0, err
		}
		if s, ok := parseFinalScore(out); ok {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w: replay printed no final score", ErrGame)
}

// replay runs the game on a pipe with the instance's start, commands and
// extra as input and returns its output. The process runs in its own
// process group, killed as a whole when ctx ends or the time is up.
func (e *Env) replay(ctx context.Context, seed int32, commands []string, extra string) (string, error) {
	var in strings.Builder
	in.WriteString(startInput(seed))
	for _, c := range commands {
		in.WriteString(c + "\n")
	}
	in.WriteString(extra)
	dir, err := envservice.MkdirOwned("", replayDirPrefix)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrGame, err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, e.timeout+time.Duration(len(commands))*e.timeout/10)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.binary)
	cmd.Dir = dir
	cmd.Env = gameEnv(dir)
	cmd.Stdin = strings.NewReader(in.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		// The game has exited but something it started still holds its
		// output open; that something is in its process group, which
		// therefore still exists.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		if err := parent.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: replay: %w (output %q)", ErrGame, err, clip(out.String()))
	}
	return out.String(), nil
}

// startInput is what every game is sent before the agent's first command:
// "no" to the offer of instructions (which would cost 5 points) and the
// task's seed. Seed 0 (the start-score probe) sets no seed: the score
// before any move does not depend on it.
func startInput(seed int32) string {
	if seed == 0 {
		return "no\n"
	}
	return fmt.Sprintf("no\nseed %d\n", seed)
}

// Demonstrate returns the expert's commands for taskID, one assistant
// message each; sent to a fresh instance they reach the task's goal, so
// that the episode scores 1 and ends after the last one. It implements
// envservice.Expert.
func (e *Env) Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	msgs := make([]agentevolver.Message, len(t.spec.solution))
	for i, c := range t.spec.solution {
		msgs[i] = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: c}
	}
	return msgs, nil
}
