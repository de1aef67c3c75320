package contextmgr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/org/agentevolver"
)

// sample tokenises msgs into one Sample (reference §3.3 tokenize_steps and
// truncate_output_ids).
//
//  1. A trailing message that is not a policy turn is dropped.
//  2. Injected experience is stripped from non-policy messages when the
//     episode's train mode asks for it (see stripMetadata).
//  3. Token arrays are concatenated; the prompt is everything before the
//     first trained policy turn, the response everything after it,
//     observations included with loss mask 0.
//  4. A prompt longer than MaxPromptLen is an error (ErrPromptTooLong); a
//     response longer than MaxResponseLen keeps its first MaxResponseLen
//     tokens.
func (c *core) sample(msgs []*ExtendedMessage, traj agentevolver.Trajectory) (agentevolver.Sample, error) {
	msgs = slices.Clone(msgs)
	if n := len(msgs); n > 0 && msgs[n-1].Author != AuthorLLM {
		msgs = msgs[:n-1]
	}
	// [BUG/QUIRK] fixed: the reference's stripper read the train mode
	// under another key than the agent flow wrote it, so experience was
	// stripped even from "keep" episodes; here the mode is a typed field.
	mode := traj.Experience.TrainMode.OrDefault()
	stripped := false
	for i, m := range msgs {
		// [BUG/QUIRK] fixed: policy turns keep their sampled ids; the
		// reference would re-tokenise one that quoted the template. And a
		// match with an empty experience is stripped too (the reference
		// tested the experience text, not the match).
		if m.Author == AuthorLLM {
			continue
		}
		_, cleaned, ok := c.cfg.Stripper.Strip(m.FutureContent, mode)
		if !ok {
			continue
		}
		stripped = true
		s, err := c.newMessage(m.Author, m.Role, cleaned, false)
		if err != nil {
			return agentevolver.Sample{}, err
		}
		s.UUID, s.BuildFromUUID = m.UUID, m.BuildFromUUID
		msgs[i] = s
	}

	var ids, loss []int
	var logProbs []float64
	haveLogProbs := false
	split := -1
	for _, m := range msgs {
		train, err := m.NeedTraining()
		if err != nil {
			return agentevolver.Sample{}, err
		}
		if train && split < 0 {
			split = len(ids)
		}
		mask, err := m.LossMask(c.blackout, c.eos)
		if err != nil {
			return agentevolver.Sample{}, err
		}
		ids = append(ids, m.Tokens...)
		loss = append(loss, mask...)
		if m.LogProbs != nil && len(m.LogProbs) == len(m.Tokens) {
			haveLogProbs = true
			logProbs = append(logProbs, m.LogProbs...)
		} else {
			logProbs = append(logProbs, make([]float64, len(m.Tokens))...)
		}
	}
	if split < 0 {
		return agentevolver.Sample{}, ErrNoResponse
	}
	stepIDs, steps := c.responseSteps(msgs, split)
	query := promptText(msgs, split)
	if split > c.cfg.MaxPromptLen {
		return agentevolver.Sample{}, fmt.Errorf("%w: %d tokens, limit %d", ErrPromptTooLong, split, c.cfg.MaxPromptLen)
	}
	end := min(len(ids), split+c.cfg.MaxResponseLen)
	ids, loss, logProbs = ids[:end], loss[:end], logProbs[:end]
	stepIDs = stepIDs[:end-split]
	steps = steps[:max(slices.Max(append([]int{-1}, stepIDs...))+1, 0)] // steps cut off entirely are gone
	attention := ones(end)
	positions := make([]int, end)
	for i := range positions {
		positions[i] = i
	}

	s := agentevolver.Sample{
		TaskID:    traj.TaskID,
		DataID:    traj.DataID,
		RolloutID: traj.RolloutID,

		InputIDs:      ids,
		AttentionMask: attention,
		PositionIDs:   positions,
		LossMask:      loss,

		PromptIDs:           slices.Clone(ids[:split]),
		PromptAttentionMask: slices.Clone(attention[:split]),
		PromptPositionIDs:   slices.Clone(positions[:split]),
		PromptLossMask:      slices.Clone(loss[:split]),

		ResponseIDs:           slices.Clone(ids[split:]),
		ResponseAttentionMask: slices.Clone(attention[split:]),
		ResponsePositionIDs:   slices.Clone(positions[split:]),
		ResponseLossMask:      slices.Clone(loss[split:]),

		StepIDs: stepIDs,
		Steps:   steps,
		Query:   query,

		Messages:       messagesOf(msgs),
		RewardScores:   traj.Reward,
		MaxPromptLen:   c.cfg.MaxPromptLen,
		MaxResponseLen: c.cfg.MaxResponseLen,
		Experience:     traj.Experience,
		// Off-policy exactly when experience the policy saw is gone from
		// the sample (reference §6: add_exp and train mode discard).
		ExpMask: stripped && traj.Experience.Requested,
	}
	if haveLogProbs {
		s.ResponseLogProbs = slices.Clone(logProbs[split:])
	}
	return s, nil
}

// responseSteps returns the step id of every response token of msgs (the
// tokens from the message starting at token offset split on) and the
// steps as text. Step ids come from the policy's own turns, not from
// searching the tokens for headers: the k-th policy turn of the response
// is step k, on its tokens after the assistant header (its content and
// end-of-turn tokens, as the reference's segments hold them); headers and
// observations are -1. A step's observation is the text of the messages
// between it and the next policy turn.
func (c *core) responseSteps(msgs []*ExtendedMessage, split int) ([]int, []agentevolver.SampleStep) {
	var ids []int
	var steps []agentevolver.SampleStep
	var obs []string
	closeStep := func() {
		if len(steps) > 0 {
			steps[len(steps)-1].Observation = strings.Join(obs, "\n")
		}
		obs = nil
	}
	pos := 0
	for _, m := range msgs {
		n := len(m.Tokens)
		if pos+n <= split {
			pos += n
			continue
		}
		pos += n
		if m.Author != AuthorLLM {
			ids = append(ids, minusOnes(n)...)
			if len(steps) > 0 {
				obs = append(obs, m.FutureContent)
			}
			continue
		}
		closeStep()
		k := len(steps)
		steps = append(steps, agentevolver.SampleStep{Action: m.Content})
		body := 0
		if i := FindSublist(m.Tokens, c.blackout, false); i >= 0 {
			body = i + len(c.blackout)
		}
		ids = append(ids, minusOnes(body)...)
		for range n - body {
			ids = append(ids, k)
		}
	}
	closeStep()
	return ids, steps
}

// promptText joins the text of the messages before token offset split,
// the prompt a step judge reads as the task.
func promptText(msgs []*ExtendedMessage, split int) string {
	var parts []string
	pos := 0
	for _, m := range msgs {
		if pos >= split {
			break
		}
		pos += len(m.Tokens)
		parts = append(parts, m.FutureContent)
	}
	return strings.Join(parts, "\n")
}

func minusOnes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	return out
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
