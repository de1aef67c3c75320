package toolworld

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
)

// Hindsight tasks (self-questioning without an LLM).
//
// Env.SynthesizeTask relabels an episode in hindsight: the goal of the new
// task is what the episode's actions achieved on the seed task's world.
// Its id holds everything needed to rebuild it, so it survives a task
// file and the env-service protocol with no change to either:
//
//	hs1:<seed task id>:<call>;<call>;...
//	<call> = <app>.<api>,<value>,<value>...
//
// The calls are the solution's state-changing calls in order, followed,
// when the task asks a question, by the read call that answers it. Values
// are canonical (as the APIs store them: Mon, 25, notes.txt), one per
// parameter in the API's documented order, with every byte outside
// A-Z a-z 0-9 - . _ ~ written as %XX (upper-case hex). For example
//
//	hs1:tw-train-0002:files.write,old.txt,pick%20up%20keys;bank.balance
//
// reads `Write "pick up keys" to old.txt. What is my bank balance?`. An id is accepted only in exactly the form
// SynthesizeTask writes: at most MaxHindsightIDBytes bytes and
// MaxHindsightCalls calls, a generated seed task, every call valid and
// successful on the seed's world, none of them removable without changing
// the final state, and a question read (if any) only last. Anything else
// is an error matching ErrBadHindsightID (and so ErrUnknownTask and
// envclient.ErrBadRequest), or ErrUnknownTask for an unknown seed.

// HindsightPrefix starts the id of every hindsight task.
const HindsightPrefix = "hs1:"

// HindsightFamily is the TaskInfo.Family of every hindsight task.
const HindsightFamily = "hindsight"

// MaxHindsightIDBytes bounds the length of a hindsight task id.
const MaxHindsightIDBytes = 4 << 10

// MaxHindsightCalls bounds the calls a hindsight task id holds.
const MaxHindsightCalls = 32

// maxSynthesisActions bounds the actions SynthesizeTask reads, and so the
// cost of pruning them.
const maxSynthesisActions = 256

var (
	// ErrBadHindsightID reports a task id that starts with HindsightPrefix
	// but is not one SynthesizeTask writes. It matches ErrUnknownTask.
	ErrBadHindsightID error = envkit.Kind("toolworld: bad hindsight task id", ErrUnknownTask)
	// ErrHindsightTooLarge reports an episode whose achievement needs more
	// than MaxHindsightCalls calls or MaxHindsightIDBytes bytes of id, or
	// that has more than 256 actions.
	ErrHindsightTooLarge = errors.New("toolworld: hindsight task too large")
)

var _ envservice.TaskSynthesizer = (*Env)(nil)

