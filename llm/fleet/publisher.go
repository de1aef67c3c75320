package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/stepdir"
	"github.com/org/agentevolver/llm"
)

// DefaultKeptVersions is how many exported adapter directories a Publisher
// keeps when PublisherConfig.Keep is 0.
const DefaultKeptVersions = 2

// PublisherConfig configures a Publisher. Fleet, Dir, Version and Export
// are required.
type PublisherConfig struct {
	// Fleet serves the adapters.
	Fleet *Fleet
	// Dir receives one exported adapter directory per version
	// (step_NNNNNN); the servers must be able to read it.
	Dir string
	// Prefix starts every adapter name, followed by "-step_NNNNNN-",
	// this process's session and the attempt (Config.OwnedPrefix should
	// be Prefix+"-step_", so that a crashed session's adapters are
	// unloaded).
	Prefix string
	// Version returns the version of the weights now being trained (the
	// RL step); a new version is exported and published before the next
	// request.
	Version func() int
	// Export writes the adapter of the current weights to dir (for
	// example model.Model.ExportAdapter).
	Export func(ctx context.Context, dir string) error
	// Keep is how many exported directories are kept (0:
	// DefaultKeptVersions).
	Keep int
	// Logger receives a record per publish; nil discards them.
	Logger *slog.Logger
}

// Publisher is an llm.ChatModel over a Fleet that keeps the fleet on the
// current version of the weights: before the first request of each
// version it exports the adapter to Dir/step_NNNNNN, publishes it under a
// name unique to this process and attempt, and prunes older directories.
// Concurrent callers wait for one publish. It is the trainer's remote
// rollout engine (rollout.engine: remote).
type Publisher struct {
	cfg     PublisherConfig
	session string
	log     *slog.Logger

	mu        sync.Mutex
	published int // the version the fleet serves; -1 before the first
	attempt   int // publishes so far, so that a retried version loads under a new name
	publishS  float64
}

var _ llm.ChatModel = (*Publisher)(nil)

// NewPublisher returns a Publisher for cfg.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	if cfg.Fleet == nil || cfg.Dir == "" || cfg.Version == nil || cfg.Export == nil {
		return nil, errors.New("fleet: a publisher needs Fleet, Dir, Version and Export")
	}
	if cfg.Keep == 0 {
		cfg.Keep = DefaultKeptVersions
	}
	if cfg.Keep < 1 {
		return nil, fmt.Errorf("fleet: publisher Keep %d < 1", cfg.Keep)
	}
	var nonce [4]byte
	_, _ = rand.Read(nonce[:])
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Publisher{cfg: cfg, session: hex.EncodeToString(nonce[:]), log: log, published: -1}, nil
}

// Chat publishes the current version if the fleet does not serve it yet,
// then samples through the fleet.
func (p *Publisher) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if err := p.Ensure(ctx); err != nil {
		return llm.Completion{}, err
	}
	return p.cfg.Fleet.Chat(ctx, messages, opts)
}

// Ensure makes the fleet serve the current version's adapter.
func (p *Publisher) Ensure(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	version := p.cfg.Version()
	if p.published == version {
		return nil
	}
	began := time.Now()
	defer func() { p.publishS += time.Since(began).Seconds() }()
	dir := filepath.Join(p.cfg.Dir, stepdir.Name(version))
	if err := p.cfg.Export(ctx, dir); err != nil {
		return fmt.Errorf("fleet: export adapter: %w", err)
	}
	p.attempt++
	name := fmt.Sprintf("%s-%s-%s-%d", p.cfg.Prefix, stepdir.Name(version), p.session, p.attempt)
	if err := p.cfg.Fleet.Publish(ctx, name, dir); err != nil {
		return fmt.Errorf("fleet: publish adapter of step %d: %w", version, err)
	}
	p.published = version
	p.log.Info("fleet: adapter published", "step", version, "name", name, "dir", dir)
	p.prune(dir)
	return nil
}

// TakePublishSeconds returns the time spent exporting and publishing since
// the last call.
func (p *Publisher) TakePublishSeconds() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.publishS
	p.publishS = 0
	return s
}

// Fleet returns the fleet the publisher samples through.
func (p *Publisher) Fleet() *Fleet { return p.cfg.Fleet }

// prune removes exported directories beyond the newest Keep (never
// current); failures are logged.
func (p *Publisher) prune(current string) {
	names, err := stepdir.List(p.cfg.Dir)
	if err != nil {
		p.log.Warn("fleet: listing published adapters", "err", err)
		return
	}
	names = slices.DeleteFunc(names, func(n string) bool { return filepath.Join(p.cfg.Dir, n) == current })
	if len(names) < p.cfg.Keep {
		return
	}
	for _, n := range names[p.cfg.Keep-1:] {
		if err := os.RemoveAll(filepath.Join(p.cfg.Dir, n)); err != nil {
			p.log.Warn("fleet: removing an old published adapter", "dir", n, "err", err)
		}
	}
}
