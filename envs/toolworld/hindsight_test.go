package toolworld

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

// gtActions turns a hindsight task's GroundTruth into actions: one tool
// block per line.
func gtActions(gt string) []agentevolver.Message {
	var out []agentevolver.Message
	for _, l := range strings.Split(gt, "\n") {
		out = append(out, assistant(tool(l)))
	}
	return out
}

// scoreActions plays actions on a fresh instance of id and returns the
// sparse and dense scores of the final state.
func scoreActions(t *testing.T, e *Env, id string, actions []agentevolver.Message) (sparse, dense float64) {
	t.Helper()
	in, err := e.newInstance(context.Background(), id, "score", nil)
	if err != nil {
		t.Fatalf("New(%s): %v", clipID(id), err)
	}
	for _, a := range actions {
		if _, err := in.Step(context.Background(), a, nil); err != nil {
			t.Fatal(err)
		}
	}
	return evaluate(t, in, true), evaluate(t, in, false)
}

// withFinish returns actions, with a task.finish giving answer appended
// when they do not already end the episode.
func withFinish(actions []agentevolver.Message, answer string) []agentevolver.Message {
	for _, a := range actions {
		if c, err := ParseAction(a); err == nil && c.App == "task" && c.API == "finish" {
			return actions
		}
	}
	line := "task.finish"
	if answer != "" {
		line = call("task", "finish", "answer", answer).String()
	}
	return append(append([]agentevolver.Message(nil), actions...), assistant(tool(line)))
}

// checkHindsight checks what every synthesised task must satisfy: its id
// alone rebuilds it, its ground truth and the episode it came from score
// 1, doing nothing scores 0, and the other capabilities take its id.
func checkHindsight(t *testing.T, e *Env, seedID string, actions []agentevolver.Message, hs agentevolver.Task) {
	t.Helper()
	ctx := context.Background()
	if !strings.HasPrefix(hs.TaskID, HindsightPrefix+seedID+":") || len(hs.TaskID) > MaxHindsightIDBytes {
		t.Fatalf("id %q", hs.TaskID)
	}
	if hs.EnvType != Name || !hs.OpenQuery || hs.Evaluator != agentevolver.EvaluatorEnv || hs.Query == "" {
		t.Fatalf("task fields %+v", hs)
	}
	seed := e.tasks[seedID]
	if hs.Metadata["seed_task_id"] != seedID || hs.Metadata["split"] != seed.info.Split || hs.Metadata["synthesis"] != "hindsight" {
		t.Fatalf("metadata %v", hs.Metadata)
	}
	// A task file round trip loses nothing the environment needs.
	data, err := json.Marshal(hs)
	if err != nil {
		t.Fatal(err)
	}
	var loaded agentevolver.Task
	if err := json.Unmarshal(data, &loaded); err != nil {
		t.Fatal(err)
	}
	id := loaded.TaskID
	info, err := e.Task(id)
	if err != nil {
		t.Fatalf("Task(%s): %v", id, err)
	}
	if info.ID != id || info.Instruction != hs.Query || info.Split != seed.info.Split {
		t.Fatalf("Task(%s) = %+v", id, info)
	}
	in, err := e.New(ctx, id, "init", nil)
	if err != nil {
		t.Fatal(err)
	}
	init, err := in.InitState(ctx, nil)
	if err != nil || init.State[1].Content != hs.Query || init.Info["task_id"] != id {
		t.Fatalf("InitState = %+v, %v", init, err)
	}

	gt := gtActions(loaded.GroundTruth)
	if s, d := scoreActions(t, e, id, gt); s != 1 || d != 1 {
		t.Fatalf("%s: ground truth scores %v sparse, %v dense\n%s", id, s, d, loaded.GroundTruth)
	}
	answer := e.mustTask(t, id).answer
	if s, d := scoreActions(t, e, id, withFinish(actions, answer)); s != 1 || d != 1 {
		t.Fatalf("%s: the source episode scores %v sparse, %v dense", id, s, d)
	}
	if s, d := scoreActions(t, e, id, gtActions("task.finish")); s != 0 || d >= 1 {
		t.Fatalf("%s: doing nothing scores %v sparse, %v dense", id, s, d)
	}
	solved, err := e.Solve(id)
	if err != nil || !reflect.DeepEqual(solved, gt) {
		t.Fatalf("Solve(%s) = %v, %v; want the ground truth", id, contents(solved), err)
	}
	demo, err := e.Demonstrate(ctx, id)
	if err != nil || !reflect.DeepEqual(demo, gt) {
		t.Fatalf("Demonstrate(%s) = %v, %v", id, contents(demo), err)
	}
	verdicts, err := e.JudgeSteps(ctx, id, gt)
	if err != nil || !equalBools(verdicts, trues(len(gt))) {
		t.Fatalf("JudgeSteps(ground truth) = %v, %v", verdicts, err)
	}
	md, err := e.TaskMetadata(ctx, id)
	if err != nil || md.Difficulty != info.Level || md.Difficulty < 1 || md.Difficulty > NumLevels {
		t.Fatalf("TaskMetadata = %+v, %v (level %d)", md, err, info.Level)
	}
	// Synthesis is idempotent, and a hindsight seed stands for its seed.
	for _, from := range []string{seedID, id} {
		again, err := e.SynthesizeTask(ctx, from, gt)
		if err != nil || again.TaskID != id || again.GroundTruth != loaded.GroundTruth {
			t.Fatalf("SynthesizeTask(%s, ground truth) = %q, %v; want %q", clipID(from), again.TaskID, err, id)
		}
	}
}