// SynthesizeTask implements envservice.TaskSynthesizer: it replays actions
// (at most 256) on the world of seedTaskID as an episode would, ignoring
// malformed and failing ones and anything after task.finish, and returns
// the hindsight task of what they achieved.
//
// The goal is every state entry the actions changed (with the value it
// ended with), reached by the fewest of their own successful calls that
// give the same final state: a file written twice counts once, an event
// added and then cancelled not at all, a detour such as contacts.list
// never. A question is added when the actions read a value that is the
// same on the starting world, when it was read and at the end (a phone
// number, the balance, the one person met on a day, a file's text): when
// the actions end with task.finish, the read whose value is the answer
// they gave (none if they gave none), otherwise the last such read. The
// episode that produced the task is therefore a perfect episode of it,
// and so is the expert solution of seedTaskID.
//
// The returned task has the TaskID described above (HindsightPrefix, the
// seed id, the calls), EnvType Name, Query the task's instruction,
// GroundTruth its expert solution as one command line per call ending with
// task.finish (each line, in a tool block, is an action), OpenQuery true,
// Evaluator agentevolver.EvaluatorEnv and Metadata {"seed_task_id",
// "split", "synthesis": "hindsight"}. Every method taking a task id takes
// it: New, Task, Solve, Demonstrate, JudgeSteps, TaskMetadata. Its split
// is the seed's: a hindsight task of a training task is a training task.
// It is listed by no TaskIDs call, its id cannot equal a generated one,
// and its world is its seed's, so it shares nothing with the tasks of
// other splits; synthesise from training tasks only to keep held-out
// tasks held out. A hindsight task used as a seed stands for its own
// seed, since it starts from the same world.
//
// Errors: ErrUnknownTask for an unknown seed, an error matching
// envservice.ErrNothingAchieved when the actions changed nothing and read
// nothing to ask about, ErrHindsightTooLarge, and ctx's error.
func (e *Env) SynthesizeTask(ctx context.Context, seedTaskID string, actions []agentevolver.Message) (agentevolver.Task, error) {
	if err := ctx.Err(); err != nil {
		return agentevolver.Task{}, err
	}
	seed, err := e.task(seedTaskID)
	if err != nil {
		return agentevolver.Task{}, err
	}
	root := seed.rootTask()
	if len(actions) > maxSynthesisActions {
		return agentevolver.Task{}, fmt.Errorf("%w: %d actions, the limit is %d", ErrHindsightTooLarge, len(actions), maxSynthesisActions)
	}
	var (
		calls    []bound
		finished bool
		answer   string
	)
	shown := e.shown(root)
	for _, msg := range actions {
		c, err := ParseAction(msg)
		if err != nil {
			continue
		}
		a, vals, err := e.cat.bindOn(shown, c)
		if err != nil {
			continue
		}
		if a.finish {
			finished, answer = true, vals["answer"]
			break
		}
		calls = append(calls, bound{a: a, vals: vals})
	}
	t, err := e.hindsight(ctx, root, calls, finished, answer)
	if err != nil {
		return agentevolver.Task{}, err
	}
	// The id must name the task it was made from; this is what another
	// process will do with it.
	if _, err := e.hindsightTask(ctx, t.info.ID); err != nil {
		return agentevolver.Task{}, fmt.Errorf("toolworld: synthesized task id does not decode (a bug): %w", err)
	}
	lines := make([]string, len(t.solution))
	for i, c := range t.solution {
		lines[i] = shown.render(c).String()
	}
	return agentevolver.Task{
		TaskID:      t.info.ID,
		EnvType:     Name,
		OpenQuery:   true,
		Query:       t.info.Instruction,
		GroundTruth: strings.Join(lines, "\n"),
		Evaluator:   agentevolver.EvaluatorEnv,
		Metadata: map[string]any{
			"seed_task_id": root.info.ID,
			"split":        root.info.Split,
			"synthesis":    "hindsight",
		},
	}, nil
}

// rootTask returns the generated task whose world t starts from: t itself,
// or the seed of a hindsight task.
func (t *task) rootTask() *task {
	if t.root != nil {
		return t.root
	}
	return t
}

// bound is a call checked against the catalog: its API and its canonical
// argument values.
type bound struct {
	a    *api
	vals values
}

// call renders b with its arguments in the API's parameter order, leaving
// out empty optional ones.
func (b bound) call() Call {
	c := Call{App: b.a.app, API: b.a.name}
	for _, p := range b.a.params {
		if v := b.vals[p.name]; v != "" || !p.optional {
			c.Args = append(c.Args, Arg{Name: p.name, Value: v})
		}
	}
	return c
}

// reads reports an API that only reads the world.
func (a *api) reads() bool {
	switch a.name {
	case "find", "list", "read", "balance":
		return true
	}
	return false
}

// replay runs calls on a copy of w, skipping those that fail as an episode
// would (a failing call changes nothing), and returns the calls that
// succeeded and the final world.
func replay(w *world, calls []bound) ([]bound, *world) {
	w = w.clone()
	kept := make([]bound, 0, len(calls))
	for _, c := range calls {
		if _, err := c.a.exec(w, c.vals); err == nil {
			kept = append(kept, c)
		}
	}
	return kept, w
}

