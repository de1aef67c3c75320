package envservice_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// newToolworldManager returns a Manager serving toolworld under its name.
func newToolworldManager(tb testing.TB) (*envservice.Manager, *toolworld.Env) {
	tb.Helper()
	tw, err := toolworld.New(toolworld.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register(toolworld.Name, tw); err != nil {
		tb.Fatal(err)
	}
	return m, tw
}

// playEpisode runs one expert episode of taskID through env and returns the
// latency of each step.
func playEpisode(ctx context.Context, env envclient.Env, taskID string, actions []agentevolver.Message) (_ []time.Duration, err error) {
	init, err := env.Create(ctx, toolworld.Name, taskID, "", nil)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", taskID, err)
	}
	id := init.InstanceID()
	defer func() {
		if err != nil { // a failed episode still frees its instance
			_, _ = env.Release(context.WithoutCancel(ctx), id)
		}
	}()
	if len(init.State) != 2 || init.State[1].Role != agentevolver.RoleUser {
		return nil, fmt.Errorf("%s: init state %+v, want system and user messages", taskID, init.State)
	}
	latencies := make([]time.Duration, 0, len(actions))
	for i, a := range actions {
		start := time.Now()
		res, err := env.Step(ctx, id, a, nil)
		latencies = append(latencies, time.Since(start))
		if err != nil {
			return nil, fmt.Errorf("%s step %d: %w", taskID, i, err)
		}
		if len(res.State) != 1 {
			return nil, fmt.Errorf("%s step %d: %d observation messages, want 1", taskID, i, len(res.State))
		}
		last := i == len(actions)-1
		if res.IsTerminated != last {
			return nil, fmt.Errorf("%s step %d: terminated = %v", taskID, i, res.IsTerminated)
		}
		if last && res.Reward != 1 {
			return nil, fmt.Errorf("%s: final reward %v, want 1", taskID, res.Reward)
		}
	}
	for _, sparse := range []bool{true, false} {
		score, err := env.Evaluate(ctx, id, map[string]any{"sparse": sparse})
		if err != nil {
			return nil, fmt.Errorf("%s evaluate: %w", taskID, err)
		}
		if score != 1 {
			return nil, fmt.Errorf("%s: evaluate(sparse=%v) = %v, want 1", taskID, sparse, score)
		}
	}
	released, err := env.Release(ctx, id)
	if err != nil || !released {
		return nil, fmt.Errorf("%s release = %v, %v", taskID, released, err)
	}
	return latencies, nil
}

