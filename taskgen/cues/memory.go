package cues

import (
	"context"
	"fmt"
	"strings"
)

// FallbackMemory is the exploration memory when the summariser answers
// nothing (reference §2.7.4): "Previous exploration attempted N actions.
// Successful actions include: … (reward > 0, at most 5 distinct).
// Recently tried actions: <the last 5>."
func FallbackMemory(ts []Triplet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Previous exploration attempted %d actions.", len(ts))
	var good []string
	seen := map[string]bool{}
	for _, t := range ts {
		if t.Reward > 0 && !seen[t.Action] && len(good) < 5 {
			seen[t.Action] = true
			good = append(good, t.Action)
		}
	}
	if len(good) > 0 {
		b.WriteString(" Successful actions include: " + strings.Join(good, ", ") + ".")
	}
	var recent []string
	for _, t := range ts[max(0, len(ts)-5):] {
		recent = append(recent, t.Action)
	}
	b.WriteString(" Recently tried actions: " + strings.Join(recent, ", ") + ".")
	return b.String()
}

// explorationMemory summarises the latest triplets of envID from finished
// rollouts (reference §2.7.4) and stores the summary in
// memories/memory_<env>_exploration.txt; "" when there are none. The
// reference recomputes it after each rollout; here it is computed when a
// rollout starts, from the same triplets.
func (p *Pipeline) explorationMemory(ctx context.Context, envID string, rollout int) (string, error) {
	if p.cfg.Stage1.MemoryTriplets < 0 {
		return "", nil
	}
	all, err := p.finishedTriplets()
	if err != nil {
		return "", err
	}
	var ts []Triplet
	for _, t := range all {
		if t.EnvID == envID {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return "", nil
	}
	ts = ts[max(0, len(ts)-p.cfg.Stage1.MemoryTriplets):]
	reply, err := p.chat(ctx, chatMessages(MemorySystemPrompt, MemoryUserPrompt(ts)), p.cfg.Stage1.MemoryMaxTokens, p.seedOf("memory", rollout))
	if err != nil {
		return "", err
	}
	mem := strings.TrimSpace(reply)
	if mem == "" {
		mem = FallbackMemory(ts)
	}
	if err := p.Store.WriteText("memories/memory_"+safeName(envID)+"_exploration.txt", mem); err != nil {
		return "", err
	}
	return mem, nil
}
