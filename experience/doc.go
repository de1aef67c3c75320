// Package experience is self-navigating: a pool of experience distilled
// from earlier episodes, injected into rollouts and stripped for training
// (reference §5), with HET's off-policy clip range for the stripped
// samples.
package experience
