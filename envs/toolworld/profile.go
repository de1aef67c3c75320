package toolworld

import (
	"sort"

	"github.com/org/agentevolver"
)

// Profile describes the environment for task synthesis (reference §4.2):
// one entity per app, with its attributes and operations, and a preference
// for tasks over two apps with chained operations.
//
// Its relation difficulty follows the levels the environment lists: one
// call (1) with Config.MaxLevel 1, two or three calls (2) with MaxLevel 2,
// otherwise chains of three to five (3), so that tasks synthesised from the
// profile (short random walks for one-call tasks) are as hard as the
// environment's own.
//
// With Config.Worlds the profile shows the first world's names (the apps
// and APIs of other worlds are named otherwise, and each task's system
// prompt lists its own).
func (e *Env) Profile() agentevolver.EnvProfile {
	s := e.cat.canon
	if len(e.worlds) > 0 {
		if w, _, err := e.worldOf(0); err == nil {
			s = w
		}
	}
	p := agentevolver.EnvProfile{
		Name: Name,
		Background: "The user keeps an address book (contacts), a weekly calendar, text files and a bank account, " +
			"each reachable through a few small APIs called one per turn as app.api key=value. " +
			"A task ends with task.finish, which also carries the answer when the task asks a question.",
		TaskPreference: agentevolver.TaskPreference{NumEntities: 2, NumOpts: 3, RelationDifficulty: 3},
	}
	if m := e.cfg.MaxLevel; m > 0 && m < p.TaskPreference.RelationDifficulty {
		p.TaskPreference.RelationDifficulty = m
	}
	for _, ap := range e.cat.apps {
		if len(ap.attrs) == 0 {
			continue // task: the finish API, not an entity of the world
		}
		ent := agentevolver.Entity{Name: s.app[ap.name], Description: ap.doc, Attrs: map[string]string{}}
		keys := make([]string, 0, len(ap.attrs))
		for k := range ap.attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ent.Attrs[k] = ap.attrs[k]
		}
		for _, a := range ap.apis {
			ent.Opts = append(ent.Opts, agentevolver.Operation{Name: s.apiName[a], Description: s.doc[a] + "; " + s.usage(a)})
		}
		p.Entities = append(p.Entities, ent)
	}
	return p
}
