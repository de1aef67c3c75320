package sqlworld

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
)

// Name is the environment's name (its env_type).
const Name = "sqlworld"

// Split names.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Defaults, used where a Config field is zero.
const (
	DefaultTrainSize           = 500
	DefaultValSize             = 100
	DefaultTestSize            = 100
	DefaultMaxRows             = 20
	DefaultStatementTimeout    = 2 * time.Second
	DefaultMaxActions          = 10
	DefaultMaxObservationBytes = 4000
	DefaultMaxConns            = 8
)

// Bounds on Config fields.
const (
	MaxSplitSize       = 2500
	MaxMaxRows         = 1000
	MaxMaxActions      = 100
	MaxStatementLimit  = time.Minute
	MinObservationSize = 500
)

// submitRows bounds the rows read from a submitted query: more than that
// is a wrong answer (no reference answer has more than maxAnswerRows).
const submitRows = 1000

// Errors callers can test with errors.Is. The first three also match
// envclient.ErrBadRequest and ErrClosed matches envclient.ErrInstanceNotFound,
// so a server maps them to the right status.
var (
	// ErrUnknownTask reports a task id that names no task of the environment.
	ErrUnknownTask = envkit.Kind("sqlworld: unknown task", envclient.ErrBadRequest)
	// ErrUnknownSplit reports a split other than train, val and test.
	ErrUnknownSplit = envkit.Kind("sqlworld: unknown split", envclient.ErrBadRequest)
	// ErrBadParams reports create, step, evaluate or info params of the
	// wrong form.
	ErrBadParams = envkit.Kind("sqlworld: bad params", envclient.ErrBadRequest)
	// ErrClosed reports a call on a closed instance.
	ErrClosed = envkit.Kind("sqlworld: instance closed", envclient.ErrInstanceNotFound)
)