// prune removes calls until none can be removed without changing the
// final state, and returns the remaining calls (all of which succeed) and
// the final world. It is deterministic and idempotent: pruning its result
// returns it unchanged.
func prune(ctx context.Context, base *world, calls []bound) ([]bound, *world, error) {
	calls, final := replay(base, calls)
	target := final.state()
	for changed := true; changed; {
		changed = false
		for i := len(calls) - 1; i >= 0; i-- {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			trial := append(append(make([]bound, 0, len(calls)-1), calls[:i]...), calls[i+1:]...)
			kept, w := replay(base, trial)
			if maps.Equal(w.state(), target) {
				calls, final, changed = kept, w, true
				i = min(i, len(calls))
			}
		}
	}
	return calls, final, nil
}

// question is what a read call asks on a world: the sentence and its
// answer.
type question struct {
	read     bound
	sentence string
	answer   string
}

// ask returns the question that the read call b answers on w; ok is false
// when b reads nothing to ask about there.
func ask(w *world, b bound) (q question, ok bool) {
	q.read = b
	switch b.a.fullName() {
	case "contacts.find":
		i := w.contactIndex(b.vals["name"])
		if i < 0 {
			return q, false
		}
		c := w.contacts[i]
		q.sentence, q.answer = fmt.Sprintf("What is %s's phone number?", c.name), c.phone
	case "bank.balance":
		q.sentence, q.answer = "What is my bank balance?", strconv.Itoa(w.balance)
	case "calendar.list":
		evs := w.eventsOn(b.vals["day"])
		if len(evs) != 1 {
			return q, false
		}
		q.sentence, q.answer = fmt.Sprintf("Who do I meet on %s?", b.vals["day"]), evs[0].with
	case "files.read":
		text, ok := w.files[b.vals["name"]]
		if !ok {
			return q, false
		}
		q.sentence, q.answer = fmt.Sprintf("What does %s say?", b.vals["name"]), text
	default:
		return q, false
	}
	return q, true
}

// sameAnswer reports two answers that each accept the other.
func sameAnswer(a, b string) bool { return answersMatch(a, b) && answersMatch(b, a) }