func (e *Env) mustTask(t *testing.T, id string) *task {
	t.Helper()
	tk, err := e.task(id)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestSynthesizeCases synthesises from hand-made episodes on one world.
func TestSynthesizeCases(t *testing.T) {
	e := newEnv(t, Config{})
	const seedID = "tw-train-0001"
	w := e.tasks[seedID].world
	c0 := w.contacts[0]
	ev := w.events[0]
	var file string
	for _, f := range fileNames() {
		if _, ok := w.files[f]; ok {
			file = f
			break
		}
	}
	next := strconv.Itoa(w.nextEventID)
	prefix := HindsightPrefix + seedID + ":"
	tools := func(lines ...string) []agentevolver.Message {
		out := make([]agentevolver.Message, len(lines))
		for i, l := range lines {
			out[i] = assistant(tool(l))
			if strings.HasPrefix(l, "raw:") {
				out[i] = assistant(strings.TrimPrefix(l, "raw:"))
			}
		}
		return out
	}
	cases := []struct {
		name    string
		actions []agentevolver.Message
		query   string
		calls   string // the id after the seed
		gt      string
		level   int
		err     error
	}{
		{name: "one write", actions: tools(`files.write name=zz.txt text="buy milk"`),
			query: `Write "buy milk" to zz.txt.`, calls: "files.write,zz.txt,buy%20milk",
			gt: "files.write name=zz.txt text=\"buy milk\"\ntask.finish", level: 1},
		{name: "overwrite counts once", actions: tools("files.write name=zz.txt text=a", "files.write name=ZZ.txt text=b"),
			query: `Write "b" to zz.txt.`, calls: "files.write,zz.txt,b", gt: "files.write name=zz.txt text=b\ntask.finish", level: 1},
		{name: "noise is ignored", actions: tools("raw:hello", "files.read name=nope.txt", "contacts.fly", "raw:```tool\nbank.pay to=Ann\n```",
			"contacts.add name=Zed phone=555-0001", "contacts.list", "bank.pay to=zed amount=5", "bank.pay to=Zed amount=5.0"),
			query: "Add contact Zed with phone 555-0001. Pay Zed 5 dollars twice.",
			calls: "contacts.add,Zed,555-0001;bank.pay,zed,5;bank.pay,Zed,5",
			gt:    "contacts.add name=Zed phone=555-0001\nbank.pay to=zed amount=5\nbank.pay to=Zed amount=5\ntask.finish", level: 2},
		{name: "JSON calls", actions: []agentevolver.Message{assistant(`{"name": "files_write", "arguments": {"name": "zz.txt", "text": "x"}}`)},
			query: `Write "x" to zz.txt.`, calls: "files.write,zz.txt,x", gt: "files.write name=zz.txt text=x\ntask.finish", level: 1},
		{name: "schedule", actions: tools(fmt.Sprintf("calendar.add title=\"team sync\" day=sunday with=%s", c0.name)),
			query: fmt.Sprintf(`Schedule "team sync" with %s on Sun.`, c0.name),
			calls: fmt.Sprintf("calendar.add,team%%20sync,Sun,%s", c0.name), level: 1},
		{name: "cancel needs a lookup", actions: tools("calendar.cancel id=" + strconv.Itoa(ev.id)),
			query: fmt.Sprintf("Cancel my %s %s with %s.", ev.day, ev.title, ev.with),
			calls: "calendar.cancel," + strconv.Itoa(ev.id),
			gt:    fmt.Sprintf("calendar.list day=%s\ncalendar.cancel id=%d\ntask.finish", ev.day, ev.id), level: 3},
		{name: "delete", actions: tools("files.delete name=" + file),
			query: "Delete the file " + file + ".", calls: "files.delete," + file, level: 1},
		{name: "question from a read", actions: tools("contacts.list", "contacts.find name="+strings.ToUpper(c0.name)),
			query: fmt.Sprintf("What is %s's phone number?", c0.name),
			calls: "contacts.find," + strings.ToUpper(c0.name),
			gt:    fmt.Sprintf("contacts.find name=%s\ntask.finish answer=%s", strings.ToUpper(c0.name), c0.phone), level: 1},
		{name: "changes then a question", actions: tools("bank.balance", "files.write name=zz.txt text=x", "contacts.add name=Zed phone=555-0001"),
			query: `Write "x" to zz.txt. Add contact Zed with phone 555-0001. What is my bank balance?`,
			calls: "files.write,zz.txt,x;contacts.add,Zed,555-0001;bank.balance",
			gt:    fmt.Sprintf("files.write name=zz.txt text=x\ncontacts.add name=Zed phone=555-0001\nbank.balance\ntask.finish answer=%d", w.balance), level: 2},
		{name: "a value that changed is no question", actions: tools("files.read name="+file, `files.write name=`+file+` text="something else"`),
			query: `Write "something else" to ` + file + ".", calls: "files.write," + file + ",something%20else", level: 1},
		{name: "the balance after a payment is no question", actions: tools("contacts.add name=Zed phone=555-0001", "bank.pay to=Zed amount=5", "bank.balance"),
			query: "Add contact Zed with phone 555-0001. Pay Zed 5 dollars.", calls: "contacts.add,Zed,555-0001;bank.pay,Zed,5", level: 2},
		{name: "finish picks the read it answered", actions: tools("bank.balance", "contacts.find name="+c0.name, "task.finish answer="+strconv.Itoa(w.balance)),
			query: "What is my bank balance?", calls: "bank.balance", level: 1},
		{name: "after finish nothing counts", actions: tools("files.write name=zz.txt text=a", "task.finish", "files.write name=yy.txt text=b"),
			query: `Write "a" to zz.txt.`, calls: "files.write,zz.txt,a", level: 1},
		{name: "finish without an answer asks nothing", actions: tools("contacts.find name="+c0.name, "task.finish"),
			err: envservice.ErrNothingAchieved},
		{name: "add then cancel is nothing", actions: tools("calendar.add title=gym day=Mon with=Zed", "calendar.cancel id="+next),
			err: envservice.ErrNothingAchieved},
		{name: "listing is nothing", actions: tools("contacts.list", "files.list", "calendar.list day=Wed"),
			err: envservice.ErrNothingAchieved},
		{name: "no actions", err: envservice.ErrNothingAchieved},
		{name: "too many actions", actions: make([]agentevolver.Message, maxSynthesisActions+1), err: ErrHindsightTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs, err := e.SynthesizeTask(context.Background(), seedID, tc.actions)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if hs.Query != tc.query {
				t.Errorf("query %q\nwant  %q", hs.Query, tc.query)
			}
			if hs.TaskID != prefix+tc.calls {
				t.Errorf("id %q\nwant %q", hs.TaskID, prefix+tc.calls)
			}
			if tc.gt != "" && hs.GroundTruth != tc.gt {
				t.Errorf("ground truth\n%s\nwant\n%s", hs.GroundTruth, tc.gt)
			}
			if info, _ := e.Task(hs.TaskID); info.Level != tc.level {
				t.Errorf("level %d, want %d", info.Level, tc.level)
			}
			checkHindsight(t, e, seedID, tc.actions, hs)
		})
	}
}

