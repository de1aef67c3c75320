package cues

import (
	"context"
	"fmt"
	"strings"
)

// accepted returns the accepted trajectories, by task id order.
func (p *Pipeline) accepted() ([]Trajectory, error) {
	names, err := p.Store.ListJSON("trajectories", "trajectory_")
	if err != nil {
		return nil, err
	}
	var out []Trajectory
	for _, n := range names {
		var tr Trajectory
		if _, err := p.Store.ReadJSON("trajectories/"+n, &tr); err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

func rewriteFile(taskID string) string { return "rewrites/rewrite_" + safeName(taskID) + ".json" }

// RewriteQueries is the query rewrite (reference §2.10), when
// Config.Rewrite.Enabled: for each accepted trajectory (of this output
// directory, not of a fixed ./data) the model writes up to NumVariants
// equivalent queries, hardest first, from the query and the last 8
// messages; each variant is written as a copy of the trajectory with its
// query replaced (rewrites/trajectories/trajectory_<task>_rw<i>.json),
// then the record rewrites/rewrite_<task>.json, which a resumed run
// skips. The work goes in batches of BatchSize between progress updates.
func (p *Pipeline) RewriteQueries(ctx context.Context) error {
	if !p.cfg.Rewrite.Enabled {
		return nil
	}
	trs, err := p.accepted()
	if err != nil {
		return err
	}
	bar := p.progress("rewrite: trajectories", len(trs))
	defer bar.Finish()
	k := p.cfg.Rewrite.NumVariants
	for b := 0; b < len(trs); b += p.cfg.Rewrite.BatchSize {
		for _, tr := range trs[b:min(len(trs), b+p.cfg.Rewrite.BatchSize)] {
			if p.Store.Exists(rewriteFile(tr.TaskID)) || strings.TrimSpace(tr.Query) == "" {
				continue
			}
			var ctxParts []string
			for _, m := range tr.Messages[max(0, len(tr.Messages)-8):] {
				if c := strings.TrimSpace(m.Content); c != "" {
					ctxParts = append(ctxParts, c)
				}
			}
			reply, err := p.chat(ctx, chatMessages(RewriteSystemPrompt, RewriteUserPrompt(tr.Query, clip(strings.Join(ctxParts, " | "), 500), k)), 0, p.seedOf("rewrite", tr.TaskID))
			if err != nil {
				return fmt.Errorf("rewrite %s: %w", tr.TaskID, err)
			}
			variants := ParseRewrites(reply, tr.Query, k)
			for i, v := range variants {
				cp := tr
				cp.Query = v
				if err := p.Store.WriteJSON(fmt.Sprintf("rewrites/trajectories/trajectory_%s_rw%d.json", safeName(tr.TaskID), i+1), cp); err != nil {
					return err
				}
			}
			if variants == nil {
				variants = []string{}
			}
			rec := RewriteRecord{TaskID: tr.TaskID, Query: tr.Query, Variants: variants, Missing: k - len(variants)}
			if err := p.Store.WriteJSON(rewriteFile(tr.TaskID), rec); err != nil {
				return err
			}
		}
		bar.Add(int64(min(len(trs), b+p.cfg.Rewrite.BatchSize) - b))
	}
	return nil
}
