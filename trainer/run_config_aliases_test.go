package trainer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// referenceStyleConfig is a configuration in the original AgentEvolver's
// schema: the sections and keys of its config/agentevolver.yaml (over
// veRL's ppo_trainer.yaml), with the experience and attribution switches
// of its overall example on, including its task_manager.n: 8 with a
// train_data_path (the task cache) and synthetic_data_ratio 0, which
// synthesises nothing there and here (the trainer warns).
const referenceStyleConfig = `hydra:
  searchpath:
    - file://external/config_fallback
    - file://config
defaults:
  - ppo_trainer
  - agentevolver
  - _self_
algorithm:
  adv_estimator: grpo
  use_kl_in_reward: false
data:
  train_batch_size: 8
  max_prompt_length: 4000
  max_response_length: 21580
  filter_overlong_prompts: true
  truncation: error
  return_raw_chat: true
  train_files: null
  val_files: null
  val_batch_size: 256
  val_type: val
actor_rollout_ref:
  hybrid_engine: true
  model:
    path: /models/Qwen2.5-7B-Instruct
    use_remove_padding: true
    enable_gradient_checkpointing: true
  rollout:
    use_qwen3: false
    enable_request_id: false
    prompt_length: 20480
    response_length: 4096
    max_model_len: 25580
    temperature: 0.9
    top_k: -1
    log_prob_micro_batch_size_per_gpu: 1
    tensor_model_parallel_size: 1
    name: vllm
    mode: async
    gpu_memory_utilization: 0.6
    n: 8
    val_kwargs:
      n: 8
      temperature: 0
      do_sample: false
    multi_turn:
      enable: true
      format: llama3_json
      max_steps: 30
    custom_dataflow_cls:
      path: ""
      name: ""
    max_env_worker: 32
    context_template: linear
    context_template_train_sp_action: false
    max_env_len: 4096
    sparse: true
  actor:
    off_cliprange_high: 0.6
    optim:
      lr: 1e-6
      warmup_style: constant
    ppo_micro_batch_size_per_gpu: 1
    ppo_mini_batch_size: 8
    use_kl_loss: true
    kl_loss_coef: 0.001
    kl_loss_type: low_var_kl
    entropy_coeff: 0
    fsdp_config:
      param_offload: false
    loss_agg_mode: token-mean
    clip_ratio_high: 0.28
  ref:
    fsdp_config:
      param_offload: true
critic:
  ppo_max_token_len_per_gpu: 25580
env_service:
  env_type: appworld
  env_url: http://127.0.0.1:8080
  env_feedin_preference: code
trainer:
  n_gpus_per_node: 8
  nnodes: 1
  logger: [console]
  project_name: appworld
  experiment_name: overall
  save_freq: 10000
  test_freq: 10
  total_epochs: 40
  val_before_train: true
  validation_data_dir: experiments/${trainer.experiment_name}/validation_log
  val_only: false
thread_pool:
  max_workers: 8
task_manager:
  train_data_path: tasks_explored.train.json
  val_data_path: tasks_explored.val.json
  llm_client: qwen-plus
  n: 8
  env_profile: cookbook/env_profiles/appworld.json
  bs: ${data.train_batch_size}
  num_explore_threads: ${thread_pool.max_workers}
  mixture:
    use_original_tasks: true
    synthetic_data_ratio: 0.0
    shuffle: true
  grader:
    original_grader: env
    synthetic_grader: llm-binary-gt-no_constraint
  strategy: random
  strategy_args:
    max_explore_step: 30
    max_llm_retries: 6
    env_url: ${env_service.env_url}
exp_manager:
  val_rollout_mode: woexp
  train_rollout_mode: mixed
  rollout_ratio: 0.5
  train_sample_mode: alldiscard
  train_sample_keepratio: 0.0
  replace_experience_with_same_token_dummy: false
  same_token_dummy_fragment: x
  init_exp_before_training: true
  init_exp_only: false
  summary_batch_size: 8
  reme:
    base_url: http://127.0.0.1:8001
    workspace_id: appworld_7b
    enable_summarizer: true
    enable_context_generator: true
    retrieve_top_k: 5
    updated_freq: 2
attribution_driven_credit_assignment:
  enable: true
  evaluation_type: api
  consistent_scale: 1.0
  pos_unconsistent_scale: 0.2
  neg_unconsistent_scale: -0.2
  concurrent: 5
  model: qwen-max
  api_max_retries: 200
  llm_evaluation_log_dir: null
  adca_grpo:
    prm_scheme: decouple
    do_batch_norm: true
    alpha: 0.2
    prm_steps: 100
    skip_type: none
    model_name: qwen-max
    enable_adca_metric: true
`