// TestSynthesizeFromExpert: the hindsight task of an expert solution is
// solved by that solution, for tasks of every level and split.
func TestSynthesizeFromExpert(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	var ids []string
	for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
		ids = append(ids, e.splits[split][:30]...)
	}
	levels := map[int]int{}
	for _, id := range ids {
		expert, err := e.Solve(id)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := e.SynthesizeTask(ctx, id, expert)
		if err != nil {
			t.Fatalf("%s (%s): %v", id, e.tasks[id].info.Instruction, err)
		}
		checkHindsight(t, e, id, expert, hs)
		if s, d := scoreActions(t, e, hs.TaskID, expert); s != 1 || d != 1 {
			t.Fatalf("%s: the seed's expert solution scores %v, %v on %s", id, s, d, hs.TaskID)
		}
		info, _ := e.Task(hs.TaskID)
		levels[info.Level]++
		if info.Split != e.tasks[id].info.Split {
			t.Fatalf("split %s of %s", info.Split, id)
		}
	}
	for level := 1; level <= NumLevels; level++ {
		if levels[level] == 0 {
			t.Errorf("no hindsight task of level %d: %v", level, levels)
		}
	}
}

// TestSynthesizeFromRandomWalk: walks of the environment's own random
// actions become tasks their ground truth (and the walk) solve.
func TestSynthesizeFromRandomWalk(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	made, nothing := 0, 0
	for _, id := range e.splits[SplitTrain][:8] {
		for seed := int64(1); seed <= 3; seed++ {
			for _, n := range []int{1, 4, 12} {
				walk := randomWalk(t, e, id, seed, n)
				hs, err := e.SynthesizeTask(ctx, id, walk)
				if errors.Is(err, envservice.ErrNothingAchieved) {
					nothing++
					continue
				}
				if err != nil {
					t.Fatalf("%s seed %d n %d: %v", id, seed, n, err)
				}
				made++
				checkHindsight(t, e, id, walk, hs)
			}
		}
	}
	if made < 3*nothing || made == 0 {
		t.Errorf("%d tasks made, %d walks achieved nothing", made, nothing)
	}
}

