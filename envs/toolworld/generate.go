package toolworld

import (
	"fmt"
	"strconv"
	"strings"
)

// personNames and the pools below are what the generator draws from; they
// are functions rather than package variables so nothing global can change.
func personNames() []string {
	return []string{"Ann", "Bob", "Cara", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivy", "Jon",
		"Kai", "Lea", "Max", "Nia", "Omar", "Pia", "Quin", "Rex", "Sam", "Tia",
		"Uma", "Vic", "Wes", "Yan", "Zoe", "Ada", "Ben", "Cleo", "Dev", "Fay",
		"Gil", "Hugo", "Ines", "Jade", "Liam", "Mia"}
}

func eventTitles() []string {
	return []string{"lunch", "coffee", "dinner", "gym", "call", "review", "demo", "tennis", "walk", "chess"}
}

func phrases() []string {
	return []string{"buy milk", "call mom", "water plants", "pay rent", "fix bike", "book flight",
		"walk dog", "read book", "clean desk", "send invoice", "pick up keys", "renew passport",
		"bake bread", "wash car", "back up laptop", "return library books"}
}

func fileNames() []string {
	return []string{"notes.txt", "todo.txt", "ideas.txt", "list.txt", "plan.txt", "draft.txt",
		"old.txt", "log.txt", "tasks.txt", "misc.txt", "temp.txt", "diary.txt"}
}

// subtask is one goal of a task: the sentence that asks for it, the calls
// that reach it, and the answer when it is a question.
type subtask struct {
	sentence string
	calls    []Call
	answer   string
	// kind names the goal generator: the task's family is its goals'
	// kinds (TaskInfo.Family).
	kind string
}

// builder grows a task's world and goals from one random stream. used
// holds the names, files, days and apps already claimed by a goal, so that
// independent goals of a level-2 task never interfere.
type builder struct {
	r     *rng
	w     *world
	used  map[string]bool
	pools valuePools
}

func call(app, api string, kv ...string) Call {
	c := Call{App: app, API: api}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Args = append(c.Args, Arg{Name: kv[i], Value: kv[i+1]})
	}
	return c
}

// baseWorld draws the starting world: 4-6 contacts, three events on three
// different days, 2-3 files and a balance of 100-400 dollars.
func (b *builder) baseWorld() {
	w := &world{files: map[string]string{}, nextEventID: 1}
	b.w = w
	names := b.r.shuffled(b.pools.people)
	for _, n := range names[:4+b.r.intn(3)] {
		w.contacts = append(w.contacts, contact{name: n, phone: b.newPhone()})
	}
	wd := weekDays()
	dayList := b.r.shuffled(wd[:])
	for _, d := range dayList[:3] {
		b.addEvent(b.r.pick(b.pools.titles), d, w.contacts[b.r.intn(len(w.contacts))].name)
	}
	for _, f := range b.r.shuffled(b.pools.files)[:2+b.r.intn(2)] {
		w.files[f] = b.r.pick(b.pools.phrases)
	}
	w.balance = 100 + 10*b.r.intn(31)
}

func (b *builder) addEvent(title, day, with string) event {
	e := event{id: b.w.nextEventID, title: title, day: day, with: with}
	b.w.nextEventID++
	b.w.events = append(b.w.events, e)
	return e
}

// newPhone returns a phone number no contact has.
func (b *builder) newPhone() string {
	for {
		p := fmt.Sprintf("555-%04d", 1000+b.r.intn(9000))
		taken := false
		for _, c := range b.w.contacts {
			taken = taken || c.phone == p
		}
		if !taken {
			return p
		}
	}
}

// claim marks a resource as used; it reports false when it already was.
func (b *builder) claim(key string) bool {
	if b.used[key] {
		return false
	}
	b.used[key] = true
	return true
}

// contact returns an existing contact not yet claimed.
func (b *builder) contact() (contact, bool) {
	for _, i := range b.r.shuffledIndexes(len(b.w.contacts)) {
		if c := b.w.contacts[i]; b.claim("person:" + c.name) {
			return c, true
		}
	}
	return contact{}, false
}

// newName returns a name that is not a contact and not yet claimed.
func (b *builder) newName() (string, bool) {
	for _, n := range b.r.shuffled(b.pools.people) {
		if b.w.contactIndex(n) < 0 && b.claim("person:"+n) {
			return n, true
		}
	}
	return "", false
}

