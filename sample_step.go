package agentevolver

// SampleStep is one step of a sample's response as a judge reads it: the
// policy's action (one assistant turn) and the observation that followed
// it (the environment's answers up to the next action, empty when none).
// Step k of a sample is the span of response tokens whose Sample.StepIDs
// entry is k.
type SampleStep struct {
	Action      string `json:"action"`
	Observation string `json:"observation"`
}
