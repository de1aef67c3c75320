package cues

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/org/agentevolver/internal/parallel"
)

// Requirement is what requirement.json holds: the user's requirement and
// the exploration directive the model made of it.
type Requirement struct {
	Requirement string `json:"requirement"`
	Directive   string `json:"directive"`
}

// Confirm is requirement confirmation (reference §2.6, §2.7.1): it turns
// Config.Requirement into an exploration directive (one model call; an
// empty reply gives "Focus exploration on: <requirement>") and, with
// Config.Concepts.Enabled, builds the concept pool from the queries of
// the environment's tasks. Both are stored and reused by a resumed run.
// The reference rewrites the requirement once per rollout; here it is
// once per run, and each rollout draws its own concepts.
func (p *Pipeline) Confirm(ctx context.Context) error {
	if p.cfg.Requirement != "" && !p.Store.Exists("requirement.json") {
		reply, err := p.chat(ctx, chatMessages(RequirementSystemPrompt, p.cfg.Requirement), 0, p.seedOf("requirement"))
		if err != nil {
			return err
		}
		d := strings.TrimSpace(reply)
		if d == "" {
			d = "Focus exploration on: " + p.cfg.Requirement
		}
		if err := p.Store.WriteJSON("requirement.json", Requirement{Requirement: p.cfg.Requirement, Directive: d}); err != nil {
			return err
		}
	}
	if !p.cfg.Concepts.Enabled || p.Store.Exists("concepts.json") {
		return nil
	}
	ids, err := p.Env.TaskIDs(ctx, p.cfg.EnvType, p.cfg.Split)
	if err != nil {
		return fmt.Errorf("concepts: %w", err)
	}
	ids = append([]string(nil), ids...)
	r := rand.New(rand.NewPCG(uint64(p.seedOf("concepts")), 1))
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	ids = ids[:min(len(ids), p.cfg.Concepts.Tasks)]
	queries := make([]string, len(ids))
	var mu sync.Mutex
	var firstErr error
	err = parallel.ForEach(ctx, len(ids), p.cfg.Workers, func(i int) {
		id, state, err := p.create(ctx, ids[i], p.cfg.Concepts.CreateParams)
		if err != nil {
			mu.Lock()
			firstErr = err
			mu.Unlock()
			return
		}
		defer p.release(ctx, id)
		if len(state) > 0 {
			queries[i] = strings.TrimSpace(state[len(state)-1].Content)
		}
	})
	if err == nil {
		err = firstErr
	}
	if err != nil {
		return fmt.Errorf("concepts: %w", err)
	}
	var concepts []string
	seen := map[string]bool{}
	for b := 0; b < len(queries); b += p.cfg.Concepts.BatchSize {
		batch := queries[b:min(len(queries), b+p.cfg.Concepts.BatchSize)]
		reply, err := p.chat(ctx, chatMessages(ConceptSystemPrompt, ConceptUserPrompt(batch)), 0, p.seedOf("concepts", b))
		if err != nil {
			return fmt.Errorf("concepts: %w", err)
		}
		for _, c := range ParseConcepts(reply) {
			if !seen[c] {
				seen[c] = true
				concepts = append(concepts, c)
			}
		}
	}
	if concepts == nil {
		concepts = []string{}
	}
	return p.Store.WriteJSON("concepts.json", concepts)
}

// rolloutRequirement is the requirement rollout i explores with: the
// directive, then, with a concept pool, "Your exploration should start
// from a,b,c." naming at most PerRollout concepts drawn for the rollout.
func (p *Pipeline) rolloutRequirement(i int) (string, error) {
	var req Requirement
	if _, err := p.Store.ReadJSON("requirement.json", &req); err != nil {
		return "", err
	}
	text := req.Directive
	if !p.cfg.Concepts.Enabled {
		return text, nil
	}
	var concepts []string
	if _, err := p.Store.ReadJSON("concepts.json", &concepts); err != nil {
		return "", err
	}
	if len(concepts) == 0 {
		return text, nil
	}
	r := rand.New(rand.NewPCG(uint64(p.seedOf("rollout-concepts", i)), 2))
	r.Shuffle(len(concepts), func(a, b int) { concepts[a], concepts[b] = concepts[b], concepts[a] })
	concepts = concepts[:min(len(concepts), p.cfg.Concepts.PerRollout)]
	return text + "\nYour exploration should start from " + strings.Join(concepts, ",") + ".\n", nil
}
