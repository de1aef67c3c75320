package experience

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
)

// fixedPool retrieves the same experiences for every task.
type fixedPool struct {
	exps []Experience
	err  error
	k    int
}

func (p *fixedPool) Retrieve(_ context.Context, _ []agentevolver.Message, k int) ([]Experience, error) {
	p.k = k
	return p.exps, p.err
}

func (p *fixedPool) Update(context.Context, []agentevolver.Trajectory) error { return nil }

func TestInjectorRoundTrip(t *testing.T) {
	init := []agentevolver.Message{{Role: agentevolver.RoleSystem, Content: "sys"}, {Role: agentevolver.RoleUser, Content: "Pay the bill."}}
	pool := &fixedPool{exps: []Experience{{Text: "Log in first."}, {Text: "  "}, {Text: "Check the balance.</EXP> then more"}}}
	in := &Injector{Pool: pool}
	out, exps, err := in.Inject(context.Background(), agentevolver.Task{}, init)
	if err != nil {
		t.Fatal(err)
	}
	if pool.k != DefaultTopK || len(exps) != 1 || init[1].Content != "Pay the bill." {
		t.Fatalf("k %d, experiences %q, input changed: %q", pool.k, exps, init[1].Content)
	}
	if !strings.HasPrefix(out[1].Content, exps[0]) || !strings.HasSuffix(out[1].Content, "Pay the bill.") || out[0].Content != init[0].Content {
		t.Fatalf("injected %q", out[1].Content)
	}
	// The training side strips exactly what was injected, even the text
	// that quoted the template's closing tag.
	var s contextmgr.TemplateStripper
	exp, cleaned, ok := s.Strip(out[1].Content, agentevolver.TrainDiscard)
	if !ok || cleaned != "Pay the bill." || exp != "Log in first.\nCheck the balance. then more" {
		t.Fatalf("stripped (%q, %q, %v)", exp, cleaned, ok)
	}
	if _, kept, ok := s.Strip(out[1].Content, agentevolver.TrainKeep); ok || kept != out[1].Content {
		t.Fatal("keep mode stripped")
	}
}

func TestInjectorNothingFound(t *testing.T) {
	init := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "task"}}
	out, exps, err := (&Injector{Pool: &fixedPool{}, TopK: 5}).Inject(context.Background(), agentevolver.Task{}, init)
	if err != nil || exps != nil || out[0].Content != "task" {
		t.Fatalf("%v %q %v", out, exps, err)
	}
	boom := errors.New("pool down")
	if _, _, err := (&Injector{Pool: &fixedPool{err: boom}}).Inject(context.Background(), agentevolver.Task{}, init); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	in := &Injector{Pool: &fixedPool{err: boom}}
	in.Inject(context.Background(), agentevolver.Task{}, init)
	in.Pool = &fixedPool{exps: []Experience{{Text: "tip"}}}
	in.Inject(context.Background(), agentevolver.Task{}, init)
	in.Inject(context.Background(), agentevolver.Task{}, init)
	in.Pool = &fixedPool{}
	in.Inject(context.Background(), agentevolver.Task{}, init)
	if got := in.Stats(); got != (InjectorStats{Hits: 2, Misses: 1, Errors: 1}) {
		t.Errorf("stats %+v", got)
	}
	if _, _, err := (&Injector{}).Inject(context.Background(), agentevolver.Task{}, init); !errors.Is(err, ErrConfig) {
		t.Fatalf("no pool: err = %v", err)
	}
}

func TestInjectorExcludeOwnTask(t *testing.T) {
	init := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Call Amy."}}
	pool := &fixedPool{exps: []Experience{
		{Text: "own solution", TaskID: "t1"},
		{Text: "Call Bob: phone.call name=Bob", TaskID: "t2"},
		{Text: "own again", TaskID: "t1"},
		{Text: "Call Cid: phone.call name=Cid", TaskID: "t3"},
	}}
	in := &Injector{Pool: pool, TopK: 1, ExcludeOwnTask: true}
	_, exps, err := in.Inject(context.Background(), agentevolver.Task{TaskID: "t1"}, init)
	if err != nil {
		t.Fatal(err)
	}
	if pool.k != 1+ownTaskMargin || len(exps) != 1 || strings.Contains(exps[0], "own") || !strings.Contains(exps[0], "Bob") || strings.Contains(exps[0], "Cid") {
		t.Fatalf("asked for %d, injected %q: want Bob's example alone", pool.k, exps)
	}
	// Without the option (or for a task without an id) the nearest is used.
	for _, in := range []*Injector{{Pool: pool, TopK: 1}, {Pool: pool, TopK: 1, ExcludeOwnTask: true}} {
		task := agentevolver.Task{TaskID: "t1"}
		if in.ExcludeOwnTask {
			task.TaskID = ""
		}
		if _, exps, _ := in.Inject(context.Background(), task, init); pool.k != 1 || !strings.Contains(exps[0], "own solution") {
			t.Fatalf("asked for %d, injected %q", pool.k, exps)
		}
	}
}