// Config configures an Env. The zero value is ready to use on a Debian
// system with the iso-codes package installed. Its YAML keys are those of
// a run configuration's env.sqlworld section.
type Config struct {
	// DataDir holds the iso-codes JSON files (iso_3166-1.json,
	// iso_3166-2.json, iso_4217.json, iso_639-3.json); empty means
	// DefaultDataDir. A missing directory or file gives an error matching
	// ErrNoData.
	DataDir string `yaml:"data_dir"`
	// Seed selects the generated tasks; the same seed (and data) always
	// gives the same tasks.
	Seed int64 `yaml:"seed"`
	// TrainSize, ValSize and TestSize are the numbers of tasks per split;
	// zero means the defaults (500, 100, 100).
	TrainSize int `yaml:"train_size"`
	ValSize   int `yaml:"val_size"`
	TestSize  int `yaml:"test_size"`
	// MaxRows bounds the rows an observation shows; zero means
	// DefaultMaxRows (at most MaxMaxRows).
	MaxRows int `yaml:"max_rows"`
	// MaxObservationBytes bounds an observation's text; zero means
	// DefaultMaxObservationBytes (at least MinObservationSize).
	MaxObservationBytes int `yaml:"max_observation_bytes"`
	// StatementTimeout bounds the run time of one query; a query still
	// running is interrupted and gets an error observation. Zero means
	// DefaultStatementTimeout (at most MaxStatementLimit).
	StatementTimeout time.Duration `yaml:"statement_timeout"`
	// MaxActions bounds the actions of one instance: the episode ends,
	// unanswered, after that many; zero means DefaultMaxActions. The
	// trainer's own turn limit still applies.
	MaxActions int `yaml:"max_actions"`
	// MaxConns bounds the database connections that run queries at once
	// (each holds its own in-memory copy of the database, about 1 MB);
	// zero means DefaultMaxConns.
	MaxConns int `yaml:"max_conns"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// TaskInfo describes one task.
type TaskInfo struct {
	ID    string
	Split string
	// Difficulty is 1 (a lookup in one table), 2 (filters, aggregates or
	// ordering over one table) or 3 (joins).
	Difficulty int
	// Template names the question pattern, such as
	// "subdivisions_count_country".
	Template string
	// Question is the user message of the task.
	Question string
}

// Env is the sqlworld environment: text-to-SQL tasks over a read-only
// SQLite database of ISO codes. It implements envservice.Environment and
// the optional capabilities ProfileProvider, Expert, CorpusProvider and
// TaskMetadataProvider, and is safe for concurrent use. Close releases its
// database.
type Env struct {
	log        *slog.Logger
	db         *sql.DB
	timeout    time.Duration
	maxRows    int
	maxObs     int
	maxActions int
	system     string
	tasks      map[string]*task
	splits     map[string][]string
	counts     map[string]int // rows per table
	dbBytes    int
}

var (
	_ envservice.Environment          = (*Env)(nil)
	_ envservice.ProfileProvider      = (*Env)(nil)
	_ envservice.Expert               = (*Env)(nil)
	_ envservice.CorpusProvider       = (*Env)(nil)
	_ envservice.TaskMetadataProvider = (*Env)(nil)
	_ envservice.Instance             = (*Instance)(nil)
)

// New reads the iso-codes files of cfg.DataDir, builds the database in
// memory (no file is written) and generates the tasks. Splits never share
// a question: the test split is drawn first, then val, then train, each
// skipping questions drawn before, so the test split depends only on the
// seed and its size, and growing the train split appends tasks. Task
// difficulties cycle 1, 2, 3 by index.
func New(cfg Config) (*Env, error) {
	ctx := context.Background()
	sizes := map[string]int{SplitTrain: cfg.TrainSize, SplitVal: cfg.ValSize, SplitTest: cfg.TestSize}
	defaults := map[string]int{SplitTrain: DefaultTrainSize, SplitVal: DefaultValSize, SplitTest: DefaultTestSize}
	for split, n := range sizes {
		switch {
		case n < 0 || n > MaxSplitSize:
			return nil, fmt.Errorf("sqlworld: %s size %d outside 0..%d", split, n, MaxSplitSize)
		case n == 0:
			sizes[split] = defaults[split]
		}
	}
	e := &Env{
		log:        cfg.Logger,
		timeout:    orDefault(cfg.StatementTimeout, DefaultStatementTimeout),
		maxRows:    orDefault(cfg.MaxRows, DefaultMaxRows),
		maxObs:     orDefault(cfg.MaxObservationBytes, DefaultMaxObservationBytes),
		maxActions: orDefault(cfg.MaxActions, DefaultMaxActions),
		tasks:      map[string]*task{},
		splits:     map[string][]string{},
		counts:     map[string]int{},
	}
	switch {
	case e.timeout < 0 || e.timeout > MaxStatementLimit:
		return nil, fmt.Errorf("sqlworld: statement timeout %v outside 0..%v", e.timeout, MaxStatementLimit)
	case e.maxRows < 0 || e.maxRows > MaxMaxRows:
		return nil, fmt.Errorf("sqlworld: max rows %d outside 0..%d", e.maxRows, MaxMaxRows)
	case e.maxObs < 0 || e.maxObs < MinObservationSize:
		return nil, fmt.Errorf("sqlworld: max observation bytes %d below %d", e.maxObs, MinObservationSize)
	case e.maxActions < 0 || e.maxActions > MaxMaxActions:
		return nil, fmt.Errorf("sqlworld: max actions %d outside 0..%d", e.maxActions, MaxMaxActions)
	case cfg.MaxConns < 0:
		return nil, fmt.Errorf("sqlworld: max conns %d is negative", cfg.MaxConns)
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	data, err := readData(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	img, err := buildImage(ctx, data)
	if err != nil {
		return nil, err
	}
	e.dbBytes = len(img)
	e.db = openReadOnly(img, orDefault(cfg.MaxConns, DefaultMaxConns))
	if err := e.generate(ctx, data, cfg.Seed, sizes); err != nil {
		_ = e.db.Close()
		return nil, err
	}
	e.system = systemPrompt(e.maxRows, e.maxActions)
	e.log.Debug("sqlworld: ready", "db_bytes", e.dbBytes, "tasks", len(e.tasks))
	return e, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func (e *Env) generate(ctx context.Context, data *dataset, seed int64, sizes map[string]int) error {
	for _, t := range []string{"countries", "subdivisions", "currencies", "languages"} {
		res, err := e.query(ctx, "SELECT count(*) FROM "+t, 1)
		if err != nil {
			return fmt.Errorf("sqlworld: count %s: %w", t, err)
		}
		e.counts[t] = int(res.rows[0][0].(int64))
	}
	g := newGenerator(e, data, seed)
	for _, split := range []string{SplitTest, SplitVal, SplitTrain} {
		for i := 0; i < sizes[split]; i++ {
			t, err := g.draw(ctx, 1+i%3)
			if err != nil {
				return fmt.Errorf("%w (drawing %s task %d)", err, split, i)
			}
			t.info.ID = fmt.Sprintf("sql-%s-%04d", split, i)
			t.info.Split = split
			e.tasks[t.info.ID] = t
			e.splits[split] = append(e.splits[split], t.info.ID)
		}
	}
	return nil
}

// Close closes the database; instances still open fail their queries.
func (e *Env) Close() error { return e.db.Close() }

// TaskIDs lists the task ids of a split ("train", "val" or "test"), like
// sql-train-0042. params are ignored.
func (e *Env) TaskIDs(ctx context.Context, split string, _ map[string]any) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, ok := e.splits[split]
	if !ok {
		return nil, fmt.Errorf("%w: %q (want train, val or test)", ErrUnknownSplit, clip(split, 40))
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

// ReferenceSQL returns the reference query of a task: its result set is
// the task's answer.
func (e *Env) ReferenceSQL(taskID string) (string, error) {
	t, err := e.task(taskID)
	if err != nil {
		return "", err
	}
	return t.sql, nil
}

func (e *Env) task(taskID string) (*task, error) {
	t, ok := e.tasks[taskID]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTask, clip(taskID, 80))
	}
	return t, nil
}

// New creates an instance running taskID; it is a *Instance. params may
// hold "sparse" (bool); scores are 0 or 1 either way.
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
	if _, _, err := sparseParam(params); err != nil {
		return nil, err
	}
	e.log.Debug("sqlworld: new instance", "task_id", taskID, "instance_id", instanceID)
	return &Instance{env: e, task: t, id: instanceID}, nil
}

// sparseParam reads params["sparse"] (envservice.SparseParam).
func sparseParam(params map[string]any) (sparse, present bool, err error) {
	return envservice.SparseParam(params, ErrBadParams)
}

// Solve returns the expert's actions for taskID: the reference query in a
// sql block, then the same query in a submit block. Replayed on a fresh
// instance they score 1.
func (e *Env) Solve(taskID string) ([]agentevolver.Message, error) {
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	return []agentevolver.Message{
		Action{Kind: KindQuery, SQL: t.sql}.Message(),
		Action{Kind: KindSubmit, SQL: t.sql}.Message(),
	}, nil
}