// TestToolworldRoundTrip plays whole toolworld episodes through the real
// stack: envclient.Client -> HTTP -> Server -> Manager -> toolworld. The
// server trusts client ids, so that an id in use can be tried again.
func TestToolworldRoundTrip(t *testing.T) {
	m, tw := newToolworldManager(t)
	ts := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: toolworld.Name, TrustClientIDs: true}))
	defer ts.Close()
	defer m.Close()
	client, err := envclient.New(envclient.Config{BaseURL: ts.URL, EnvType: toolworld.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := client.Health(ctx); err != nil {
		t.Fatal(err)
	}

	for split, n := range map[string]int{toolworld.SplitTrain: toolworld.DefaultTrainSize, toolworld.SplitVal: toolworld.DefaultValSize} {
		ids, err := client.TaskIDs(ctx, toolworld.Name, split)
		if err != nil || len(ids) != n {
			t.Fatalf("TaskIDs(%s) = %d ids, %v; want %d", split, len(ids), err, n)
		}
	}
	ids, _ := client.TaskIDs(ctx, toolworld.Name, toolworld.SplitTrain)

	// One task of each level.
	for _, taskID := range ids[:3] {
		actions, err := tw.Solve(taskID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := playEpisode(ctx, client, taskID, actions); err != nil {
			t.Fatal(err)
		}
	}

	// Info, a rejected create, and calls after release.
	init, err := client.Create(ctx, toolworld.Name, ids[0], "round-trip", nil)
	if err != nil || init.InstanceID() != "round-trip" {
		t.Fatalf("create = %+v, %v", init, err)
	}
	info, err := client.Info(ctx, "round-trip", nil)
	if err != nil || !strings.Contains(string(info), "contacts") {
		t.Fatalf("info = %.80s, %v", info, err)
	}
	if _, err := client.Create(ctx, toolworld.Name, ids[0], "round-trip", nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Fatalf("create with an id in use: %v", err)
	}
	if _, err := client.Create(ctx, toolworld.Name, "no-such-task", "", nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Fatalf("create on an unknown task: %v", err)
	}
	if _, err := client.Create(ctx, "appworld", ids[0], "", nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Fatalf("create of an unregistered env: %v", err)
	}
	if ok, err := client.Release(ctx, "round-trip"); !ok || err != nil {
		t.Fatalf("release = %v, %v", ok, err)
	}
	if ok, err := client.Release(ctx, "round-trip"); ok || err != nil {
		t.Fatalf("second release = %v, %v; want false, nil", ok, err)
	}
	if _, err := client.Step(ctx, "round-trip", agentevolver.Message{Content: "x"}, nil); !errors.Is(err, envclient.ErrInstanceNotFound) {
		t.Fatalf("step after release: %v", err)
	}
	if st := m.Stats(); st.Live != 0 || st.Created != 4 || st.Released != 4 {
		t.Fatalf("stats = %+v", st)
	}
}

// BenchmarkConcurrentEpisodes plays 256 expert toolworld episodes at once per
// iteration against a real server on loopback, through envclient.Client, and
// reports step throughput and the 99th percentile step latency. It fails if
// any episode does not complete with a perfect score or any instance is left
// behind.
func BenchmarkConcurrentEpisodes(b *testing.B) {
	const episodes = 256
	m, tw := newToolworldManager(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: toolworld.Name}).Serve(ctx, ln)
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			b.Error(err)
		}
	}()
	client, err := envclient.New(envclient.Config{BaseURL: "http://" + ln.Addr().String(), EnvType: toolworld.Name, MaxRetries: -1})
	if err != nil {
		b.Fatal(err)
	}
	ids, err := client.TaskIDs(ctx, toolworld.Name, toolworld.SplitTrain)
	if err != nil || len(ids) < episodes {
		b.Fatalf("TaskIDs = %d ids, %v", len(ids), err)
	}
	solutions := make([][]agentevolver.Message, episodes)
	for i := range solutions {
		if solutions[i], err = tw.Solve(ids[i]); err != nil {
			b.Fatal(err)
		}
	}

	var latencies []time.Duration
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var (
			mu      sync.Mutex
			wg      sync.WaitGroup
			errs    []error
			batch   []time.Duration
			episode int
		)
		for i := range episodes {
			wg.Go(func() {
				lat, err := playEpisode(ctx, client, ids[i], solutions[i])
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				episode++
				batch = append(batch, lat...)
			})
		}
		wg.Wait()
		elapsed += time.Since(start)
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
		if episode != episodes {
			b.Fatalf("%d of %d episodes completed", episode, episodes)
		}
		latencies = append(latencies, batch...)
	}
	b.StopTimer()

	if st := m.Stats(); st.Live != 0 || st.Created != st.Released || st.Created != uint64(b.N*episodes) {
		b.Fatalf("lost or leaked instances: %+v after %d episodes", st, b.N*episodes)
	}
	slices.Sort(latencies)
	p := func(q float64) float64 {
		return float64(latencies[int(q*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "steps/s")
	b.ReportMetric(float64(b.N*episodes)/elapsed.Seconds(), "episodes/s")
	b.ReportMetric(p(0.50), "p50-step-ms")
	b.ReportMetric(p(0.99), "p99-step-ms")
}
