package optim

import (
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/model"
)

// PaddedSamples is a list of samples laid out for the policy as veRL does:
// prompts left-padded to the longest prompt, responses right-padded to the
// longest response, per-token values over the response columns.
type PaddedSamples struct {
	Tokens
	// LossMask is 1 on the policy's own response tokens.
	LossMask [][]float32
	// RespLen is each row's number of real response tokens.
	RespLen []int
	// StepIDs are each response token's step (Sample.StepIDs), -1 on
	// padding and on samples that carry none.
	StepIDs [][]int
}

// PadSamples lays samples out as one batch. Every sample needs a non-empty
// prompt and response; padID fills the padding. The prompt and response
// widths and the number of rows are rounded up to bucket sizes so the
// update graphs compile for a few shapes only; extra rows repeat the first
// sample with an all-zero loss mask, so they change no loss or gradient.
func PadSamples(samples []agentevolver.Sample, padID int) (PaddedSamples, error) {
	if len(samples) == 0 {
		return PaddedSamples{}, fmt.Errorf("%w: no samples", ErrShape)
	}
	rows := model.BucketSize(len(samples))
	padded := make([]agentevolver.Sample, rows)
	copy(padded, samples)
	for i := len(samples); i < rows; i++ {
		filler := samples[0]
		filler.ResponseLossMask = make([]int, len(filler.ResponseIDs))
		padded[i] = filler
	}
	p, err := layOut(padded, padID)
	if err != nil {
		return p, err
	}
	for i := len(samples); i < rows; i++ {
		p.RespLen[i] = 0 // no reward is placed on filler rows
		for j := range p.StepIDs[i] {
			p.StepIDs[i][j] = -1 // and no step credited
		}
	}
	return p, nil
}

// layOut pads samples to the bucketed widths of the longest prompt and
// response.
func layOut(samples []agentevolver.Sample, padID int) (PaddedSamples, error) {
	maxP, maxR := 0, 0
	for i, s := range samples {
		if len(s.PromptIDs) == 0 || len(s.ResponseIDs) == 0 {
			return PaddedSamples{}, fmt.Errorf("%w: sample %d has %d prompt and %d response tokens", ErrShape, i, len(s.PromptIDs), len(s.ResponseIDs))
		}
		if len(s.ResponseLossMask) != len(s.ResponseIDs) {
			return PaddedSamples{}, fmt.Errorf("%w: sample %d has %d response tokens but %d loss-mask entries", ErrShape, i, len(s.ResponseIDs), len(s.ResponseLossMask))
		}
		if len(s.StepIDs) != 0 && len(s.StepIDs) != len(s.ResponseIDs) {
			return PaddedSamples{}, fmt.Errorf("%w: sample %d has %d response tokens but %d step ids", ErrShape, i, len(s.ResponseIDs), len(s.StepIDs))
		}
		maxP = max(maxP, len(s.PromptIDs))
		maxR = max(maxR, len(s.ResponseIDs))
	}
	maxP, maxR = model.BucketSize(maxP), model.BucketSize(maxR)
	out := PaddedSamples{
		Tokens: Tokens{
			InputIDs:      make([][]int, len(samples)),
			AttentionMask: make([][]int, len(samples)),
			PromptLen:     maxP,
		},
		LossMask: make([][]float32, len(samples)),
		RespLen:  make([]int, len(samples)),
		StepIDs:  make([][]int, len(samples)),
	}
	for i, s := range samples {
		ids := make([]int, maxP+maxR)
		att := make([]int, maxP+maxR)
		loss := make([]float32, maxR)
		steps := make([]int, maxR)
		for j := range steps {
			steps[j] = -1
		}
		copy(steps, s.StepIDs)
		off := maxP - len(s.PromptIDs)
		for j := 0; j < off; j++ {
			ids[j] = padID
		}
		for j, id := range s.PromptIDs {
			ids[off+j] = id
			att[off+j] = 1
		}
		for j := range maxR {
			if j < len(s.ResponseIDs) {
				ids[maxP+j] = s.ResponseIDs[j]
				att[maxP+j] = 1
				if s.ResponseLossMask[j] != 0 {
					loss[j] = 1
				}
			} else {
				ids[maxP+j] = padID
			}
		}
		out.InputIDs[i], out.AttentionMask[i], out.LossMask[i], out.StepIDs[i] = ids, att, loss, steps
		out.RespLen[i] = len(s.ResponseIDs)
	}
	return out, nil
}
