package agentflow

import (
	"log/slog"
	"sync"
)

// Contract warnings: environment answers that the Flow accepts but that
// probably do not mean what the environment intended.
const (
	// WarnEmptyObservation: a step that did not end the episode returned
	// no observation text (no state message with content and no
	// info["error"]); the policy's next turn follows an empty user turn.
	WarnEmptyObservation = "empty_observation"
	// WarnStepReward: a step that did not end the episode returned a
	// non-zero StepResult.Reward. Step rewards are not used: an episode
	// is scored once, when it ends, by Flow.Reward (by default the
	// environment's Evaluate).
	WarnStepReward = "step_reward"
)

// ContractWarnings logs each kind of contract warning (WarnEmptyObservation,
// WarnStepReward) once, with the first episode that showed it. Share one
// among the Flows of a run (Flow.Warnings) to warn once per run. The zero
// value is ready; it is safe for concurrent use.
type ContractWarnings struct {
	mu   sync.Mutex
	seen map[string]int
}

// Count returns how many times a kind was seen.
func (w *ContractWarnings) Count(kind string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[kind]
}

// note records one occurrence of kind and logs msg with args the first
// time.
func (w *ContractWarnings) note(log *slog.Logger, kind, msg string, args ...any) {
	w.mu.Lock()
	first := w.seen[kind] == 0
	if w.seen == nil {
		w.seen = map[string]int{}
	}
	w.seen[kind]++
	w.mu.Unlock()
	if first {
		log.Warn(msg, append([]any{"warning", kind}, args...)...)
	}
}