// randomWalk draws n actions with RandomAction, checking each on a live
// instance: it succeeds and does not end the episode.
func randomWalk(t *testing.T, e *Env, id string, seed int64, n int) []agentevolver.Message {
	t.Helper()
	ctx := context.Background()
	in, err := e.newInstance(ctx, id, "walk", nil)
	if err != nil {
		t.Fatal(err)
	}
	var walk []agentevolver.Message
	for range n {
		a, err := e.RandomAction(ctx, id, walk, seed)
		if err != nil {
			t.Fatal(err)
		}
		res, err := in.Step(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		if obs := res.State[0].Content; strings.HasPrefix(obs, "error:") || res.IsTerminated {
			t.Fatalf("%s seed %d step %d: %s -> %q (terminated %v)", id, seed, len(walk), a.Content, obs, res.IsTerminated)
		}
		walk = append(walk, a)
	}
	return walk
}

func TestRandomActionDeterministicAndValid(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	apis := map[string]bool{}
	for _, id := range append(append([]string(nil), e.splits[SplitTrain][:6]...), e.splits[SplitVal][:3]...) {
		var walks [][]agentevolver.Message
		for seed := int64(0); seed < 3; seed++ {
			walk := randomWalk(t, e, id, seed, 30)
			if again := randomWalk(t, e, id, seed, 30); !reflect.DeepEqual(walk, again) {
				t.Fatalf("%s seed %d: two walks differ", id, seed)
			}
			for _, a := range walk {
				c, err := ParseAction(a)
				if err != nil || c.App == "task" {
					t.Fatalf("action %q: %v", a.Content, err)
				}
				apis[c.App+"."+c.API] = true
			}
			walks = append(walks, walk)
		}
		if reflect.DeepEqual(walks[0], walks[1]) || reflect.DeepEqual(walks[1], walks[2]) {
			t.Errorf("%s: different seeds give the same walk", id)
		}
		// A history with other actions (a policy's, a malformed one) is
		// replayed as the episode ran, and the next action is still valid.
		mixed := []agentevolver.Message{assistant("no call"), assistant(tool("files.write name=zz.txt text=hi")), walks[0][0]}
		a, err := e.RandomAction(ctx, id, mixed, 9)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := e.newInstance(ctx, id, "mixed", nil)
		for _, m := range mixed {
			in.apply(m)
		}
		if out := in.apply(a); strings.HasPrefix(out.observation, "error:") {
			t.Fatalf("after a mixed history: %s -> %s", a.Content, out.observation)
		}
	}
	if len(apis) != 12 {
		t.Errorf("the walks used %d APIs, want all 12 but task.finish: %v", len(apis), apis)
	}
}

func TestRandomActionErrors(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	ctx := context.Background()
	if _, err := e.RandomAction(ctx, "tw-train-9999", nil, 1); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown task: %v", err)
	}
	ended := []agentevolver.Message{assistant(tool("task.finish"))}
	if _, err := e.RandomAction(ctx, "tw-train-0000", ended, 1); !errors.Is(err, ErrEpisodeOver) {
		t.Errorf("ended episode: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.RandomAction(cancelled, "tw-train-0000", nil, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := e.SynthesizeTask(cancelled, "tw-train-0000", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled synthesis: %v", err)
	}
	if _, err := e.SynthesizeTask(ctx, "tw-train-9999", nil); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown seed: %v", err)
	}
	// A world at its size limits still gets valid actions.
	w := e.tasks["tw-train-0000"].world.clone()
	for len(w.contacts) < maxEntries {
		w.contacts = append(w.contacts, contact{name: fmt.Sprintf("P%c%c", 'a'+len(w.contacts)%26, 'a'+len(w.contacts)/26), phone: "555-0000"})
	}
	w.balance = 0
	for i := range 200 {
		c := e.randomCall(w, classicPools(), newRNG(uint64(i)))
		a, vals, err := e.cat.bind(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.exec(w.clone(), vals); err != nil {
			t.Fatalf("%s on a full world: %v", c, err)
		}
	}
}