// freeDay returns an unclaimed day without events.
func (b *builder) freeDay() (string, bool) {
	wd := weekDays()
	for _, d := range b.r.shuffled(wd[:]) {
		if len(b.w.eventsOn(d)) == 0 && b.claim("day:"+d) {
			return d, true
		}
	}
	return "", false
}

// meetingDay returns an unclaimed day with exactly one event, whose person
// is a contact.
func (b *builder) meetingDay() (event, bool) {
	wd := weekDays()
	for _, d := range b.r.shuffled(wd[:]) {
		evs := b.w.eventsOn(d)
		if len(evs) == 1 && b.w.contactIndex(evs[0].with) >= 0 && b.claim("day:"+d) {
			return evs[0], true
		}
	}
	return event{}, false
}

// existingFile returns an unclaimed file of the world.
func (b *builder) existingFile() (string, bool) {
	for _, f := range b.r.shuffled(b.pools.files) {
		if _, ok := b.w.files[f]; ok && b.claim("file:"+f) {
			return f, true
		}
	}
	return "", false
}

// newFile returns an unclaimed name of a file that does not exist, drawn
// from candidates.
func (b *builder) newFile(candidates ...string) (string, bool) {
	for _, f := range b.r.shuffled(candidates) {
		if _, ok := b.w.files[f]; !ok && b.claim("file:"+f) {
			return f, true
		}
	}
	return "", false
}

func (r *rng) shuffledIndexes(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.intn(i + 1)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}

func (b *builder) amount() int { return 5 * (1 + b.r.intn(15)) }

// goal generators. Each returns false when the world cannot host the goal;
// the caller then tries another.
type goalFunc func(b *builder) (subtask, bool)

// simpleGoals reach their goal with one call (questions: one call and the
// answer). They make level-1 tasks and, combined, level-2 tasks.
func simpleGoals() []goalFunc {
	return []goalFunc{goalAddContact, goalPay, goalSchedule, goalWriteFile, goalDeleteFile,
		goalAskPhone, goalAskBalance, goalAskMeeting, goalAskFile}
}

// chainGoals need a value from an earlier call's result: level-3 tasks.
func chainGoals() []goalFunc {
	return []goalFunc{chainSavePhone, chainPayBill, chainCancelEvent, chainSaveBalance,
		chainAddCardContact, chainSaveMemoPhone, chainAskMeetingPhone, chainScheduleMemo, chainPayMeeting}
}

func goalAddContact(b *builder) (subtask, bool) {
	name, ok := b.newName()
	if !ok {
		return subtask{}, false
	}
	phone := b.newPhone()
	return subtask{
		kind:     "add_contact",
		sentence: fmt.Sprintf("Add contact %s with phone %s.", name, phone),
		calls:    []Call{call("contacts", "add", "name", name, "phone", phone)},
	}, true
}

func goalPay(b *builder) (subtask, bool) {
	c, ok := b.contact()
	if !ok || !b.claim("bank") {
		return subtask{}, false
	}
	amt := strconv.Itoa(b.amount())
	return subtask{
		kind:     "pay",
		sentence: fmt.Sprintf("Pay %s %s dollars.", c.name, amt),
		calls:    []Call{call("bank", "pay", "to", c.name, "amount", amt)},
	}, true
}

func goalSchedule(b *builder) (subtask, bool) {
	day, ok := b.freeDay()
	if !ok {
		return subtask{}, false
	}
	c, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	title := b.r.pick(b.pools.titles)
	return subtask{
		kind:     "schedule",
		sentence: fmt.Sprintf("Schedule %s with %s on %s.", title, c.name, day),
		calls:    []Call{call("calendar", "add", "title", title, "day", day, "with", c.name)},
	}, true
}

func goalWriteFile(b *builder) (subtask, bool) {
	f, ok := b.newFile(b.pools.files...)
	if !ok {
		return subtask{}, false
	}
	text := b.r.pick(b.pools.phrases)
	return subtask{
		kind:     "write_file",
		sentence: fmt.Sprintf("Write %q to %s.", text, f),
		calls:    []Call{call("files", "write", "name", f, "text", text)},
	}, true
}

func goalDeleteFile(b *builder) (subtask, bool) {
	f, ok := b.existingFile()
	if !ok {
		return subtask{}, false
	}
	return subtask{
		kind:     "delete_file",
		sentence: fmt.Sprintf("Delete the file %s.", f),
		calls:    []Call{call("files", "delete", "name", f)},
	}, true
}

