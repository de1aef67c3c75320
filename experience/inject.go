package experience

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
)

// DefaultTemplate wraps retrieved experience before it is prepended to
// the task (reference §5.2); "{}" marks where the experience goes. It is
// contextmgr.DefaultExperienceTemplate under the name experience's users
// look for: one constant, so that what Injector wraps is what
// contextmgr.TemplateStripper strips. The text lives in contextmgr because
// this package imports contextmgr, not the other way round.
const DefaultTemplate = contextmgr.DefaultExperienceTemplate

// DefaultTopK is how many experiences are retrieved per task
// (reme.retrieve_top_k).
const DefaultTopK = 3

// ownTaskMargin is how many more experiences than TopK an Injector with
// ExcludeOwnTask retrieves: a pool updated every step holds one worked
// example per successful chunk of a task's episodes.
const ownTaskMargin = 8

// Injector adds experience from a Pool to an episode's initial messages
// (reference §5.3): it retrieves up to TopK experiences for them, formats
// their texts with Template and prepends the result to the last initial
// message, the task. It implements agentflow.ExperienceInjector. The zero
// Template and TopK mean DefaultTemplate and DefaultTopK.
type Injector struct {
	Pool     Pool
	Template string
	TopK     int
	// ExcludeOwnTask leaves out experience distilled from the episode's
	// own task (Experience.TaskID equal to the task's TaskID), so that a
	// policy trained on such prompts learns to adapt a similar task's
	// solution rather than to copy its own (the trainer's warm start with
	// experience sets it). The reference retrieves whatever is nearest.
	ExcludeOwnTask bool

	hits, misses, errs atomic.Int64
}

// InjectorStats count an Injector's retrievals since it was made.
type InjectorStats struct {
	// Hits found experience, Misses found none, Errors failed.
	Hits, Misses, Errors int64
}

// Stats returns the retrieval counts so far.
func (in *Injector) Stats() InjectorStats {
	return InjectorStats{Hits: in.hits.Load(), Misses: in.misses.Load(), Errors: in.errs.Load()}
}

// Inject returns msgs with experience prepended to the last message, and
// the formatted experience; msgs unchanged (and no experience) when the
// pool has none for the task. Errors are the pool's; the agent flow then
// runs the episode without experience.
func (in *Injector) Inject(ctx context.Context, task agentevolver.Task, msgs []agentevolver.Message) ([]agentevolver.Message, []string, error) {
	if in == nil || in.Pool == nil {
		return nil, nil, fmt.Errorf("%w: injector without a pool", ErrConfig)
	}
	if len(msgs) == 0 {
		return msgs, nil, nil
	}
	k := in.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	want := k
	if in.ExcludeOwnTask && task.TaskID != "" {
		// The own task's experiences are the nearest; ask for enough
		// more that k others remain when a pool holds several of them.
		want = k + ownTaskMargin
	}
	exps, err := in.Pool.Retrieve(ctx, msgs, want)
	if err != nil {
		in.errs.Add(1)
		return nil, nil, err
	}
	if want != k {
		// A new slice: the pool's may be its own (a cache, say).
		others := make([]Experience, 0, k)
		for _, e := range exps {
			if e.TaskID != task.TaskID && len(others) < k {
				others = append(others, e)
			}
		}
		exps = others
	}
	tpl := in.Template
	if tpl == "" {
		tpl = DefaultTemplate
	}
	// An experience (an LLM's words, untrusted) holding the template's
	// closing text would end the stripper's match early and leave the
	// rest of it in the training sample: such text is removed.
	_, closing, _ := strings.Cut(tpl, "{}")
	closing = strings.TrimSpace(closing)
	var texts []string
	for _, e := range exps {
		t := e.Text
		if closing != "" {
			t = strings.ReplaceAll(t, closing, "")
		}
		if t = strings.TrimSpace(t); t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		in.misses.Add(1)
		return msgs, nil, nil
	}
	in.hits.Add(1)
	formatted := strings.Replace(tpl, "{}", strings.Join(texts, "\n"), 1)
	out := slices.Clone(msgs)
	out[len(out)-1].Content = formatted + out[len(out)-1].Content
	return out, []string{formatted}, nil
}
