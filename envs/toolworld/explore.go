package toolworld

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

var _ envservice.RandomExplorer = (*Env)(nil)

// exploreStream separates the explorer's random streams from the
// generator's.
const exploreStream = 0x6578706c6f7265 // "explore"

// ErrEpisodeOver reports a RandomAction history that has already ended
// the episode with task.finish.
var ErrEpisodeOver = errors.New("toolworld: the history already ended the episode with task.finish")

// RandomAction implements envservice.RandomExplorer: it replays history on
// a fresh instance of taskID and returns a random call that succeeds in
// the state reached, as one tool block. It draws one of the twelve APIs
// other than task.finish uniformly, then arguments from the world: an
// existing contact, event, file or affordable amount where the API needs
// one (contacts.find, calendar.cancel, files.read, files.delete,
// bank.pay), a new name and phone (contacts.add), a day, title and contact
// (calendar.add), an existing or new file and a phrase (files.write).
// When the drawn API cannot succeed (no file to read, say) it draws again;
// after eight misses it returns bank.balance, which always succeeds. It
// never returns task.finish.
//
// The action depends only on taskID, history and seed (with len(history)
// as the step number). It returns ErrUnknownTask for an unknown task,
// ErrEpisodeOver when history contains a task.finish that ended the
// episode, and ctx's error.
func (e *Env) RandomAction(ctx context.Context, taskID string, history []agentevolver.Message, seed int64) (agentevolver.Message, error) {
	in, err := e.newInstance(ctx, taskID, "explore", nil)
	if err != nil {
		return agentevolver.Message{}, err
	}
	for _, a := range history {
		if err := ctx.Err(); err != nil {
			return agentevolver.Message{}, err
		}
		if in.finished {
			break
		}
		in.apply(a)
	}
	if in.finished {
		return agentevolver.Message{}, fmt.Errorf("%w (task %s)", ErrEpisodeOver, clip(taskID))
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(taskID))
	r := newRNG(exploreStream, uint64(seed), h.Sum64(), uint64(len(history)))
	s := e.shown(in.task)
	return s.render(e.randomCall(in.world, s.pools, r)).Message(), nil
}

// randomCall draws a call that succeeds on w, with new values from pools;
// w is not changed.
func (e *Env) randomCall(w *world, pools valuePools, r *rng) Call {
	for range 8 {
		c, ok := drawCall(w, pools, r)
		if !ok {
			continue
		}
		a, vals, err := e.cat.bind(c)
		if err != nil {
			continue
		}
		if _, err := a.exec(w.clone(), vals); err == nil {
			return c
		}
	}
	return call("bank", "balance")
}

// drawCall draws one API and its arguments from w; ok is false when the
// API has nothing to act on.
func drawCall(w *world, pools valuePools, r *rng) (Call, bool) {
	days := weekDays()
	files := make([]string, 0, len(w.files))
	for f := range w.files {
		files = append(files, f)
	}
	sort.Strings(files)
	contactName := func() (string, bool) {
		if len(w.contacts) == 0 {
			return "", false
		}
		return w.contacts[r.intn(len(w.contacts))].name, true
	}
	switch r.intn(12) {
	case 0:
		name, ok := contactName()
		return call("contacts", "find", "name", name), ok
	case 1:
		for _, n := range r.shuffled(pools.people) {
			if w.contactIndex(n) < 0 {
				return call("contacts", "add", "name", n, "phone", freshPhone(w, r)), true
			}
		}
		return Call{}, false
	case 2:
		return call("contacts", "list"), true
	case 3:
		return call("calendar", "list", "day", days[r.intn(len(days))]), true
	case 4:
		with, ok := contactName()
		if !ok {
			with = r.pick(pools.people)
		}
		return call("calendar", "add", "title", r.pick(pools.titles), "day", days[r.intn(len(days))], "with", with), true
	case 5:
		if len(w.events) == 0 {
			return Call{}, false
		}
		return call("calendar", "cancel", "id", fmt.Sprint(w.events[r.intn(len(w.events))].id)), true
	case 6:
		if len(files) == 0 {
			return Call{}, false
		}
		return call("files", "read", "name", files[r.intn(len(files))]), true
	case 7:
		name := r.pick(pools.files)
		if len(files) > 0 && r.intn(2) == 0 {
			name = files[r.intn(len(files))]
		}
		return call("files", "write", "name", name, "text", r.pick(pools.phrases)), true
	case 8:
		if len(files) == 0 {
			return Call{}, false
		}
		return call("files", "delete", "name", files[r.intn(len(files))]), true
	case 9:
		return call("files", "list"), true
	case 10:
		name, ok := contactName()
		if !ok || w.balance < 5 {
			return Call{}, false
		}
		return call("bank", "pay", "to", name, "amount", fmt.Sprint(5*(1+r.intn(min(15, w.balance/5))))), true
	case 11:
		return call("bank", "balance"), true
	}
	return Call{}, false
}

// freshPhone draws a 555 number no contact has (or, after many misses, any
// 555 number: contacts.add does not require a unique phone).
func freshPhone(w *world, r *rng) string {
	var p string
	for range 20 {
		p = fmt.Sprintf("555-%04d", 1000+r.intn(9000))
		taken := false
		for _, c := range w.contacts {
			taken = taken || c.phone == p
		}
		if !taken {
			break
		}
	}
	return p
}