// TestHindsightIDRejected: ids are untrusted; every malformed one is
// refused with an error that says why, on every path that takes an id.
func TestHindsightIDRejected(t *testing.T) {
	e := newEnv(t, Config{})
	const seedID = "tw-train-0001"
	w := e.tasks[seedID].world
	c0 := w.contacts[0].name
	p := HindsightPrefix + seedID + ":"
	many := strings.Repeat("files.write,zz.txt,a;", MaxHindsightCalls) + "files.write,zz.txt,b"
	cases := []struct {
		name, id, want string
		badID          bool // matches ErrBadHindsightID
	}{
		{"no seed", HindsightPrefix, "SEED:CALLS", true},
		{"no calls separator", HindsightPrefix + seedID, "SEED:CALLS", true},
		{"unknown seed", HindsightPrefix + "tw-nope-0001:files.write,zz.txt,a", "hindsight seed", false},
		{"hindsight seed", HindsightPrefix + p + "files.write,zz.txt,a", "hindsight seed", false},
		{"empty calls", p, "no calls", true},
		{"unknown API", p + "files.fly,a", "not an API", true},
		{"finish", p + "task.finish", "not an API", true},
		{"upper-case API", p + "Files.write,zz.txt,a", "not an API", true},
		{"missing value", p + "files.write,zz.txt", "takes 2 values, got 1", true},
		{"extra value", p + "bank.balance,1", "takes 0 values, got 1", true},
		{"short escape", p + "files.write,zz.txt,a%2", "escape", true},
		{"lower-case escape", p + "files.write,zz.txt,a%2c", "escape", true},
		{"needless escape", p + "files.write,zz.txt,%41", "needs no escape", true},
		{"raw space", p + "files.write,zz.txt,a b", "must be escaped", true},
		{"bad value", p + "bank.pay,Ann,lots", "whole number", true},
		{"bad file name", p + "files.write,a%2Fb,x", "file name", true},
		{"fails on the world", p + "bank.pay,Nobody,5", "fails on the world", true},
		{"not canonical", p + "calendar.add,gym,Monday," + c0, "not in the form", true},
		{"read not last", p + "contacts.find," + c0 + ";files.write,zz.txt,a", "not in the form", true},
		{"removable call", p + "files.write,zz.txt,a;files.write,zz.txt,b", "not in the form", true},
		{"nothing to ask", p + "contacts.list", "achieve nothing", true},
		{"too many calls", p + many, "limit is 32", true},
		{"too long", p + "files.write,zz.txt," + strings.Repeat("a", MaxHindsightIDBytes), "limit is 4096", true},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Task(tc.id)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Task(%q) = %v, want an error containing %q", clipID(tc.id), err, tc.want)
			}
			if !errors.Is(err, ErrUnknownTask) || !errors.Is(err, envclient.ErrBadRequest) || errors.Is(err, ErrBadHindsightID) != tc.badID {
				t.Fatalf("error %v does not match ErrUnknownTask and ErrBadRequest (bad id: %v)", err, tc.badID)
			}
			if _, err := e.New(ctx, tc.id, "x", nil); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("New: %v", err)
			}
			if _, err := e.TaskMetadata(ctx, tc.id); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("TaskMetadata: %v", err)
			}
			if _, err := e.JudgeSteps(ctx, tc.id, nil); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("JudgeSteps: %v", err)
			}
			if _, err := e.SynthesizeTask(ctx, tc.id, nil); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("SynthesizeTask: %v", err)
			}
		})
	}
}

