package episodelog

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
)

// Defaults of Config's zero values.
const (
	// DefaultMaxPerStep is Config.MaxPerStep's default.
	DefaultMaxPerStep = 16
	// DefaultMaxBytes is Config.MaxBytes's default: 256 MiB.
	DefaultMaxBytes = 256 << 20
)

// Config says which episodes are recorded. The zero value records, with
// their tokens, every finished episode up to DefaultMaxPerStep per step
// and phase and DefaultMaxBytes in all.
type Config struct {
	// Disable records nothing.
	Disable bool `yaml:"disable"`
	// SampleRate is the share of finished episodes recorded, in (0, 1];
	// 0 means 1. The choice is a pure function of the phase, the step and
	// the episode's index, so a resumed run records the same episodes.
	// Failed episodes are always recorded.
	SampleRate float64 `yaml:"sample_rate"`
	// MaxPerStep caps the episodes recorded per step and phase (finished
	// and failed counted apart); 0 means DefaultMaxPerStep, negative no
	// cap.
	MaxPerStep int `yaml:"max_per_step"`
	// MaxBytes stops recording once the log reaches this size; 0 means
	// DefaultMaxBytes, negative no limit.
	MaxBytes int64 `yaml:"max_bytes"`
	// NoTokens leaves the samples' token ids, texts and loss masks out,
	// keeping the conversations (a tenth of the size or less).
	NoTokens bool `yaml:"no_tokens"`
}

// Validate checks the ranges.
func (c Config) Validate() error {
	if math.IsNaN(c.SampleRate) || c.SampleRate < 0 || c.SampleRate > 1 {
		return fmt.Errorf("episodelog: sample_rate %v not in [0, 1]", c.SampleRate)
	}
	return nil
}

func (c Config) maxPerStep() int {
	if c.MaxPerStep == 0 {
		return DefaultMaxPerStep
	}
	return c.MaxPerStep
}

func (c Config) maxBytes() int64 {
	if c.MaxBytes == 0 {
		return DefaultMaxBytes
	}
	return c.MaxBytes
}

// Sampled reports whether SampleRate selects the index-th finished
// episode of a phase's step.
func (c Config) Sampled(phase string, step, index int) bool {
	rate := c.SampleRate
	if rate == 0 || rate >= 1 {
		return true
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", phase, step, index)
	return float64(mix(h.Sum64())>>11)/(1<<53) < rate
}

// mix is splitmix64's finaliser: FNV's high bits alone are poorly spread
// over inputs that differ in a digit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// ErrFull reports a log that reached Config.MaxBytes.
var ErrFull = errors.New("episodelog: the episode log reached its size limit (trainer.episode_log.max_bytes)")