func writeConfig(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfigAcceptsReferenceKeys(t *testing.T) {
	path := writeConfig(t, "overall.yaml", referenceStyleConfig)
	cfg, warnings, err := LoadConfigWarnings(DefaultConfig(), []string{path}, []string{"exp_manager.reme.workspace_id=from_override"})
	if err != nil {
		t.Fatalf("a configuration of the original does not load: %v", err)
	}
	checks := []struct {
		key       string
		got, want any
	}{
		{"model.path", cfg.Model.Path, "/models/Qwen2.5-7B-Instruct"},
		{"rollout.n", cfg.Rollout.N, 8},
		{"rollout.val_n", cfg.Rollout.ValN, 8},
		{"rollout.max_steps", cfg.Rollout.MaxSteps, 30},
		{"rollout.concurrency", cfg.Rollout.Concurrency, 32},
		{"rollout.response_length", cfg.Rollout.ResponseLength, 4096},
		{"rollout.temperature", cfg.Rollout.Temperature, 0.9},
		{"rollout.top_k (the original's -1 is our 0: no top-k)", cfg.Rollout.TopK, 0},
		{"actor.lr", cfg.Actor.LR, 1e-6},
		{"actor.clip_ratio_high", cfg.Actor.ClipRatioHigh, 0.28},
		{"actor.ppo_mini_batch_size (units differ: not mapped)", cfg.Actor.PPOMiniBatchSize, DefaultConfig().Actor.PPOMiniBatchSize},
		{"data.val_split", cfg.Data.ValSplit, "val"},
		{"env.type", cfg.Env.Type, "appworld"},
		{"env.url", cfg.Env.URL, "http://127.0.0.1:8080"},
		{"trainer.experiment_name", cfg.Trainer.ExperimentName, "overall"},
		{"task_manager.llm.model_name", cfg.Tasks.LLM.ModelName, "qwen-plus"},
		{"task_manager.max_explore_steps", cfg.Tasks.MaxExploreSteps, 30},
		{"task_manager.n", cfg.Tasks.N, 8},
		{"task_manager.train_data_path", cfg.Tasks.TrainDataPath, "tasks_explored.train.json"},
		{"exp_manager.pool.base_url", cfg.Experience.Pool.BaseURL, "http://127.0.0.1:8001"},
		{"exp_manager.pool.workspace_id", cfg.Experience.Pool.WorkspaceID, "from_override"},
		{"exp_manager.retrieve_top_k", cfg.Experience.RetrieveTopK, 5},
		{"exp_manager.updated_freq", cfg.Experience.UpdatedFreq, 2},
		{"attribution llm.model_name", cfg.Attribution.LLM.ModelName, "qwen-max"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.key, c.got, c.want)
		}
	}
	all := strings.Join(warnings, "\n")
	for _, ignored := range []string{"hydra", "defaults", "critic", "thread_pool", "exp_manager.reme.enable_summarizer",
		"attribution_driven_credit_assignment.evaluation_type", "actor_rollout_ref.rollout.name", "actor_rollout_ref.actor.fsdp_config",
		"actor_rollout_ref.actor.optim.warmup_style", "trainer.total_epochs", "task_manager.strategy_args"} {
		if !strings.Contains(all, ignored) {
			t.Errorf("warnings do not name ignored key %s:\n%s", ignored, all)
		}
	}
	if !strings.Contains(all, path) {
		t.Errorf("warnings do not name the file:\n%s", all)
	}

	// Typos of our own keys stay errors, in our sections and in theirs
	// that map onto ours.
	for _, typo := range []string{"exp_manager:\n  retreive_top_k: 3\n", "rollout:\n  temprature: 1\n", "data:\n  val_tpye: val\n"} {
		_, err := LoadConfig([]string{writeConfig(t, "typo.yaml", typo)}, nil)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("%q: err = %v, want an unknown key", typo, err)
		}
	}
	// Both names for one key in one file.
	_, err = LoadConfig([]string{writeConfig(t, "both.yaml", "exp_manager:\n  retrieve_top_k: 3\n  reme:\n    retrieve_top_k: 4\n")}, nil)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "both set exp_manager.retrieve_top_k") {
		t.Errorf("err = %v, want both set", err)
	}
}

// TestReferenceAliasTargetsExist keeps every alias pointing at a key of
// Config and docs/config-aliases.md naming every alias.
func TestReferenceAliasTargetsExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "config-aliases.md"))
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range ReferenceAliases() {
		if !strings.Contains(string(doc), "`"+from+"`") {
			t.Errorf("docs/config-aliases.md does not list %s", from)
		}
		if to == "" {
			continue
		}
		if !hasYAMLKey(reflect.TypeOf(Config{}), strings.Split(to, ".")) {
			t.Errorf("alias %s -> %s: Config has no key %s", from, to, to)
		}
		if hasYAMLKey(reflect.TypeOf(Config{}), strings.Split(from, ".")) {
			t.Errorf("alias %s names a key of our own", from)
		}
	}
}

func hasYAMLKey(t reflect.Type, path []string) bool {
	for _, k := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		found := false
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name == k {
				t, found = t.Field(i).Type, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
