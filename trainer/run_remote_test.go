package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/runlog"
)

// fakeVLLM is a scripted vLLM server over an in-process model: it samples
// chat completions with the base model plus the LoRA adapter a request
// names (loaded from its PEFT directory by POST /v1/load_lora_adapter, as
// vLLM's runtime LoRA API does), answers with token ids and log-probs, and
// can be told to fail requests, to go down for some requests, or to answer with a stale
// adapter's name.
type fakeVLLM struct {
	t   *testing.T
	srv *httptest.Server
	// newPolicy builds the base model with the adapter in dir.
	newPolicy func(dir string) (llm.ChatModel, error)

	mu        sync.Mutex
	adapters  map[string]llm.ChatModel
	loads     []string
	unloads   []string
	chats     map[string]int // requests per model name
	unknown   int            // requests naming a model it did not hold
	failChats int            // the next failChats chat requests answer 503
	staleNext int            // the next staleNext replies name another model
	downFor   int            // the next downFor requests of any kind answer 503
}

func newFakeVLLM(t *testing.T, newPolicy func(dir string) (llm.ChatModel, error)) *fakeVLLM {
	t.Helper()
	f := &fakeVLLM{t: t, newPolicy: newPolicy, adapters: map[string]llm.ChatModel{}, chats: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeVLLM) baseURL() string { return f.srv.URL + "/v1" }

func (f *fakeVLLM) set(fn func(f *fakeVLLM)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeVLLM) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	down := f.downFor > 0
	if down {
		f.downFor--
	}
	f.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	var req struct {
		LoraName string `json:"lora_name"`
		LoraPath string `json:"lora_path"`
	}
	switch r.URL.Path {
	case "/v1/models":
		f.mu.Lock()
		data := []map[string]string{{"id": "base"}}
		for name := range f.adapters {
			data = append(data, map[string]string{"id": name, "parent": "base"})
		}
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	case "/v1/load_lora_adapter":
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.LoraName == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		p, err := f.newPolicy(req.LoraPath)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.adapters[req.LoraName]; ok {
			http.Error(w, "already loaded", http.StatusBadRequest)
			return
		}
		f.adapters[req.LoraName] = p
		f.loads = append(f.loads, req.LoraName)
		fmt.Fprintf(w, "Success: LoRA adapter '%s' added successfully.", req.LoraName)
	case "/v1/unload_lora_adapter":
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.adapters[req.LoraName]; !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		delete(f.adapters, req.LoraName)
		f.unloads = append(f.unloads, req.LoraName)
	case "/v1/chat/completions":
		f.chat(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeVLLM) chat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model       string                 `json:"model"`
		Messages    []agentevolver.Message `json:"messages"`
		Temperature *float64               `json:"temperature"`
		TopP        float64                `json:"top_p"`
		TopK        int                    `json:"top_k"`
		MaxTokens   int                    `json:"max_tokens"`
		Stop        []string               `json:"stop"`
		Seed        *int64                 `json:"seed"`
		LogProbs    bool                   `json:"logprobs"`
		TokenIDs    bool                   `json:"return_tokens_as_token_ids"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.LogProbs || !req.TokenIDs {
		http.Error(w, fmt.Sprintf("bad request (%v)", err), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.chats[req.Model]++
	p, ok := f.adapters[req.Model]
	fail := f.failChats > 0
	if fail {
		f.failChats--
	}
	name := req.Model
	if !fail && ok && f.staleNext > 0 {
		f.staleNext--
		name = "an-older-adapter"
	}
	if !ok {
		f.unknown++
	}
	f.mu.Unlock()
	switch {
	case fail:
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
		return
	case !ok:
		http.Error(w, `{"object": "error", "message": "The model does not exist."}`, http.StatusNotFound)
		return
	}
	out, err := p.Chat(r.Context(), req.Messages, llm.ChatOptions{
		Temperature: req.Temperature, TopP: req.TopP, TopK: req.TopK, MaxTokens: req.MaxTokens,
		Stop: req.Stop, Seed: req.Seed, LogProbs: true,
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	type token struct {
		Token   string  `json:"token"`
		LogProb float64 `json:"logprob"`
	}
	tokens := make([]token, len(out.TokenIDs))
	for i, id := range out.TokenIDs {
		tokens[i] = token{Token: fmt.Sprintf("token_id:%d", id), LogProb: out.LogProbs[i]}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "cmpl-fake", "object": "chat.completion", "model": name,
		"choices": []map[string]any{{
			"index": 0, "message": map[string]any{"role": "assistant", "content": out.Message.Content},
			"finish_reason": out.FinishReason, "logprobs": map[string]any{"content": tokens},
		}},
		"usage": map[string]int{"prompt_tokens": out.PromptTokens, "completion_tokens": out.CompletionTokens},
	})
}

// basePolicies returns what a fakeVLLM serving cfg's base model needs: a
// builder of the base model (model.New of cfg's shape and seed, as the
// trainer builds it) with a PEFT adapter loaded.
func basePolicies(t *testing.T, cfg Config) func(dir string) (llm.ChatModel, error) {
	t.Helper()
	ctx := context.Background()
	backend, err := model.NewBackend(cfg.Trainer.Backend)
	if err != nil {
		t.Fatal(err)
	}
	tok, tmpl, _, err := loadTokenizer(ctx, cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return func(dir string) (llm.ChatModel, error) {
		m, err := newPolicyModel(ctx, cfg, tok, backend)
		if err != nil {
			return nil, err
		}
		if err := m.LoadAdapter(ctx, dir); err != nil {
			return nil, err
		}
		return model.NewPolicy(m, tok, tmpl, model.PolicyOptions{PrefixCacheBytes: -1})
	}
}

// remoteConfig is tinyConfig sampling through the given servers with LoRA.
func remoteConfig(t *testing.T, urls ...string) Config {
	t.Helper()
	cfg := tinyConfig(t)
	cfg.Model.Tokenizer = "byte" // the fake servers build the same one
	cfg.Actor.LoRA = LoRAConfig{R: 4, Alpha: 8}
	// Large steps, so that sampling with a stale adapter would show in
	// rollout/logprob_diff.
	cfg.Actor.LR, cfg.Actor.LRWarmupSteps = 1e-2, 0
	cfg.Rollout.Engine = EngineRemote
	cfg.Rollout.Remote = RemoteConfig{BaseURLs: urls, RetryMin: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond}
	cfg.Rollout.Concurrency = 4
	cfg.Trainer.RLSteps = 4
	cfg.Trainer.TestFreq = 0 // validation before and after RL
	cfg.Trainer.OutageTimeout = time.Minute
	return cfg
}

// TestFitRemote trains through two fake vLLM servers: every step's
// adapter is published and loaded into both (the previous one unloaded)
// and every request names it; the servers' samples are those of the
// trainer's own weights (tiny rollout/logprob_diff); a server that fails
// leaves the rotation and comes back; a reply from another adapter fails
// its episode's attempt, which is tried again on the other server; and an
// outage of the whole fleet is waited out.
func TestFitRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model through fake servers")
	}
	probe := remoteConfig(t)
	a := newFakeVLLM(t, basePolicies(t, probe))
	b := newFakeVLLM(t, basePolicies(t, probe))
	cfg := remoteConfig(t, a.baseURL(), b.baseURL())
	cfg.Trainer.OutputDir = probe.Trainer.OutputDir

	record := recorderFunc(func(_ context.Context, step int, _ []agentevolver.Trajectory) error {
		switch step {
		case 0: // step 2: a answers once for another adapter
			a.set(func(f *fakeVLLM) { f.staleNext = 1 })
		case 1: // step 3: b fails twice
			b.set(func(f *fakeVLLM) { f.failChats = 2 })
		case 2: // step 4 starts with the whole fleet down for a few requests
			// Counted in requests, not time, so a loaded machine cannot
			// let the outage pass before step 4 asks anything.
			a.set(func(f *fakeVLLM) { f.downFor = 4 })
			b.set(func(f *fakeVLLM) { f.downFor = 4 })
		}
		return nil
	})
	s, err := mustNew(t, cfg, Options{Hooks: Hooks{Recorder: record}}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir := cfg.Trainer.OutputDir
	checkMetricsDocumented(t, dir)
	if s.RLSteps != 4 || s.Outages != 1 {
		t.Errorf("summary: %d RL steps, %d outages; want 4 and 1", s.RLSteps, s.Outages)
	}

	// Every step's adapter went to the servers, the previous one was
	// unloaded, and no request named an adapter a server did not hold. A
	// server out of the rotation while a step publishes (b, after its
	// failures, when its next health check is not due yet) skips that
	// adapter and loads the current one when it rejoins, so each adapter
	// must reach one server at least, and both end on the last.
	loadedBy := map[string][]string{}
	for name, f := range map[string]*fakeVLLM{"a": a, "b": b} {
		f.mu.Lock()
		for _, l := range f.loads {
			step := strings.Split(strings.TrimPrefix(l, cfg.Trainer.ExperimentName+"-"), "-")[0]
			loadedBy[step] = append(loadedBy[step], name)
		}
		held := slices.Collect(maps.Keys(f.adapters))
		if f.unknown != 0 || len(held) != 1 || !strings.Contains(held[0], checkpointName(4)) || len(f.unloads) < 3 {
			t.Errorf("server %s: %d requests for models it lacked, holds %v, unloaded %d", name, f.unknown, held, len(f.unloads))
		}
		served := 0
		for _, n := range f.chats {
			served += n
		}
		if served == 0 {
			t.Errorf("server %s served nothing", name)
		}
		f.mu.Unlock()
	}
	for _, want := range []string{checkpointName(0), checkpointName(1), checkpointName(2), checkpointName(3), checkpointName(4)} {
		if len(loadedBy[want]) == 0 {
			t.Errorf("no server loaded the adapter of %s (loads %v)", want, loadedBy)
		}
	}
	if s := loadedBy[checkpointName(0)]; len(s) != 2 {
		t.Errorf("the first adapter went to %v, want both servers", s)
	}

	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var stale, evictions, failedPolicy, failedStale, skipped float64
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); !ok {
			continue
		}
		if d, _ := r.Value("rollout/logprob_diff"); !(d < 1e-3) {
			t.Errorf("step %d: rollout/logprob_diff %v: the servers did not sample with the trainer's weights", r.Step, d)
		}
		for key, sum := range map[string]*float64{"remote/stale_responses": &stale, "remote/evictions": &evictions,
			"rollout/failed/policy": &failedPolicy, "rollout/failed/stale_adapter": &failedStale, "rollout/skipped": &skipped} {
			v, _ := r.Value(key)
			*sum += v
		}
	}
	// The episode that met the stale reply was tried again on the other
	// server, which held the adapter: nothing failed.
	if stale != 1 || failedPolicy != 0 || failedStale != 0 {
		t.Errorf("stale replies %v, episodes failed by the policy %v, by a stale adapter %v; want 1, 0, 0", stale, failedPolicy, failedStale)
	}
	if evictions < 2 {
		t.Errorf("%v evictions, want at least 2 (b's failures, a's stale reply)", evictions)
	}
	if skipped == 0 {
		t.Error("the fleet's outage discarded no episodes: it was not waited out")
	}

	// The last two published adapters are kept; final/ has the merged
	// policy and its adapter.
	entries, err := os.ReadDir(filepath.Join(dir, AdaptersDir))
	if err != nil || len(entries) != keptAdapters {
		t.Errorf("published adapters: %d kept (%v), want %d", len(entries), err, keptAdapters)
	}
	if _, err := os.Stat(filepath.Join(dir, FinalModelDir, AdapterDir, model.AdapterWeightsFile)); err != nil {
		t.Error(err)
	}
}

func TestRemoteConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"ok", func(c *Config) {}, ""},
		{"needs LoRA", func(c *Config) { c.Actor.LoRA = LoRAConfig{} }, "needs actor.lora"},
		{"needs servers", func(c *Config) { c.Rollout.Remote.BaseURLs = nil }, "rollout.remote.base_urls"},
		{"bad URL", func(c *Config) { c.Rollout.Remote.BaseURLs = []string{"gpu1:8000"} }, `"gpu1:8000"`},
		{"balance", func(c *Config) { c.Rollout.Remote.Balance = "random" }, "rollout.remote.balance"},
		{"engine", func(c *Config) { c.Rollout.Engine = "vllm" }, `rollout.engine "vllm"`},
		{"adapter dir", func(c *Config) { c.Rollout.Remote.AdapterDir = "../elsewhere" }, "rollout.remote.adapter_dir"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := FromScratchConfig()
			cfg.Actor.LoRA = LoRAConfig{R: 8}
			cfg.Rollout.Engine = EngineRemote
			cfg.Rollout.Remote.BaseURLs = []string{"http://gpu1:8000/v1", "http://gpu2:8000/v1"}
			tc.edit(&cfg)
			err := cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrConfig naming %s", err, tc.want)
			}
		})
	}
	// The README's example section reads as documented.
	file := filepath.Join(t.TempDir(), "remote.yaml")
	if err := os.WriteFile(file, []byte(`
actor:
  lora: {r: 16, lora_alpha: 32, target_modules: [q_proj, k_proj, v_proj, o_proj]}
rollout:
  engine: remote
  remote:
    base_urls: [http://gpu1:8000/v1, http://gpu2:8000/v1]
    model_name: Qwen2.5-0.5B-Instruct
    api_key_env: VLLM_API_KEY
    balance: least_outstanding
    adapter_dir: /shared/adapters
    retry_max: 2m
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rc := cfg.Rollout.Remote; cfg.Rollout.Engine != EngineRemote || len(rc.BaseURLs) != 2 || rc.RetryMax != 2*time.Minute ||
		rc.AdapterDir != "/shared/adapters" || cfg.Actor.LoRA.R != 16 {
		t.Fatalf("loaded %+v %+v", cfg.Rollout.Remote, cfg.Actor.LoRA)
	}
}

// TestFitRemoteResume interrupts a remote run and resumes it: the resumed
// session publishes the checkpoint's adapter under a new name (a server
// that still holds the crashed session's adapter of that step must not
// serve it as the new one) and finishes the run.
func TestFitRemoteResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model through a fake server")
	}
	probe := remoteConfig(t)
	a := newFakeVLLM(t, basePolicies(t, probe))
	cfg := remoteConfig(t, a.baseURL())
	cfg.Trainer.OutputDir = probe.Trainer.OutputDir
	cfg.Trainer.RLSteps = 2
	if _, err := mustNew(t, cfg, Options{Hooks: Hooks{Recorder: failAt(1)}}).Fit(context.Background()); !errors.Is(err, errCrash) {
		t.Fatalf("first leg: err = %v, want the simulated crash", err)
	}
	if _, err := mustNew(t, cfg, Options{Resume: true}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var step1 []string
	for _, l := range a.loads {
		if strings.Contains(l, checkpointName(1)) {
			step1 = append(step1, l)
		}
	}
	if len(step1) != 2 || step1[0] == step1[1] || a.unknown != 0 {
		t.Fatalf("loads of step 1's adapter: %v (want one per session, under different names); %d requests for models it lacked", step1, a.unknown)
	}
	held := slices.Collect(maps.Keys(a.adapters))
	if len(held) != 1 || !strings.Contains(held[0], checkpointName(2)) {
		// The resumed session unloads the crashed one's last adapter (it
		// has the run's prefix) and holds only its own newest.
		t.Fatalf("the server holds %v", held)
	}
}

// TestFitRemoteBehaviourLogProbs trains EI (experience in every rollout
// of a mixed half, stripped for training) through a fake vLLM server with
// actor.off_policy_old_log_probs rollout: the stripped rows divide by the
// log-probs the server reported while it sampled with the experience in
// the prompt, so none is recomputed and the first update's ratio is not 1
// (ppo_kl is exactly 0 when every old log-prob is the recomputed one).
// With recompute, every old log-prob is the trainer's own.
func TestFitRemoteBehaviourLogProbs(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model through a fake server")
	}
	for _, mode := range []string{OldLogProbsRollout, OldLogProbsRecompute} {
		t.Run(mode, func(t *testing.T) {
			probe := remoteConfig(t)
			a := newFakeVLLM(t, basePolicies(t, probe))
			cfg := remoteConfig(t, a.baseURL())
			cfg.Trainer.OutputDir = probe.Trainer.OutputDir
			cfg.Trainer.RLSteps = 1
			cfg.Actor.OffPolicyOldLogProbs = mode
			cfg.Experience = experience.Config{TrainRolloutMode: "mixed", ValRolloutMode: "woexp", RolloutRatio: 0.5, TrainSampleMode: "alldiscard"}
			var calls atomic.Int64
			ones := advantageFunc(func(in AdvantageInput) [][]float32 { return in.LossMask })
			if _, err := mustNew(t, cfg, Options{Hooks: Hooks{Experience: tipInjector{&calls}, Advantages: ones}}).Fit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if calls.Load() == 0 {
				t.Fatal("no rollout got experience")
			}
			records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for _, r := range records {
				if _, ok := r.Value("reward/mean"); !ok {
					continue
				}
				steps++
				share, _ := r.Value("actor/exp_token_share")
				kl, _ := r.Value("actor/ppo_kl")
				recomputed, _ := r.Value("actor/exp_recomputed_rows")
				if !(share > 0) {
					t.Fatalf("exp token share %v: nothing was stripped", share)
				}
				switch mode {
				case OldLogProbsRollout:
					if kl == 0 || recomputed != 0 {
						t.Errorf("ppo_kl %v with %v rows recomputed; want the servers' log-probs as old ones", kl, recomputed)
					}
				case OldLogProbsRecompute:
					if kl != 0 {
						t.Errorf("ppo_kl %v, want 0: every old log-prob recomputed", kl)
					}
				}
			}
			if steps != 1 {
				t.Fatalf("%d RL step records, want 1", steps)
			}
		})
	}
}
