package toolworld

import (
	"fmt"
	"sort"
	"strings"
)

// task is one generated task: its starting world, the expert solution
// (ending with task.finish), the expected answer of a question, and the
// state checks derived from replaying the solution.
type task struct {
	info     TaskInfo
	world    *world
	solution []Call
	keys     []string // match keys of solution[:len-1]
	answer   string
	// checks are the state entries the solution changes, with their
	// values after it; base is the initial state.
	checks []check
	base   map[string]string
	// root is the generated task a hindsight task was synthesised from
	// (whose world and base it shares); nil for a generated task.
	root *task
	// surface is how the task's world shows its apps (a hindsight task
	// shares its root's).
	surface *surface
}

// check is one expected entry of the final state; absent entries (deleted
// files, cancelled events) have present == false.
type check struct {
	key     string
	present bool
	value   string
}

// signature identifies a task's content for de-duplication across splits.
func (t *task) signature() string {
	var b strings.Builder
	b.WriteString(t.info.Instruction)
	for _, c := range t.solution {
		b.WriteString("\n" + c.String())
	}
	return b.String()
}

// buildTask draws one task of a level. It returns nil, nil when the drawn
// world cannot host the level's goals (the caller redraws), and an error
// when the expert solution does not run: a generator bug.
func buildTask(cat *catalog, s *surface, r *rng, level int) (*task, error) {
	b := &builder{r: r, used: map[string]bool{}, pools: s.pools}
	b.baseWorld()
	goals, ok := b.drawGoals(level)
	if !ok {
		return nil, nil
	}
	t := &task{info: TaskInfo{Level: level}, world: b.w, surface: s}
	sentences := make([]string, len(goals))
	kinds := make([]string, len(goals))
	for i, g := range goals {
		sentences[i] = g.sentence
		kinds[i] = g.kind
		t.solution = append(t.solution, g.calls...)
		if g.answer != "" {
			t.answer = g.answer
		}
	}
	t.info.Instruction = strings.Join(sentences, " ")
	t.info.Family = strings.Join(kinds, "+")
	finish := call("task", "finish")
	if t.answer != "" {
		finish = call("task", "finish", "answer", t.answer)
	}
	t.solution = append(t.solution, finish)

	// Replay the solution: it must succeed, and it defines the checks.
	w := t.world.clone()
	for _, c := range t.solution {
		a, vals, err := cat.bind(c)
		if err != nil {
			return nil, fmt.Errorf("expert call %s: %w", c, err)
		}
		if _, err := a.exec(w, vals); err != nil {
			return nil, fmt.Errorf("expert call %s: %w", c, err)
		}
		if !a.finish {
			t.keys = append(t.keys, a.matchKey(vals))
		}
	}
	t.base = t.world.state()
	t.checks = diffState(t.base, w.state())
	if len(t.checks) == 0 && t.answer == "" {
		return nil, fmt.Errorf("task %q checks nothing", t.info.Instruction)
	}
	return t, nil
}

// diffState lists the entries of after that differ from before, sorted by
// key.
func diffState(before, after map[string]string) []check {
	var out []check
	for k, v := range after {
		if old, ok := before[k]; !ok || old != v {
			out = append(out, check{key: k, present: true, value: v})
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, check{key: k})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// score counts passed and failed checks of a final state:
//
//   - each entry the solution changes must have its expected value;
//   - a question's answer must have been given to task.finish;
//   - no other entry may have changed. This side-effect check only ever
//     counts as a failure, so doing nothing earns nothing.
func (t *task) score(w *world, finished bool, answer string) (passed, failed int) {
	cur := w.state()
	required := make(map[string]bool, len(t.checks))
	for _, c := range t.checks {
		required[c.key] = true
		v, ok := cur[c.key]
		if ok == c.present && v == c.value {
			passed++
		} else {
			failed++
		}
	}
	if t.answer != "" {
		if finished && answersMatch(answer, t.answer) {
			passed++
		} else {
			failed++
		}
	}
	if sideEffects(t.base, cur, required) {
		failed++
	}
	return passed, failed
}

func sideEffects(base, cur map[string]string, required map[string]bool) bool {
	for k, v := range cur {
		if old, ok := base[k]; !required[k] && (!ok || old != v) {
			return true
		}
	}
	for k := range base {
		if _, ok := cur[k]; !required[k] && !ok {
			return true
		}
	}
	return false
}

// answersMatch compares an answer with the expected one, ignoring case,
// spacing, quotes, a final full stop and a leading $; phone numbers compare
// by their digits.
func answersMatch(got, want string) bool {
	g := strings.TrimPrefix(normText(got), "$")
	w := strings.TrimPrefix(normText(want), "$")
	if g == w {
		return true
	}
	if isPhone(want) {
		return digits(got) == digits(want) && strings.Trim(got, "0123456789-+() ") == ""
	}
	return false
}

func isPhone(s string) bool {
	return strings.Contains(s, "-") && strings.Trim(s, "0123456789-") == ""
}
