package toolworld

// drift renames some APIs of s, a world's classic surface with its pools
// drawn, without saying so (Config.Drift): each API but the finishing one
// is renamed with probability share to a synonym of surfaceChoices (never
// its classic name, never another API's name in its app). The prompt
// becomes system, the classic one, which still documents the old names.
// Draws come from r after the world's pools, so the world's values are
// those it has without drift.
func (s *surface) drift(c *catalog, r *rng, share float64, system string) {
	choices := surfaceChoices()
	s.canonical = false
	s.prompt = system
	for _, ap := range c.apps {
		used := map[string]bool{}
		for _, a := range ap.apis {
			used[a.name] = true
		}
		for _, a := range ap.apis {
			// One draw per API whatever it decides, so that whether an
			// API drifts does not change the next API's draws.
			if u := r.float64(); a.finish || u >= share {
				continue
			}
			if n, ok := pickFresh(r, choices[a.fullName()], used); ok {
				s.apiName[a] = n
			}
		}
	}
	s.index()
}

// Drifted lists the APIs of a task's world that Config.Drift renamed, as
// classic "app.api" mapped to the name the world uses ("contacts.find" ->
// "contacts.lookup"); empty without drift. It tells an experiment which
// tasks a worked example can help.
func (e *Env) Drifted(taskID string) (map[string]string, error) {
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	s := e.shown(t)
	out := map[string]string{}
	if s.canonical {
		return out, nil
	}
	for a, name := range s.apiName {
		if name != a.name {
			out[a.fullName()] = s.full(a)
		}
	}
	return out, nil
}