// hindsight builds the task whose goal is what calls (bound, none of them
// task.finish) achieve on root's world. finished and answer describe the
// episode's task.finish, if it had one.
func (e *Env) hindsight(ctx context.Context, root *task, calls []bound, finished bool, answer string) (*task, error) {
	base := root.world
	// Replay, noting what each successful read answered when it ran.
	type readAt struct {
		b      bound
		answer string
	}
	var (
		changes []bound
		reads   []readAt
	)
	w := base.clone()
	for _, c := range calls {
		if _, err := c.a.exec(w, c.vals); err != nil {
			continue
		}
		if !c.a.reads() {
			changes = append(changes, c)
		} else if q, ok := ask(w, c); ok {
			reads = append(reads, readAt{b: c, answer: q.answer})
		}
	}
	changes, final, err := prune(ctx, base, changes)
	if err != nil {
		return nil, err
	}
	checks := diffState(root.base, final.state())
	if len(checks) == 0 {
		changes, final = nil, base.clone()
	}

	// The question: a value read that is the same at the start, when read
	// and at the end, so the instruction has one answer whenever it is
	// looked up; with task.finish, only the one the episode answered.
	var q *question
	for i := len(reads) - 1; i >= 0 && q == nil; i-- {
		start, ok0 := ask(base, reads[i].b)
		end, ok1 := ask(final, reads[i].b)
		if !ok0 || !ok1 || !sameAnswer(start.answer, reads[i].answer) || !sameAnswer(start.answer, end.answer) {
			continue
		}
		if finished && !answersMatch(answer, start.answer) {
			continue
		}
		q = &start
	}
	if len(changes) == 0 && q == nil {
		return nil, fmt.Errorf("toolworld: hindsight on %s: %w", root.info.ID, envservice.ErrNothingAchieved)
	}
	encoded := make([]Call, 0, len(changes)+1)
	for _, c := range changes {
		encoded = append(encoded, c.call())
	}
	if q != nil {
		encoded = append(encoded, q.read.call())
	}
	if len(encoded) > MaxHindsightCalls {
		return nil, fmt.Errorf("%w: %d calls, the limit is %d", ErrHindsightTooLarge, len(encoded), MaxHindsightCalls)
	}
	id := encodeHindsightID(root.info.ID, encoded)
	if len(id) > MaxHindsightIDBytes {
		return nil, fmt.Errorf("%w: an id of %d bytes, the limit is %d", ErrHindsightTooLarge, len(id), MaxHindsightIDBytes)
	}

	// The expert solution: the changes in order, each cancel preceded by
	// the calendar.list that shows the event's id, then the question's
	// read and task.finish.
	t := &task{world: base, base: root.base, checks: checks, root: root}
	order := map[string]int{}
	lookup := false
	w = base.clone()
	for j, c := range changes {
		if c.a.fullName() == "calendar.cancel" {
			list := call("calendar", "list", "day", eventDay(w, c.vals.int("id")))
			if n := len(t.solution); n == 0 || t.solution[n-1].String() != list.String() {
				t.solution = append(t.solution, list)
			}
			lookup = true
		}
		before := w.state()
		if _, err := c.a.exec(w, c.vals); err != nil {
			return nil, fmt.Errorf("toolworld: hindsight replay of %s: %w", c.call(), err)
		}
		t.solution = append(t.solution, c.call())
		for _, ch := range diffState(before, w.state()) {
			if _, ok := order[ch.key]; !ok {
				order[ch.key] = j
			}
		}
	}
	sentences, err := describe(base, final, root.base, checks, order)
	if err != nil {
		return nil, err
	}
	finish := call("task", "finish")
	if q != nil {
		t.solution = append(t.solution, q.read.call())
		sentences = append(sentences, q.sentence)
		t.answer = q.answer
		finish = call("task", "finish", "answer", q.answer)
	}
	t.solution = append(t.solution, finish)
	for _, c := range t.solution[:len(t.solution)-1] {
		a, vals, err := e.cat.bind(c)
		if err != nil {
			return nil, fmt.Errorf("toolworld: hindsight call %s: %w", c, err)
		}
		t.keys = append(t.keys, a.matchKey(vals))
	}
	level := 2
	switch {
	case lookup:
		level = 3
	case len(t.solution) == 2:
		level = 1
	}
	t.info = TaskInfo{ID: id, Split: root.info.Split, Level: level, Instruction: strings.Join(sentences, " "),
		World: root.info.World, Family: HindsightFamily}
	return t, nil
}

// eventDay returns the day of the event with the given id.
func eventDay(w *world, id int) string {
	for _, e := range w.events {
		if e.id == id {
			return e.day
		}
	}
	return ""
}

func eventKey(e event) string {
	return "event/" + normText(e.title) + "|" + e.day + "|" + foldName(e.with)
}

