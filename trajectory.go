package agentevolver

// DefaultRewardDescription is the reason recorded when a score comes from the
// environment's own evaluation.
const DefaultRewardDescription = "Outcome 1 = success, 0 = failure."

// Reward is the score of one episode.
type Reward struct {
	// Outcome is the episode score, usually in [0, 1].
	Outcome float64 `json:"outcome"`
	// SuccessRate is 1 when Outcome >= 1, else 0.
	SuccessRate float64 `json:"success_rate"`
	// Madness is -1 when the policy degenerated (repetition, leaked chat
	// markup), else 0.
	Madness float64 `json:"madness"`
	// Description explains the score (a grader's reason).
	Description string `json:"description"`
	// Metadata carries grader-specific extras.
	Metadata map[string]any `json:"metadata"`
}

// NewReward packages a score the way the reference agent flow does: success
// rate 1 for a score of at least 1, the default description when reason is
// empty.
func NewReward(score float64, reason string, madness float64) Reward {
	r := Reward{Outcome: score, Madness: madness, Description: reason, Metadata: map[string]any{}}
	if score >= 1 {
		r.SuccessRate = 1
	}
	if r.Description == "" {
		r.Description = DefaultRewardDescription
	}
	return r
}

// Success reports whether the outcome is positive.
func (r Reward) Success() bool { return r.Outcome > 0 }

// Trajectory is the record of one episode: the messages exchanged, how it
// ended and how it was scored.
type Trajectory struct {
	// TaskID is the task the episode ran.
	TaskID string `json:"task_id"`
	// DataID is the task's index in its training batch (GRPO groups by it).
	DataID string `json:"data_id"`
	// RolloutID is the episode's index within its task group.
	RolloutID string `json:"rollout_id"`
	// Query is the instruction the agent received.
	Query string `json:"query"`
	// Steps are the messages of the episode, initial messages included.
	Steps []Message `json:"steps"`
	// IsTerminated reports that the environment declared the episode over.
	IsTerminated bool `json:"is_terminated"`
	// Discarded marks an episode that must not be trained on.
	Discarded bool `json:"discarded,omitempty"`
	// Error records an environment or model failure that ended the episode.
	Error string `json:"error,omitempty"`
	// Reward is the episode's score.
	Reward Reward `json:"reward"`
	// Experience records the experience the episode was given.
	Experience ExperienceUse `json:"experience"`
	// Metadata carries environment- or user-specific extras.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Sample is one tokenised training example cut from a trajectory: the
// prompt (everything before the first policy-generated token) and the
// response (everything after, environment observations included with loss
// mask 0).
type Sample struct {
	TaskID    string `json:"task_id"`
	DataID    string `json:"data_id"`
	RolloutID string `json:"rollout_id"`

	// InputIDs is PromptIDs followed by ResponseIDs.
	InputIDs      []int `json:"input_ids"`
	AttentionMask []int `json:"attention_mask"`
	PositionIDs   []int `json:"position_ids"`
	LossMask      []int `json:"loss_mask"`

	PromptIDs           []int `json:"prompt_ids"`
	PromptAttentionMask []int `json:"prompt_attention_mask"`
	PromptPositionIDs   []int `json:"prompt_position_ids"`
	PromptLossMask      []int `json:"prompt_loss_mask"`

	ResponseIDs           []int `json:"response_ids"`
	ResponseAttentionMask []int `json:"response_attention_mask"`
	ResponsePositionIDs   []int `json:"response_position_ids"`
	ResponseLossMask      []int `json:"response_loss_mask"`

	// ResponseLogProbs are the sampling log-probabilities of the response
	// tokens when the policy reported them (0 for tokens it did not produce).
	ResponseLogProbs []float64 `json:"response_logprobs,omitempty"`

	// StepIDs has one entry per response token: k on the tokens of the
	// policy's k-th turn in the response (its content and end-of-turn
	// tokens, not its header), -1 elsewhere (headers, observations). It
	// lets step-level advantages (ADCA) reach the tokens they credit.
	StepIDs []int `json:"step_ids,omitempty"`
	// Steps are the response's steps as text, Steps[k] for step id k.
	Steps []SampleStep `json:"steps,omitempty"`
	// Query is the text of the prompt's messages (system and user), what a
	// step judge reads as the task.
	Query string `json:"query,omitempty"`

	// Messages are the role/content pairs the sample was built from.
	Messages []Message `json:"messages"`
	// RewardScores is the trajectory's reward.
	RewardScores Reward `json:"reward_scores"`

	MaxPromptLen   int `json:"max_prompt_len"`
	MaxResponseLen int `json:"max_response_len"`

	// Experience is the trajectory's experience record.
	Experience ExperienceUse `json:"experience"`
	// ExpMask reports that experience injected at rollout was stripped
	// from this sample (train mode discard): its tokens were sampled from
	// a context the sample no longer shows, so they train with HET's
	// off-policy clip range (reference §6 exp_mask).
	ExpMask bool `json:"exp_mask"`
}