func goalAskPhone(b *builder) (subtask, bool) {
	c, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	return subtask{
		kind:     "ask_phone",
		sentence: fmt.Sprintf("What is %s's phone number?", c.name),
		calls:    []Call{call("contacts", "find", "name", c.name)},
		answer:   c.phone,
	}, true
}

func goalAskBalance(b *builder) (subtask, bool) {
	if !b.claim("bank") {
		return subtask{}, false
	}
	return subtask{
		kind:     "ask_balance",
		sentence: "What is my bank balance?",
		calls:    []Call{call("bank", "balance")},
		answer:   strconv.Itoa(b.w.balance),
	}, true
}

func goalAskMeeting(b *builder) (subtask, bool) {
	e, ok := b.meetingDay()
	if !ok {
		return subtask{}, false
	}
	return subtask{
		kind:     "ask_meeting",
		sentence: fmt.Sprintf("Who do I meet on %s?", e.day),
		calls:    []Call{call("calendar", "list", "day", e.day)},
		answer:   e.with,
	}, true
}

func goalAskFile(b *builder) (subtask, bool) {
	f, ok := b.existingFile()
	if !ok {
		return subtask{}, false
	}
	return subtask{
		kind:     "ask_file",
		sentence: fmt.Sprintf("What does %s say?", f),
		calls:    []Call{call("files", "read", "name", f)},
		answer:   b.w.files[f],
	}, true
}

func chainSavePhone(b *builder) (subtask, bool) {
	c, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	f, ok := b.newFile(strings.ToLower(c.name)+".txt", "phone.txt", "number.txt")
	if !ok {
		return subtask{}, false
	}
	return subtask{
		kind:     "chain_save_phone",
		sentence: fmt.Sprintf("Save %s's phone number to %s.", c.name, f),
		calls: []Call{call("contacts", "find", "name", c.name),
			call("files", "write", "name", f, "text", c.phone)},
	}, true
}

func chainPayBill(b *builder) (subtask, bool) {
	c, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	f, ok := b.newFile("bill.txt", "invoice.txt", "rent.txt", "due.txt", "fee.txt", "debt.txt")
	if !ok {
		return subtask{}, false
	}
	amt := strconv.Itoa(b.amount())
	b.w.files[f] = fmt.Sprintf("Pay %s %s dollars.", c.name, amt)
	return subtask{
		kind:     "chain_pay_bill",
		sentence: fmt.Sprintf("Pay the bill in %s.", f),
		calls: []Call{call("files", "read", "name", f),
			call("bank", "pay", "to", c.name, "amount", amt)},
	}, true
}

func chainCancelEvent(b *builder) (subtask, bool) {
	e, ok := b.meetingDay()
	if !ok {
		return subtask{}, false
	}
	b.claim("person:" + e.with)
	other, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	decoy := b.addEvent(b.r.pick(b.pools.titles), e.day, other.name)
	target := e
	if b.r.intn(2) == 0 {
		target = decoy
	}
	return subtask{
		kind:     "chain_cancel_event",
		sentence: fmt.Sprintf("Cancel my %s event with %s.", target.day, target.with),
		calls: []Call{call("calendar", "list", "day", target.day),
			call("calendar", "cancel", "id", strconv.Itoa(target.id))},
	}, true
}

func chainSaveBalance(b *builder) (subtask, bool) {
	f, ok := b.newFile("balance.txt", "money.txt", "bank.txt", "funds.txt", "savings.txt")
	if !ok {
		return subtask{}, false
	}
	return subtask{
		kind:     "chain_save_balance",
		sentence: fmt.Sprintf("Write my bank balance to %s.", f),
		calls: []Call{call("bank", "balance"),
			call("files", "write", "name", f, "text", strconv.Itoa(b.w.balance))},
	}, true
}

func chainAddCardContact(b *builder) (subtask, bool) {
	name, ok := b.newName()
	if !ok {
		return subtask{}, false
	}
	f, ok := b.newFile("card.txt", "new.txt", "contact.txt", "vcard.txt", "friend.txt", "intro.txt")
	if !ok {
		return subtask{}, false
	}
	phone := b.newPhone()
	b.w.files[f] = name + " " + phone
	return subtask{
		kind:     "chain_add_card_contact",
		sentence: fmt.Sprintf("Add the contact in %s.", f),
		calls: []Call{call("files", "read", "name", f),
			call("contacts", "add", "name", name, "phone", phone)},
	}, true
}

