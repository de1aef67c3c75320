package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/llm"
)

// plainOptions turn prefix reuse and continuous batching off: the
// uncached reference.
var plainOptions = PolicyOptions{PrefixCacheBytes: -1, NoContinuousBatching: true}

func logProbsClose(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// conversation plays turns of an episode against p: each turn appends the
// answer and a user observation naming the turn. Temperature 0 is
// greedy; turn t has seed seed0+t.
func conversation(t testing.TB, p *Policy, first string, turns int, temperature float64, seed0 int64) []llm.Completion {
	t.Helper()
	msgs := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You are a careful agent. Call one tool per turn."},
		{Role: agentevolver.RoleUser, Content: first},
	}
	var out []llm.Completion
	for turn := range turns {
		c, err := p.Chat(context.Background(), msgs, llm.ChatOptions{MaxTokens: 12, Temperature: llm.Float(temperature), Seed: seed(seed0 + int64(turn))})
		if err != nil {
			t.Error(err)
			return out
		}
		out = append(out, c)
		msgs = append(msgs, c.Message, agentevolver.Message{Role: agentevolver.RoleUser, Content: fmt.Sprintf("observation %d: ok", turn)})
	}
	return out
}

func sameCompletions(t *testing.T, what string, got, want []llm.Completion) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d turns, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i].TokenIDs, want[i].TokenIDs) || got[i].Message.Content != want[i].Message.Content {
			t.Errorf("%s turn %d: cached %v, uncached %v", what, i, got[i].TokenIDs, want[i].TokenIDs)
		}
		if !logProbsClose(got[i].LogProbs, want[i].LogProbs, 1e-5) {
			t.Errorf("%s turn %d: log-probs %v, uncached %v", what, i, got[i].LogProbs, want[i].LogProbs)
		}
	}
}

// TestPolicyPrefixReuseMatchesUncached runs multi-turn conversations with
// and without prefix reuse and continuous batching, greedy and seeded: the
// sampled tokens are identical, and the cached policy prefills less.
func TestPolicyPrefixReuseMatchesUncached(t *testing.T) {
	cached := newTestPolicy(t, PolicyOptions{})
	plain, err := NewPolicy(cached.Model(), cached.tok, nil, plainOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, temp := range []float64{0, 1} {
		want := conversation(t, plain, "Find the weather in Paris.", 4, temp, 7)
		got := conversation(t, cached, "Find the weather in Paris.", 4, temp, 7)
		sameCompletions(t, fmt.Sprintf("temperature %g", temp), got, want)
	}
	cs, ps := cached.Stats(), plain.Stats()
	if cs.ReusedTokens == 0 || cs.PrefillTokens >= ps.PrefillTokens || cs.PrefillTokens+cs.ReusedTokens != ps.PrefillTokens {
		t.Errorf("cached prefilled %d and reused %d tokens, uncached prefilled %d", cs.PrefillTokens, cs.ReusedTokens, ps.PrefillTokens)
	}
	if cs.GeneratedTokens != ps.GeneratedTokens || cs.Requests != 8 || ps.Requests != 8 {
		t.Errorf("stats cached %+v, uncached %+v", cs, ps)
	}
}

// TestPolicyPrefixReuseConcurrent runs groups of rollouts (siblings share
// their first prompt) as concurrent multi-turn episodes that join and
// leave the running batch, and requires every episode to equal the same
// episode run alone without caching; also with the cache moved through
// host copies, as on a backend whose buffers are not host memory.
func TestPolicyPrefixReuseConcurrent(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			cached := newTestPolicy(t, PolicyOptions{MaxBatch: 5})
			cached.engine.shared = shared && cached.engine.shared
			testConcurrentEpisodes(t, cached)
		})
	}
}