// describe writes one instruction sentence per check, in the order the
// solution first changes their entries, in the style of the generated
// tasks: "Add contact Zed with phone 555-1234.", "Schedule lunch with Bob
// on Mon.", "Cancel my Tue coffee with Sam.", "Write \"buy milk\" to
// notes.txt.", "Delete the file old.txt.", "Pay Bob 25 dollars.".
func describe(base, final *world, baseState map[string]string, checks []check, order map[string]int) ([]string, error) {
	sorted := append([]check(nil), checks...)
	sort.SliceStable(sorted, func(i, j int) bool {
		oi, oki := order[sorted[i].key]
		oj, okj := order[sorted[j].key]
		if oki != okj {
			return oki
		}
		if oi != oj {
			return oi < oj
		}
		return sorted[i].key < sorted[j].key
	})
	count := func(c check) (before, after int) {
		before, _ = strconv.Atoi(baseState[c.key])
		if c.present {
			after, _ = strconv.Atoi(c.value)
		}
		return before, after
	}
	var out []string
	for _, c := range sorted {
		var s string
		switch {
		case strings.HasPrefix(c.key, "contact/"):
			for _, ct := range final.contacts {
				if c.present && "contact/"+foldName(ct.name) == c.key {
					s = fmt.Sprintf("Add contact %s with phone %s.", ct.name, ct.phone)
					break
				}
			}
		case strings.HasPrefix(c.key, "event/"):
			before, after := count(c)
			if after > before {
				for _, ev := range final.events {
					if eventKey(ev) == c.key {
						s = fmt.Sprintf("Schedule %s with %s on %s%s.", title(ev.title), ev.with, ev.day, times(after-before))
						break
					}
				}
				break
			}
			for _, ev := range base.events {
				if eventKey(ev) != c.key {
					continue
				}
				switch {
				case before == 1 && after == 0:
					s = fmt.Sprintf("Cancel my %s %s with %s.", ev.day, title(ev.title), ev.with)
				case after == 0:
					s = fmt.Sprintf("Cancel my %d %s %s events with %s.", before, ev.day, title(ev.title), ev.with)
				default:
					s = fmt.Sprintf("Cancel %d of my %d %s %s events with %s.", before-after, before, ev.day, title(ev.title), ev.with)
				}
				break
			}
		case strings.HasPrefix(c.key, "file/"):
			name := strings.TrimPrefix(c.key, "file/")
			if text, ok := final.files[name]; ok && c.present {
				s = fmt.Sprintf("Write %q to %s.", text, name)
			} else if !c.present {
				s = fmt.Sprintf("Delete the file %s.", name)
			}
		case strings.HasPrefix(c.key, "payment/"):
			before, after := count(c)
			for _, p := range final.payments {
				if after > before && "payment/"+foldName(p.to)+"/"+strconv.Itoa(p.amount) == c.key {
					s = fmt.Sprintf("Pay %s %d dollars%s.", p.to, p.amount, times(after-before))
					break
				}
			}
		}
		if s == "" {
			return nil, fmt.Errorf("toolworld: hindsight cannot describe the change of %q (a bug)", clip(c.key))
		}
		out = append(out, s)
	}
	return out, nil
}

// title renders an event title: bare when it is one word of letters, else
// quoted.
func title(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return strconv.Quote(s)
		}
	}
	return s
}

// times says how often a goal is repeated: "", " twice", " 3 times".
func times(n int) string {
	switch {
	case n <= 1:
		return ""
	case n == 2:
		return " twice"
	}
	return fmt.Sprintf(" %d times", n)
}

// hindsightTask rebuilds the task a hindsight id names.
func (e *Env) hindsightTask(ctx context.Context, id string) (*task, error) {
	root, calls, err := e.decodeHindsightID(id)
	if err != nil {
		return nil, err
	}
	w := root.world.clone()
	for i, c := range calls {
		if _, err := c.a.exec(w, c.vals); err != nil {
			return nil, fmt.Errorf("%w: call %d (%s) fails on the world of %s: %v", ErrBadHindsightID, i+1, c.call(), root.info.ID, err)
		}
	}
	t, err := e.hindsight(ctx, root, calls, false, "")
	switch {
	case errors.Is(err, envservice.ErrNothingAchieved):
		return nil, fmt.Errorf("%w: its calls achieve nothing", ErrBadHindsightID)
	case errors.Is(err, ErrHindsightTooLarge):
		return nil, fmt.Errorf("%w: %w", ErrBadHindsightID, err)
	case err != nil:
		return nil, err
	case t.info.ID != id:
		return nil, fmt.Errorf("%w: not in the form SynthesizeTask writes (every call must succeed and change the final state, "+
			"and only a last read may ask a question); its calls give %q", ErrBadHindsightID, clipID(t.info.ID))
	}
	return t, nil
}

