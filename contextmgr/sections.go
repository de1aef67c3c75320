package contextmgr

// LinearThinkConfig is a run configuration's rollout.linear_think section,
// the settings of LinearThink: one sample per turn, earlier thinking
// dropped from later prompts.
type LinearThinkConfig struct {
	// ForceThink asks the policy to think in <think> tags and then answer
	// in the format of ThinkPreference.
	ForceThink bool `yaml:"force_think"`
	// ThinkPreference is PreferCode (the default) or PreferBox.
	ThinkPreference string `yaml:"think_preference"`
	// TrainHistory keeps earlier turns trainable in later prompts
	// (train_history_infer_token).
	TrainHistory bool `yaml:"train_history_infer_token"`
	// MaxSamples bounds an episode's samples (max_sample_per_task; 0: 30).
	MaxSamples int `yaml:"max_sample_per_task"`
}

// SelfClipConfig is a run configuration's rollout.context_selfclip
// section, the settings of SelfContextClip: when the context grows past
// ClipTriggerTokens, a model (the policy itself) decides which messages to
// drop or compress.
type SelfClipConfig struct {
	// ClipTriggerTokens is the context size that triggers clipping
	// (context_template_clip_trigger_token_num; 0: 8192).
	ClipTriggerTokens int `yaml:"clip_trigger_token_num"`
	// ClipReplyTokens bounds the clip decisions (0: 4096).
	ClipReplyTokens int `yaml:"clip_response_length"`
	// TrainClipDecisions trains on the policy's clip decisions
	// (context_template_train_sp_action).
	TrainClipDecisions bool `yaml:"train_sp_action"`
	// ForceThink and ThinkPreference are as in LinearThinkConfig.
	ForceThink      bool   `yaml:"force_think"`
	ThinkPreference string `yaml:"think_preference"`
	// MaxSamples bounds an episode's samples (0: 30).
	MaxSamples int `yaml:"max_sample_per_task"`
}

// MemoryConfig is a run configuration's rollout.memory section, the
// settings of Memory: one sample per turn, the policy's own notes carried
// between turns.
type MemoryConfig struct {
	// MaxSamples bounds an episode's samples (0: 30).
	MaxSamples int `yaml:"max_sample_per_task"`
}

// Apply sets the section's settings in c.
func (s LinearThinkConfig) Apply(c *Config) {
	c.ForceThink, c.ThinkPreference, c.TrainHistory, c.MaxSamples = s.ForceThink, s.ThinkPreference, s.TrainHistory, s.MaxSamples
}

// Apply sets the section's settings in c; c.ClipModel is the caller's.
func (s SelfClipConfig) Apply(c *Config) {
	c.ClipTriggerTokens, c.ClipReplyTokens, c.MaxSamples = s.ClipTriggerTokens, s.ClipReplyTokens, s.MaxSamples
	c.TrainClipDecisions = s.TrainClipDecisions
	c.ForceThink, c.ThinkPreference = s.ForceThink, s.ThinkPreference
}

// Apply sets the section's settings in c.
func (s MemoryConfig) Apply(c *Config) { c.MaxSamples = s.MaxSamples }

// PerCallConfig is the context manager's part of a run configuration's
// rollout.per_call section, the settings of PerCall: one sample per model
// call, the environment's state as the prompt (the reference's
// AgentscopeCMT). The trainer adds how its samples enter GRPO.
type PerCallConfig struct {
	// MaxSamples bounds an episode's samples (max_sample_per_task; 0: no
	// bound).
	MaxSamples int `yaml:"max_sample_per_task"`
}

// Apply sets the section's settings in c.
func (s PerCallConfig) Apply(c *Config) { c.MaxSamples = s.MaxSamples }