func testConcurrentEpisodes(t *testing.T, cached *Policy) {
	plain, err := NewPolicy(cached.Model(), cached.tok, nil, plainOptions)
	if err != nil {
		t.Fatal(err)
	}
	const episodes, group = 12, 4
	task := func(i int) string { return fmt.Sprintf("Task %d: book a table for %d.", i/group, i/group+2) }
	temperature := func(i int) float64 { return float64(i % 2) } // greedy and sampled episodes mixed
	want := make([][]llm.Completion, episodes)
	for i := range want {
		want[i] = conversation(t, plain, task(i), 3, temperature(i), int64(100*i))
	}
	got := make([][]llm.Completion, episodes)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = conversation(t, cached, task(i), 3, temperature(i), int64(100*i)) })
	}
	wg.Wait()
	for i := range got {
		sameCompletions(t, fmt.Sprintf("episode %d", i), got[i], want[i])
	}
	if s := cached.Stats(); s.ReusedTokens == 0 {
		t.Errorf("no prefix reused: %+v", s)
	}
}

// TestPrefixCacheEviction checks the cache's memory bound, least recently
// used eviction and that a longer sequence supersedes its prefix.
func TestPrefixCacheEviction(t *testing.T) {
	geo := kvGeometry{layers: 2, kvHeads: 1, headDim: 2}
	per := geo.bytesPerToken()
	c := prefixCache{geo: geo, maxBytes: 10 * per}
	add := func(ids ...int) { c.add(ids, geo.newRowKV(len(ids))) }
	add(1, 2, 3)
	add(1, 2, 3, 4, 5) // supersedes 1 2 3
	if len(c.entries) != 1 || c.bytes != 5*per {
		t.Fatalf("after superseding: %d entries, %d bytes", len(c.entries), c.bytes)
	}
	add(7, 8, 9)
	if e, n := c.longest([]int{1, 2, 3, 4, 6}, 10); e == nil || n != 4 {
		t.Fatalf("longest prefix %d, want 4", n)
	}
	add(4, 4, 4) // 11 tokens: evicts the least recently used, 7 8 9
	if c.bytes > c.maxBytes || len(c.entries) != 2 {
		t.Fatalf("%d entries, %d bytes over bound %d", len(c.entries), c.bytes, c.maxBytes)
	}
	if _, n := c.longest([]int{7, 8, 9}, 3); n != 0 {
		t.Errorf("evicted entry still found (%d tokens)", n)
	}
	if _, n := c.longest([]int{1, 2, 3, 4, 5}, 4); n != 4 {
		t.Errorf("recently used entry lost: %d tokens, limit 4", n)
	}
	add(make([]int, 11)...) // larger than the bound: not cached
	if c.bytes > c.maxBytes {
		t.Errorf("%d bytes over bound %d", c.bytes, c.maxBytes)
	}
}

// TestPolicyPrefixCacheBound runs episodes under a bound smaller than
// their caches: entries are evicted, memory stays under the bound and the
// outputs are unchanged.
func TestPolicyPrefixCacheBound(t *testing.T) {
	probe := newTestPolicy(t, PolicyOptions{})
	bound := 120 * probe.Model().kvGeometry().bytesPerToken() // about two prompts
	cached, err := NewPolicy(probe.Model(), probe.tok, nil, PolicyOptions{PrefixCacheBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewPolicy(probe.Model(), probe.tok, nil, plainOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		first := fmt.Sprintf("Episode %d: count the apples.", i)
		sameCompletions(t, first, conversation(t, cached, first, 3, 1, int64(i)), conversation(t, plain, first, 3, 1, int64(i)))
		if s := cached.Stats(); s.PrefixCacheBytes > bound || s.PrefixCacheEntries == 0 {
			t.Errorf("after episode %d: %d entries, %d bytes, bound %d", i, s.PrefixCacheEntries, s.PrefixCacheBytes, bound)
		}
	}
}

// TestPolicyPrefixCacheDroppedOnNewWeights changes a weight between turns:
// the cached keys and values no longer hold and must not be used.
func TestPolicyPrefixCacheDroppedOnNewWeights(t *testing.T) {
	cached := newTestPolicy(t, PolicyOptions{})
	plain, err := NewPolicy(cached.Model(), cached.tok, nil, plainOptions)
	if err != nil {
		t.Fatal(err)
	}
	first := "Find the weather in Rome."
	conversation(t, cached, first, 2, 0, 1)
	v := cached.Model().Context().GetVariableByScopeAndName(variableScope("model.norm.weight"))
	data := make([]float32, v.Shape().Size())
	for i := range data {
		data[i] = 0.5
	}
	if err := v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)); err != nil {
		t.Fatal(err)
	}
	before := cached.Stats().ReusedTokens
	sameCompletions(t, "new weights", conversation(t, cached, first, 2, 0, 1), conversation(t, plain, first, 2, 0, 1))
	// The first prompt after the change finds nothing; the second turn
	// reuses the first.
	if s := cached.Stats(); s.ReusedTokens == before {
		t.Errorf("no reuse after the change: %+v", s)
	}
}