// clipID shortens an id for an error message.
func clipID(s string) string {
	const limit = 120
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// decodeHindsightID parses a hindsight task id, which is untrusted input,
// into its seed task and calls, each checked against the catalog.
func (e *Env) decodeHindsightID(id string) (*task, []bound, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadHindsightID, fmt.Sprintf(format, args...))
	}
	if len(id) > MaxHindsightIDBytes {
		return nil, nil, bad("%d bytes, the limit is %d", len(id), MaxHindsightIDBytes)
	}
	rest, ok := strings.CutPrefix(id, HindsightPrefix)
	if !ok {
		return nil, nil, bad("it does not start with %q", HindsightPrefix)
	}
	seedID, enc, ok := strings.Cut(rest, ":")
	if !ok {
		return nil, nil, bad("want %sSEED:CALLS", HindsightPrefix)
	}
	root, ok := e.tasks[seedID]
	if !ok {
		return nil, nil, fmt.Errorf("%w: hindsight seed %q", ErrUnknownTask, clip(seedID))
	}
	if enc == "" {
		return nil, nil, bad("no calls")
	}
	if n := strings.Count(enc, ";") + 1; n > MaxHindsightCalls {
		return nil, nil, bad("%d calls, the limit is %d", n, MaxHindsightCalls)
	}
	var calls []bound
	for i, part := range strings.Split(enc, ";") {
		fields := strings.Split(part, ",")
		a, ok := e.cat.byID[fields[0]]
		if !ok || a.finish {
			return nil, nil, bad("call %d: %q is not an API (want app.api, not task.finish)", i+1, clip(fields[0]))
		}
		if len(fields)-1 != len(a.params) {
			return nil, nil, bad("call %d: %s takes %d values, got %d", i+1, a.fullName(), len(a.params), len(fields)-1)
		}
		c := Call{App: a.app, API: a.name}
		for j, p := range a.params {
			v, err := unescapeValue(fields[j+1])
			if err != nil {
				return nil, nil, bad("call %d: %s: %v", i+1, p.name, err)
			}
			c.Args = append(c.Args, Arg{Name: p.name, Value: v})
		}
		a, vals, err := e.cat.bind(c)
		if err != nil {
			return nil, nil, bad("call %d: %v", i+1, err)
		}
		calls = append(calls, bound{a: a, vals: vals})
	}
	return root, calls, nil
}

// encodeHindsightID writes the id of a hindsight task of seedID.
func encodeHindsightID(seedID string, calls []Call) string {
	var b strings.Builder
	b.WriteString(HindsightPrefix)
	b.WriteString(seedID)
	b.WriteByte(':')
	for i, c := range calls {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(c.App + "." + c.API)
		for _, a := range c.Args {
			b.WriteByte(',')
			escapeValue(&b, a.Value)
		}
	}
	return b.String()
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

const upperHex = "0123456789ABCDEF"

// escapeValue writes v with every byte outside the unreserved set as %XX.
func escapeValue(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; unreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
}

// unescapeValue reverses escapeValue, accepting only what it writes.
func unescapeValue(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreserved(c):
			b.WriteByte(c)
		case c == '%' && i+2 < len(s) && strings.IndexByte(upperHex, s[i+1]) >= 0 && strings.IndexByte(upperHex, s[i+2]) >= 0:
			v := byte(strings.IndexByte(upperHex, s[i+1])<<4 | strings.IndexByte(upperHex, s[i+2]))
			if unreserved(v) {
				return "", fmt.Errorf("%%%s needs no escape", s[i+1:i+3])
			}
			b.WriteByte(v)
			i += 2
		case c == '%':
			return "", errors.New("% must start an escape %XX of two upper-case hex digits")
		default:
			return "", fmt.Errorf("byte %q must be escaped as %%%02X", c, c)
		}
	}
	return b.String(), nil
}
