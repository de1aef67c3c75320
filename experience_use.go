package agentevolver

// TrainMode says what becomes of experience injected into an episode's
// prompt when the episode is trained on (reference §5.1, §5.4).
type TrainMode string

// Train modes.
const (
	// TrainDiscard strips the experience from the training samples: the
	// policy learns to act as if it had not been told (experience
	// internalised); the samples are then off-policy and train with HET's
	// off-policy clip range. The zero TrainMode means TrainDiscard, the
	// reference's default.
	TrainDiscard TrainMode = "discard"
	// TrainKeep keeps the experience in the training samples (experience
	// in context); they stay on-policy.
	TrainKeep TrainMode = "keep"
)

// OrDefault returns m, or TrainDiscard when m is empty.
func (m TrainMode) OrDefault() TrainMode {
	if m == "" {
		return TrainDiscard
	}
	return m
}

// ExperienceUse records how an episode used experience; it travels from
// the rollout to the trajectory and to every sample cut from it.
type ExperienceUse struct {
	// Requested reports that the rollout asked for experience (add_exp).
	Requested bool `json:"add_exp"`
	// TrainMode is what training does with the experience.
	TrainMode TrainMode `json:"task_train_exp_mode"`
	// Injected are the experience texts added to the prompt, as the
	// template formatted them (experience_list); empty when none was found.
	Injected []string `json:"experience_list,omitempty"`
}
