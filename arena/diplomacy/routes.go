package diplomacy

// Convoy routes: chains of water provinces from one coastal province to
// another.

// seasFrom returns the water provinces a fleet could reach from some
// fleet location of province prov.
func (m *Map) seasNext(prov Loc) []Loc {
	var out []Loc
	for _, fl := range m.FleetLocs(prov) {
		for _, n := range m.fleet[fl] {
			if p, _ := m.Province(n); p.Kind == Water && !containsLoc(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func containsLoc(ls []Loc, l Loc) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

// touches reports whether water province sea borders province prov.
func (m *Map) touches(sea, prov Loc) bool {
	for _, n := range m.fleet[sea] {
		if n.Province() == prov.Province() {
			return true
		}
	}
	return false
}

// convoyRoute reports whether an army in province src can be convoyed to
// province dst through water provinces for which usable reports true.
func (m *Map) convoyRoute(src, dst Loc, usable func(Loc) bool) bool {
	src, dst = src.Province(), dst.Province()
	if !m.isCoastal(src) || !m.isCoastal(dst) || src == dst {
		return false
	}
	seen := map[Loc]bool{}
	var queue []Loc
	for _, s := range m.seasNext(src) {
		if usable(s) {
			seen[s] = true
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if m.touches(s, dst) {
			return true
		}
		for _, n := range m.fleet[s] {
			if p, _ := m.Province(n); p.Kind == Water && !seen[n] && usable(n) {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return false
}

func (m *Map) isCoastal(prov Loc) bool {
	p, ok := m.Province(prov)
	return ok && p.Kind == Coast
}

// necessaryConvoy reports whether a fleet in water province sea can be
// part of a minimal convoy route from src to dst: a chain of water
// provinces in which no fleet could be skipped (an induced path). The
// 2023 rules and DATC 3.0 (test cases 6.G.7 and 6.G.19) treat a convoy
// order by a fleet that no minimal route needs as illegal.
func (m *Map) necessaryConvoy(sea, src, dst Loc) bool {
	src, dst = src.Province(), dst.Province()
	if !m.isCoastal(src) || !m.isCoastal(dst) || src == dst {
		return false
	}
	if p, ok := m.Province(sea); !ok || p.Kind != Water {
		return false
	}
	var path []Loc
	var dfs func(cur Loc) bool
	dfs = func(cur Loc) bool {
		path = append(path, cur)
		defer func() { path = path[:len(path)-1] }()
		if m.touches(cur, dst) {
			return containsLoc(path, sea)
		}
		for _, n := range m.fleet[cur] {
			if p, _ := m.Province(n); p.Kind != Water || containsLoc(path, n) || m.touches(n, src) {
				continue
			}
			chord := false
			for _, q := range path[:len(path)-1] {
				if m.Adjacent(Fleet, q, n) {
					chord = true
					break
				}
			}
			if !chord && dfs(n) {
				return true
			}
		}
		return false
	}
	for _, s := range m.seasNext(src) {
		if dfs(s) {
			return true
		}
	}
	return false
}