func chainSaveMemoPhone(b *builder) (subtask, bool) {
	c, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	memo, ok := b.newFile("memo.txt", "note.txt", "reminder.txt", "msg.txt", "sticky.txt")
	if !ok {
		return subtask{}, false
	}
	out, ok := b.newFile("phone.txt", "number.txt", "call.txt", "dial.txt")
	if !ok {
		return subtask{}, false
	}
	b.w.files[memo] = "Call " + c.name + "."
	return subtask{
		kind:     "chain_save_memo_phone",
		sentence: fmt.Sprintf("Save the phone number of the person in %s to %s.", memo, out),
		calls: []Call{call("files", "read", "name", memo),
			call("contacts", "find", "name", c.name),
			call("files", "write", "name", out, "text", c.phone)},
	}, true
}

func chainAskMeetingPhone(b *builder) (subtask, bool) {
	e, ok := b.meetingDay()
	if !ok {
		return subtask{}, false
	}
	c := b.w.contacts[b.w.contactIndex(e.with)]
	return subtask{
		kind:     "chain_ask_meeting_phone",
		sentence: fmt.Sprintf("What is the phone number of the person I meet on %s?", e.day),
		calls: []Call{call("calendar", "list", "day", e.day),
			call("contacts", "find", "name", c.name)},
		answer: c.phone,
	}, true
}

func chainScheduleMemo(b *builder) (subtask, bool) {
	c, ok := b.contact()
	if !ok {
		return subtask{}, false
	}
	memo, ok := b.newFile("memo.txt", "note.txt", "reminder.txt", "msg.txt", "sticky.txt")
	if !ok {
		return subtask{}, false
	}
	day, ok := b.freeDay()
	if !ok {
		return subtask{}, false
	}
	title := b.r.pick(b.pools.titles)
	b.w.files[memo] = "Meet " + c.name + "."
	return subtask{
		kind:     "chain_schedule_memo",
		sentence: fmt.Sprintf("Schedule %s on %s with the person in %s.", title, day, memo),
		calls: []Call{call("files", "read", "name", memo),
			call("calendar", "add", "title", title, "day", day, "with", c.name)},
	}, true
}

func chainPayMeeting(b *builder) (subtask, bool) {
	e, ok := b.meetingDay()
	if !ok || !b.claim("bank") {
		return subtask{}, false
	}
	amt := strconv.Itoa(b.amount())
	return subtask{
		kind:     "chain_pay_meeting",
		sentence: fmt.Sprintf("Pay %s dollars to the person I meet on %s.", amt, e.day),
		calls: []Call{call("calendar", "list", "day", e.day),
			call("bank", "pay", "to", e.with, "amount", amt)},
	}, true
}

// maxGoalTries bounds the redraws when a goal does not fit its world.
const maxGoalTries = 50

// drawGoals draws the goals of a task of the given level: one simple goal
// (level 1), two or three independent simple goals with at most one
// question (level 2), or one chained goal (level 3).
func (b *builder) drawGoals(level int) ([]subtask, bool) {
	pool, count := simpleGoals(), 1
	switch level {
	case 2:
		count = 2 + b.r.intn(2)
	case 3:
		pool = chainGoals()
	}
	var goals []subtask
	questions := 0
	for tries := 0; len(goals) < count && tries < maxGoalTries; tries++ {
		saved := b.snapshot()
		g, ok := pool[b.r.intn(len(pool))](b)
		if !ok || g.answer != "" && questions > 0 {
			b.restore(saved)
			continue
		}
		if g.answer != "" {
			questions++
		}
		goals = append(goals, g)
	}
	if len(goals) < count {
		return nil, false
	}
	// Questions go last: the instruction reads naturally and the answer is
	// given with task.finish right after the question's call.
	ordered := make([]subtask, 0, len(goals))
	for _, g := range goals {
		if g.answer == "" {
			ordered = append(ordered, g)
		}
	}
	for _, g := range goals {
		if g.answer != "" {
			ordered = append(ordered, g)
		}
	}
	return ordered, true
}

type builderState struct {
	w    *world
	used map[string]bool
}

func (b *builder) snapshot() builderState {
	used := make(map[string]bool, len(b.used))
	for k, v := range b.used {
		used[k] = v
	}
	return builderState{w: b.w.clone(), used: used}
}

func (b *builder) restore(s builderState) { b.w, b.used = s.w, s.used }