func FuzzHindsightID(f *testing.F) {
	e, err := New(Config{TrainSize: 6, ValSize: 1, TestSize: 1})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	for i, id := range e.splits[SplitTrain] {
		expert, _ := e.Solve(id)
		if hs, err := e.SynthesizeTask(ctx, id, expert); err == nil {
			f.Add(hs.TaskID)
		}
		var walk []agentevolver.Message
		for range 6 {
			a, err := e.RandomAction(ctx, id, walk, int64(i))
			if err != nil {
				f.Fatal(err)
			}
			walk = append(walk, a)
		}
		if hs, err := e.SynthesizeTask(ctx, id, walk); err == nil {
			f.Add(hs.TaskID)
		}
	}
	f.Add("hs1:tw-train-0001:files.write,zz.txt,a%20b")
	f.Add("hs1:tw-train-0001:calendar.cancel,1;bank.balance")
	f.Add("hs1:tw-train-0001:files.write,zz.txt,%E2%9C%93")
	f.Add("hs1::")
	f.Add("tw-train-0001")
	f.Fuzz(func(t *testing.T, id string) {
		tk, err := e.task(id)
		if err != nil {
			if !errors.Is(err, ErrUnknownTask) || !errors.Is(err, envclient.ErrBadRequest) {
				t.Fatalf("error %v does not match ErrUnknownTask", err)
			}
			return
		}
		if tk.info.ID != id || len(tk.solution) == 0 {
			t.Fatalf("task %+v for %q", tk.info, id)
		}
		if !strings.HasPrefix(id, HindsightPrefix) {
			return
		}
		// An accepted id is a task its solution solves and whose synthesis
		// gives the id back.
		actions, err := e.Solve(id)
		if err != nil {
			t.Fatal(err)
		}
		in, err := e.newInstance(ctx, id, "fuzz", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			if out := in.apply(a); strings.HasPrefix(out.observation, "error:") {
				t.Fatalf("%s: expert action %s: %s", id, a.Content, out.observation)
			}
		}
		if s := in.score(true); s != 1 {
			t.Fatalf("%s: expert scores %v", id, s)
		}
		hs, err := e.SynthesizeTask(ctx, id, actions)
		if err != nil || hs.TaskID != id {
			t.Fatalf("resynthesis of %q = %q, %v", id, hs.TaskID, err)
		}
	})
}

// TestHindsightConcurrent: synthesis, rebuilding and playing hindsight
// tasks are safe for concurrent use (run with -race).
func TestHindsightConcurrent(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 8, ValSize: 1, TestSize: 1})
	ctx := context.Background()
	expert, _ := e.Solve("tw-train-0002")
	hs, err := e.SynthesizeTask(ctx, "tw-train-0002", expert)
	if err != nil {
		t.Fatal(err)
	}
	gt := gtActions(hs.GroundTruth)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			errs <- func() error {
				walk := []agentevolver.Message{}
				for range 4 {
					a, err := e.RandomAction(ctx, hs.TaskID, walk, int64(i))
					if err != nil {
						return err
					}
					walk = append(walk, a)
				}
				if _, err := e.SynthesizeTask(ctx, hs.TaskID, walk); err != nil && !errors.Is(err, envservice.ErrNothingAchieved) {
					return err
				}
				in, err := e.New(ctx, hs.TaskID, fmt.Sprint(i), map[string]any{"sparse": true})
				if err != nil {
					return err
				}
				var res envclient.StepResult
				for _, a := range gt {
					if res, err = in.Step(ctx, a, nil); err != nil {
						return err
					}
				}
				if res.Reward != 1 {
					return fmt.Errorf("reward %v", res.Reward)
				}
				return nil
			}()
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