// TestPolicyContinuousBatching starts a long request, then a short one
// while it runs: the short one joins the running batch and finishes first,
// and neither output changes. Without continuous batching the short one
// waits for the long one.
func TestPolicyContinuousBatching(t *testing.T) {
	probe := newTestPolicy(t, PolicyOptions{})
	never := []int{-1} // no stop token: the long request runs to MaxTokens
	for _, tc := range []struct {
		name       string
		opts       PolicyOptions
		shortFirst bool
	}{
		{"continuous", PolicyOptions{StopTokens: never}, true},
		{"batches", PolicyOptions{StopTokens: never, NoContinuousBatching: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPolicy(probe.Model(), probe.tok, nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			greedy := llm.Float(0)
			long := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Tell me a long story."}}
			short := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Say hi."}}
			aloneLong, err := p.Chat(context.Background(), long, llm.ChatOptions{MaxTokens: 200, Temperature: greedy})
			if err != nil {
				t.Fatal(err)
			}
			aloneShort, err := p.Chat(context.Background(), short, llm.ChatOptions{MaxTokens: 3, Temperature: greedy})
			if err != nil {
				t.Fatal(err)
			}
			// The decode steps taken when each request returns tell which
			// finished first, whatever the goroutines' scheduling: the long
			// request takes 199 steps after its prefill.
			results := map[string]llm.Completion{}
			stepsAt := map[string]int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			run := func(name string, msgs []agentevolver.Message, maxTokens int) {
				c, err := p.Chat(context.Background(), msgs, llm.ChatOptions{MaxTokens: maxTokens, Temperature: greedy})
				if err != nil {
					t.Error(err)
				}
				steps := p.Stats().DecodeSteps
				mu.Lock()
				results[name], stepsAt[name] = c, steps
				mu.Unlock()
			}
			start := p.Stats().DecodeSteps
			wg.Go(func() { run("long", long, 200) })
			for p.Stats().DecodeSteps < start+5 { // the long request is decoding
				time.Sleep(100 * time.Microsecond)
			}
			wg.Go(func() { run("short", short, 3) })
			wg.Wait()
			longDone := start + 199
			if shortFirst := stepsAt["short"] < longDone; shortFirst != tc.shortFirst {
				t.Errorf("short request returned after %d decode steps, the long one finished at %d", stepsAt["short"]-start, longDone-start)
			}
			if !slices.Equal(results["long"].TokenIDs, aloneLong.TokenIDs) || !slices.Equal(results["short"].TokenIDs, aloneShort.TokenIDs) {
				t.Errorf("outputs changed when batched: long %v / %v, short %v / %v",
					results["long"].TokenIDs, aloneLong.TokenIDs, results["short"].TokenIDs, aloneShort.TokenIDs)
			}
		})
	}
}

// TestPolicyHoldsAdmissionBriefly starts enough long requests to keep the
// batch busy, then one short request: it is held back for admitMaxHold
// decode steps in case others arrive to share its prefill, then admitted,
// long before the long requests end; and no output changes.
func TestPolicyHoldsAdmissionBriefly(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{StopTokens: []int{-1}})
	greedy := llm.Float(0)
	short := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Say hi."}}
	alone, err := p.Chat(context.Background(), short, llm.ChatOptions{MaxTokens: 3, Temperature: greedy})
	if err != nil {
		t.Fatal(err)
	}
	start := p.Stats().DecodeSteps
	var wg sync.WaitGroup
	for i := range admitHoldRows {
		long := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: fmt.Sprintf("Tell story %d.", i)}}
		wg.Go(func() {
			if _, err := p.Chat(context.Background(), long, llm.ChatOptions{MaxTokens: 200, Temperature: greedy}); err != nil {
				t.Error(err)
			}
		})
	}
	for p.Stats().DecodeSteps < start+5 || p.engineActive() < admitHoldRows {
		time.Sleep(100 * time.Microsecond)
	}
	submitted := p.Stats().DecodeSteps
	got, err := p.Chat(context.Background(), short, llm.ChatOptions{MaxTokens: 3, Temperature: greedy})
	if err != nil {
		t.Fatal(err)
	}
	// Admitted at least admitMaxHold steps after it was queued; its other
	// two tokens take two more steps.
	took := p.Stats().DecodeSteps - submitted
	if took < admitMaxHold+2 || took > admitMaxHold+60 {
		t.Errorf("the short request returned %d decode steps after it was sent; want it held %d steps, not until the long ones end", took, admitMaxHold)
	}
	if !slices.Equal(got.TokenIDs, alone.TokenIDs) {
		t.Errorf("held request: %v, alone %v", got.TokenIDs, alone.TokenIDs)
	}
	wg.Wait()
}

