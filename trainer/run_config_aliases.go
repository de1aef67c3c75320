package trainer

import (
	"fmt"

	"github.com/org/agentevolver/internal/config"
)

// ReferenceAliases maps the configuration keys of the original
// AgentEvolver (its config/agentevolver.yaml over veRL's ppo_trainer.yaml,
// and the example files layered over them) to ours, so that a
// configuration written for it loads: LoadConfig accepts both names. A key
// mapped to "" has no counterpart here and is ignored with a warning
// (LoadConfigWarnings returns them); a key ending in ".*" ignores every
// key under that mapping of the original's that is neither mapped nor
// ours. Keys of our own that are misspelt stay errors: no section of ours
// has a catch-all. docs/config-aliases.md is the table for readers; a
// test keeps the two and the targets' existence in step.
//
// The original nests the policy's settings under actor_rollout_ref; ours
// has them at the top level. The map is fresh on every call.
func ReferenceAliases() map[string]string {
	return map[string]string{
		// Hydra's composition directives: the files they name are the
		// original's defaults, which ours replace.
		"hydra":    "",
		"defaults": "",

		// algorithm: in-reward KL and GAE do not exist here (GRPO with the KL
		// loss).
		"algorithm.use_kl_in_reward": "",
		"algorithm.gamma":            "",
		"algorithm.lam":              "",
		"algorithm.kl_ctrl":          "",
		"algorithm.kl_penalty":       "",

		// data: the tasks come from the environment's splits.
		"data.val_type":                        "data.val_split",
		"data.filter_overlong_prompts":         "",
		"data.filter_overlong_prompts_workers": "",
		"data.truncation":                      "",
		"data.return_raw_chat":                 "",
		"data.return_raw_input_ids":            "",
		"data.return_full_prompt":              "",
		"data.val_files":                       "",
		"data.val_batch_size":                  "",
		"data.validation_shuffle":              "",
		"data.seed":                            "",
		"data.tokenizer":                       "",
		"data.use_shm":                         "",
		"data.prompt_key":                      "",
		"data.reward_fn_key":                   "",
		"data.image_key":                       "",
		"data.video_key":                       "",
		"data.trust_remote_code":               "",
		"data.custom_cls":                      "",

		// actor_rollout_ref: the policy, its sampler and its reference.
		"actor_rollout_ref.*":          "",
		"actor_rollout_ref.model.path": "model.path",
		"actor_rollout_ref.model.*":    "",
		"actor_rollout_ref.ref":        "",

		"actor_rollout_ref.rollout":                                  "rollout",
		"actor_rollout_ref.rollout.*":                                "",
		"actor_rollout_ref.rollout.val_kwargs.n":                     "rollout.val_n",
		"actor_rollout_ref.rollout.val_kwargs.temperature":           "rollout.val_temperature",
		"actor_rollout_ref.rollout.val_kwargs.*":                     "",
		"actor_rollout_ref.rollout.multi_turn.max_steps":             "rollout.max_steps",
		"actor_rollout_ref.rollout.multi_turn.*":                     "",
		"actor_rollout_ref.rollout.max_env_worker":                   "rollout.concurrency",
		"actor_rollout_ref.rollout.context_template_train_sp_action": "rollout.context_selfclip.train_sp_action",

		"actor_rollout_ref.actor":   "actor",
		"actor_rollout_ref.actor.*": "",
		// The original's mini-batch counts tasks per GPU, ours samples.
		"actor_rollout_ref.actor.ppo_mini_batch_size":   "",
		"actor_rollout_ref.actor.optim.lr":              "actor.lr",
		"actor_rollout_ref.actor.optim.lr_warmup_steps": "actor.lr_warmup_steps",
		"actor_rollout_ref.actor.optim.weight_decay":    "actor.weight_decay",
		"actor_rollout_ref.actor.optim.*":               "",

		// Sections of veRL's workers and of the original's services with no
		// counterpart.
		"critic":                 "",
		"reward_model":           "",
		"custom_reward_function": "",
		"ray_init":               "",
		"thread_pool":            "",

		"env_service.env_type": "env.type",
		"env_service.env_url":  "env.url",
		"env_service.*":        "",

		// trainer: epochs, GPUs and logging are set differently here
		// (trainer.rl_steps, trainer.devices, the run directory).
		"trainer.n_gpus_per_node":      "",
		"trainer.nnodes":               "",
		"trainer.critic_warmup":        "",
		"trainer.logger":               "",
		"trainer.project_name":         "",
		"trainer.total_epochs":         "",
		"trainer.total_training_steps": "",
		"trainer.validation_data_dir":  "",
		"trainer.rollout_data_dir":     "",
		"trainer.val_only":             "",
		"trainer.balance_batch":        "",
		"trainer.default_local_dir":    "",
		"trainer.default_hdfs_dir":     "",
		"trainer.resume_mode":          "",
		"trainer.log_val_generations":  "",
		"trainer.device":               "",

		// task_manager (self-questioning).
		"task_manager.llm_client":                     "task_manager.llm.model_name",
		"task_manager.num_explore_threads":            "task_manager.concurrency",
		"task_manager.strategy_args.max_explore_step": "task_manager.max_explore_steps",
		"task_manager.strategy_args.*":                "",
		"task_manager.val_data_path":                  "",
		"task_manager.env_profile":                    "",
		"task_manager.bs":                             "",
		"task_manager.strategy":                       "",

		// exp_manager (self-navigating): ReMe's settings are the pool's.
		"exp_manager.reme.base_url":                            "exp_manager.pool.base_url",
		"exp_manager.reme.workspace_id":                        "exp_manager.pool.workspace_id",
		"exp_manager.reme.retrieve_top_k":                      "exp_manager.retrieve_top_k",
		"exp_manager.reme.updated_freq":                        "exp_manager.updated_freq",
		"exp_manager.reme.enable_summarizer":                   "",
		"exp_manager.reme.enable_context_generator":            "",
		"exp_manager.replace_experience_with_same_token_dummy": "",
		"exp_manager.same_token_dummy_fragment":                "",

		// attribution_driven_credit_assignment (self-attributing).
		"attribution_driven_credit_assignment.evaluation_type":          "",
		"attribution_driven_credit_assignment.concurrent":               "",
		"attribution_driven_credit_assignment.model":                    "",
		"attribution_driven_credit_assignment.api_max_retries":          "",
		"attribution_driven_credit_assignment.adca_grpo.model_name":     "attribution_driven_credit_assignment.llm.model_name",
		"attribution_driven_credit_assignment.adca_grpo.alpha_progress": "",
	}
}

// LoadConfigWarnings is LoadConfigOver that also returns the warnings of
// loading: the keys of the original AgentEvolver's configuration that were
// ignored because nothing here corresponds to them (see
// ReferenceAliases), one line per file or override. LoadConfig and
// LoadConfigOver drop them.
func LoadConfigWarnings(cfg Config, files []string, overrides []string) (Config, []string, error) {
	warnings, err := config.LoadFilesWith(&cfg, files, overrides, config.Options{Aliases: ReferenceAliases()})
	if err != nil {
		return Config{}, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// The original (and vLLM) write "no top-k" as -1; here it is 0.
	if cfg.Rollout.TopK == -1 {
		cfg.Rollout.TopK = 0
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, nil, err
	}
	return cfg, warnings, nil
}
