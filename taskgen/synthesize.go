package taskgen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
)

// DefaultSummaryMaxTokens bounds a summary's answer when
// LLMSummarizer.Chat.MaxTokens is zero (the reference's summariser uses
// max_tokens 8192).
const DefaultSummaryMaxTokens = 8192

var _ Summarizer = (*LLMSummarizer)(nil)

// LLMSummarizer summarises an exploration with an LLM (reference §4.4):
// it sends SummaryMessages (the masked record of the episode, its reward,
// the old objectives, the profile's task preferences) to Model and reads
// the answer's <task> blocks with ParseTaskBlocksReport. An answer without
// a valid block is a summary without objectives, not an error. Retries
// are the model client's.
//
// Model is required. An LLMSummarizer is safe for concurrent use as long
// as its fields are not changed meanwhile.
type LLMSummarizer struct {
	// Model is the summariser (required).
	Model llm.ChatModel
	// Chat are the sampling settings: a nil Temperature means
	// DefaultExploreTemperature, TopP 0 DefaultExploreTopP, TopK 0
	// DefaultExploreTopK (negative: disabled), as the reference samples
	// its summariser like its explorer; MaxTokens 0 means
	// DefaultSummaryMaxTokens. A nil Seed means the exploration's seed.
	Chat llm.ChatOptions
	// Profile supplies the task requirements (nil:
	// NoPreferenceRequirement).
	Profile *agentevolver.EnvProfile
	// Rubrics are added to the profile's preferences.
	Rubrics []string
	// Logger receives the skipped blocks of each answer (debug).
	Logger *slog.Logger
}

// Summarize implements Summarizer.
func (s *LLMSummarizer) Summarize(ctx context.Context, ex Exploration) ([]agentevolver.TaskObjective, error) {
	if s.Model == nil {
		return nil, fmt.Errorf("%w: LLMSummarizer needs a Model", ErrConfig)
	}
	reward := ex.Trajectory.Reward
	msgs := SummaryMessages(SummaryInput{
		Steps:         ex.Trajectory.Steps,
		Reward:        &reward,
		OldObjectives: ex.OldObjectives,
		Profile:       s.Profile,
		Rubrics:       s.Rubrics,
	})
	chat := samplingDefaults(s.Chat)
	if chat.MaxTokens == 0 {
		chat.MaxTokens = DefaultSummaryMaxTokens
	}
	if chat.Seed == nil {
		seed := ex.Seed
		chat.Seed = &seed
	}
	out, err := s.Model.Chat(ctx, msgs, chat)
	if err != nil {
		return nil, fmt.Errorf("taskgen: summarise %s: %w", ex.Task.TaskID, err)
	}
	objs, rep := ParseTaskBlocksReport(out.Message.Content, ex.Task)
	if len(rep.Skipped) > 0 || rep.Truncated {
		log := s.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		for _, sk := range rep.Skipped {
			log.Debug("taskgen: task block skipped", "task_id", ex.Task.TaskID, "err", sk.Err)
		}
		if rep.Truncated {
			log.Debug("taskgen: summary answer truncated", "task_id", ex.Task.TaskID)
		}
	}
	return objs, nil
}

// samplingDefaults fills the reference's exploration sampling settings
// into the zero fields of c.
func samplingDefaults(c llm.ChatOptions) llm.ChatOptions {
	if c.Temperature == nil {
		c.Temperature = llm.Float(DefaultExploreTemperature)
	}
	if c.TopP == 0 {
		c.TopP = DefaultExploreTopP
	}
	switch {
	case c.TopK == 0:
		c.TopK = DefaultExploreTopK
	case c.TopK < 0:
		c.TopK = 0
	}
	return c
}

var _ Summarizer = (*HindsightSummarizer)(nil)

// HindsightSummarizer summarises an exploration without an LLM: the
// environment relabels the episode in hindsight
// (envservice.TaskSynthesizer), so the one objective is the task of
// exactly what the episode's actions (its assistant messages) achieved,
// with the environment's own verifiable reward and an expert solution as
// its ground truth, at confidence 1. When the actions achieved nothing
// (envservice.ErrNothingAchieved) the summary has no objective, and no
// error. The old objectives are not read: two explorations that achieve
// the same thing give the same task, which the realtime filter drops as
// a duplicate.
//
// Synthesizer is required; for an in-process environment served by an
// envservice.Manager it is the registered environment itself when it
// implements envservice.TaskSynthesizer.
type HindsightSummarizer struct {
	// Synthesizer relabels episodes (required).
	Synthesizer envservice.TaskSynthesizer
}

// Summarize implements Summarizer. The objective's task has the
// environment type of the seed task when the synthesiser leaves it
// empty.
func (s *HindsightSummarizer) Summarize(ctx context.Context, ex Exploration) ([]agentevolver.TaskObjective, error) {
	if s.Synthesizer == nil {
		return nil, fmt.Errorf("%w: HindsightSummarizer needs a Synthesizer", ErrConfig)
	}
	var actions []agentevolver.Message
	for _, m := range ex.Trajectory.Steps {
		if m.Role == agentevolver.RoleAssistant {
			actions = append(actions, m)
		}
	}
	t, err := s.Synthesizer.SynthesizeTask(ctx, ex.Task.TaskID, actions)
	switch {
	case errors.Is(err, envservice.ErrNothingAchieved):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("taskgen: hindsight task of %s: %w", ex.Task.TaskID, err)
	}
	if t.EnvType == "" {
		t.EnvType = ex.Task.EnvType
	}
	one := 1.0
	return []agentevolver.TaskObjective{{Task: t, Confidence: &one}}, nil
}