// TestPolicyCancelRunning cancels a request while it decodes in the
// running batch: it ends with the context's error, and a request running
// beside it is unaffected.
func TestPolicyCancelRunning(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{StopTokens: []int{-1}})
	greedy := llm.Float(0)
	other := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Count to ten."}}
	alone, err := p.Chat(context.Background(), other, llm.ChatOptions{MaxTokens: 60, Temperature: greedy})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var cancelled error
	wg.Go(func() {
		_, cancelled = p.Chat(ctx, hello, llm.ChatOptions{MaxTokens: 200, Temperature: greedy})
	})
	var beside llm.Completion
	wg.Go(func() {
		var err error
		if beside, err = p.Chat(context.Background(), other, llm.ChatOptions{MaxTokens: 60, Temperature: greedy}); err != nil {
			t.Error(err)
		}
	})
	steps := p.Stats().DecodeSteps
	for p.Stats().DecodeSteps < steps+3 {
		time.Sleep(100 * time.Microsecond)
	}
	cancel()
	wg.Wait()
	if !errors.Is(cancelled, context.Canceled) {
		t.Errorf("cancelled request returned %v", cancelled)
	}
	if !slices.Equal(beside.TokenIDs, alone.TokenIDs) {
		t.Errorf("request beside the cancelled one: %v, alone %v", beside.TokenIDs, alone.TokenIDs)
	}
}

// BenchmarkPolicyEpisodes runs 16 concurrent three-turn episodes (groups
// of four sharing their first prompt) with and without prefix reuse and
// continuous batching.
func BenchmarkPolicyEpisodes(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts PolicyOptions
	}{{"plain", plainOptions}, {"continuous+prefix", PolicyOptions{}}} {
		b.Run(mode.name, func(b *testing.B) {
			probe := newTestPolicy(b, PolicyOptions{})
			p, err := NewPolicy(probe.Model(), probe.tok, nil, mode.opts)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range 16 {
					wg.Go(func() { conversation(b, p, fmt.Sprintf("Task %d: water the plants.", i/4), 3, 1, int64(i)) })
				}
				wg.Wait()
			}
			s := p.Stats()
			b.ReportMetric(float64(s.PrefillTokens)/float64(s.GeneratedTokens), "prefill/generated")
		})
	}
}

// TestPolicyBitwiseIndependentOfBatch requires the engine's completions,
// log-probs included, to be bitwise the same whether an episode runs alone
// or among others joining and leaving the batch, and with or without
// prefix reuse: a row's numbers do not depend on its neighbours or on
// where its keys and values came from.
func TestPolicyBitwiseIndependentOfBatch(t *testing.T) {
	alone := newTestPolicy(t, PolicyOptions{PrefixCacheBytes: -1})
	const episodes = 10
	task := func(i int) string { return fmt.Sprintf("Task %d: sort the %d letters.", i/3, i) }
	want := make([][]llm.Completion, episodes)
	for i := range want {
		want[i] = conversation(t, alone, task(i), 3, float64(i%2), int64(i))
	}
	for _, opts := range []PolicyOptions{{MaxBatch: 4}, {MaxBatch: 7, PrefixCacheBytes: -1}} {
		p, err := NewPolicy(alone.Model(), alone.tok, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		sameTurnsBitwise(t, fmt.Sprintf("%+v", opts), concurrentConversations(t, p, task, episodes), want)
	}
}

// concurrentConversations runs conversation i (task(i), three turns,
// greedy for even i) for every i < episodes at once on p.
func concurrentConversations(t *testing.T, p *Policy, task func(int) string, episodes int) [][]llm.Completion {
	got := make([][]llm.Completion, episodes)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = conversation(t, p, task(i), 3, float64(i%2), int64(i)) })
	}
	wg.Wait()
	return got
}

// sameTurnsBitwise checks every turn's tokens and log-probabilities bit
// for bit.
func sameTurnsBitwise(t *testing.T, what string, got, want [][]llm.Completion) {
	t.Helper()
	for i := range got {
		for turn := range got[i] {
			g, w := got[i][turn], want[i][turn]
			if !slices.Equal(g.TokenIDs, w.TokenIDs) || !slices.Equal(g.LogProbs, w.LogProbs) {
				t.Errorf("%s episode %d turn %d: %v %v, alone %v %v", what, i, turn, g.TokenIDs, g.LogProbs, w.TokenIDs, w.LogProbs)
			}
		}
	}
}

// TestPolicyBlocksBitwise runs conversations whose prompts differ in
// length by hundreds of tokens at once, so that the running batch is split
// into blocks of similar rows, and checks every turn's tokens and
// log-probabilities bit for bit against each conversation run alone.
func TestPolicyBlocksBitwise(t *testing.T) {
	alone := newTestPolicy(t, PolicyOptions{PrefixCacheBytes: -1})
	const episodes = 9
	task := func(i int) string {
		if i%3 == 0 {
			return fmt.Sprintf("Task %d: %s", i, strings.Repeat("sort the letters and then report them back. ", 8))
		}
		return fmt.Sprintf("Task %d: sort.", i)
	}
	want := make([][]llm.Completion, episodes)
	for i := range want {
		want[i] = conversation(t, alone, task(i), 3, float64(i%2), int64(i))
	}
	p, err := NewPolicy(alone.Model(), alone.tok, nil, PolicyOptions{MaxBatch: 8})
	if err != nil {
		t.Fatal(err)
	}
	sameTurnsBitwise(t, "blocks", concurrentConversations(t, p, task, episodes), want)
	if s := p.Stats(); s.DecodeBlocks <= s.DecodeSteps {
		t.Errorf("%d decode steps over %d blocks: the batch was never split", s.DecodeSteps, s.DecodeBlocks)
	}
}

func TestPlanBlocks(t *testing.T) {
	rows := func(lengths ...int) []*slot {
		var out []*slot
		for _, n := range lengths {
			out = append(out, &slot{ids: make([]int, n)})
		}
		return out
	}
	if g := planBlocks(nil); g != nil {
		t.Errorf("no rows: %v", g)
	}
	// Similar rows share one block.
	if g := planBlocks(rows(100, 110, 120, 90)); len(g) != 1 || len(g[0]) != 4 {
		t.Errorf("similar rows: %d blocks", len(g))
	}
	// Many short rows and a few long ones: the long ones alone in the
	// last block, blocks in order of length.
	in := rows(40, 500, 41, 42, 43, 44, 45, 480, 46, 47, 48, 49)
	g := planBlocks(in)
	if last := g[len(g)-1]; len(g) < 2 || len(g) > maxDecodeBlocks || len(last) != 2 || len(last[0].ids) != 480 || len(last[1].ids) != 500 {
		t.Fatalf("short and long rows: %d blocks, last %d rows", len(g), len(last))
	}
	seen := map[*slot]bool{}
	for _, b := range g {
		for _, s := range b {
			seen[s] = true
		}
	}
	if len(seen) != len(in) {
		t.Errorf("%d of %d rows placed", len(seen), len(in))
	}
}

// TestEngineSharesBackendTeam: on gofast the engine's layout copies run on
// the backend's own team, not on a team of its own.
func TestEngineSharesBackendTeam(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{})
	b, ok := p.Model().backend.(interface{ Team() *parallel.Team })
	if !ok {
		t.Skipf("backend %s has no team", p.Model().backend.Name())
	}
	if p.engine == nil || p.engine.team != b.Team() {
		t.Errorf("engine team %p, backend team %p", p.engine.team, b.Team())
	}
}
