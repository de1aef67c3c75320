package toolworld

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind is the type of an API parameter; it decides how a value is checked,
// normalised and compared.
type kind int

const (
	kindName kind = iota // a person's name
	kindPhone
	kindText
	kindDay
	kindInt
	kindFile
)

// placeholder is the upper-case stand-in for a value in usage lines.
func (k kind) placeholder() string {
	switch k {
	case kindName:
		return "NAME"
	case kindPhone:
		return "PHONE"
	case kindDay:
		return "DAY"
	case kindInt:
		return "N"
	case kindFile:
		return "FILE"
	default:
		return "TEXT"
	}
}

// jsonType is the JSON-schema type of the kind.
func (k kind) jsonType() string {
	if k == kindInt {
		return "integer"
	}
	return "string"
}

const (
	maxNameLen = 40
	maxTextLen = 200
	maxAmount  = 1_000_000
)

// canonical checks a value and returns its canonical form.
func (k kind) canonical(param, v string) (string, error) {
	v = strings.TrimSpace(v)
	if !utf8.ValidString(v) {
		return "", fmt.Errorf("%s is not valid UTF-8 text", param)
	}
	switch k {
	case kindName:
		v = strings.Join(strings.Fields(v), " ")
		if v == "" || len(v) > maxNameLen || strings.IndexFunc(v, func(r rune) bool {
			return !unicode.IsLetter(r) && r != ' ' && r != '-' && r != '\'' && r != '.'
		}) >= 0 {
			return "", fmt.Errorf("%s must be a person's name of letters, at most %d bytes", param, maxNameLen)
		}
	case kindPhone:
		ok := len(v) <= 20 && len(digits(v)) >= 3 && strings.IndexFunc(v, func(r rune) bool {
			return !(r >= '0' && r <= '9' || strings.ContainsRune("-+() ", r))
		}) < 0
		if !ok {
			return "", fmt.Errorf("%s must be a phone number like 555-0142", param)
		}
	case kindText:
		if len(v) > maxTextLen {
			return "", fmt.Errorf("%s is longer than %d bytes", param, maxTextLen)
		}
	case kindDay:
		day, ok := parseDay(v)
		if !ok {
			return "", fmt.Errorf("%s must be a day: Mon, Tue, Wed, Thu, Fri, Sat or Sun", param)
		}
		v = day
	case kindInt:
		n, ok := parseWhole(v)
		if !ok || n < 1 || n > maxAmount {
			return "", fmt.Errorf("%s must be a whole number from 1 to %d", param, maxAmount)
		}
		v = strconv.Itoa(n)
	case kindFile:
		v = strings.ToLower(v)
		if v == "" || len(v) > maxNameLen || strings.IndexFunc(v, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		}) >= 0 {
			return "", fmt.Errorf("%s must be a file name like notes.txt", param)
		}
	}
	return v, nil
}

// compareKey is the form under which two canonical values count as equal.
func (k kind) compareKey(v string) string {
	switch k {
	case kindName:
		return foldName(v)
	case kindPhone:
		return digits(v)
	case kindText:
		return normText(v)
	default:
		return v
	}
}

// parseDay accepts a day's short or full name in any case.
func parseDay(v string) (string, bool) {
	l := strings.ToLower(v)
	full := [7]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	for i, d := range weekDays() {
		if l == strings.ToLower(d) || l == full[i] {
			return d, true
		}
	}
	return "", false
}

// parseWhole reads a whole number, allowing a leading $ and an integral
// decimal form such as 25.0.
func parseWhole(v string) (int, bool) {
	v = strings.TrimPrefix(v, "$")
	if n, err := strconv.Atoi(v); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f != float64(int64(f)) || f > maxAmount || f < -maxAmount {
		return 0, false
	}
	return int(f), true
}

type param struct {
	name     string
	kind     kind
	optional bool
	doc      string
}

// values are the canonical argument values of one bound call.
type values map[string]string

func (v values) int(name string) int {
	n, _ := strconv.Atoi(v[name])
	return n
}

// api is one API of an app.
type api struct {
	app, name string
	params    []param
	doc       string
	finish    bool // task.finish ends the episode
	// run performs the call on w; its error texts name APIs as s shows
	// them.
	run func(w *world, v values, s *surface) (string, error)
}

// exec performs the call on w, with error texts in canonical names: for
// replays, whose errors no agent reads.
func (a *api) exec(w *world, v values) (string, error) { return a.run(w, v, nil) }

func (a *api) fullName() string { return a.app + "." + a.name }

// usage is the API's call pattern, e.g. contacts.add name=NAME phone=PHONE.
func (a *api) usage() string {
	var b strings.Builder
	b.WriteString(a.fullName())
	for _, p := range a.params {
		b.WriteByte(' ')
		if p.optional {
			b.WriteByte('[')
		}
		b.WriteString(p.name + "=" + p.kind.placeholder())
		if p.optional {
			b.WriteByte(']')
		}
	}
	return b.String()
}

// app is one application of the world.
type app struct {
	name, doc string
	attrs     map[string]string
	apis      []*api
}

// catalog is the fixed set of apps and APIs of the world.
type catalog struct {
	apps  []*app
	byID  map[string]*api // "app.api" -> API
	canon *surface        // the catalog shown as it is
}

// bind checks a canonical call against the catalog and returns its API
// and canonical argument values; the error text is written for the agent.
func (c *catalog) bind(call Call) (*api, values, error) { return c.bindOn(c.canon, call) }

// bindOn checks a call written in surface s's names against the catalog
// and returns its (canonical) API and canonical argument values; the error
// text, written for the agent, uses s's names.
func (c *catalog) bindOn(s *surface, call Call) (*api, values, error) {
	a, ok := s.back[call.App+"."+call.API]
	if !ok {
		for _, ap := range c.apps {
			if s.app[ap.name] == call.App {
				names := make([]string, len(ap.apis))
				for i, x := range ap.apis {
					names[i] = s.apiName[x]
				}
				return nil, nil, fmt.Errorf("%s has no API %q; its APIs are %s", call.App, call.API, strings.Join(names, ", "))
			}
		}
		return nil, nil, fmt.Errorf("unknown app %q; the apps are %s", call.App, strings.Join(s.appNames(c), ", "))
	}
	for _, arg := range call.Args {
		if _, ok := s.backParam[a][arg.Name]; !ok {
			return nil, nil, fmt.Errorf("%s has no argument %q; usage: %s", s.full(a), arg.Name, s.usage(a))
		}
	}
	vals := make(values, len(a.params))
	for _, p := range a.params {
		shown := s.param[a][p.name]
		raw, ok := call.Arg(shown)
		if !ok || strings.TrimSpace(raw) == "" {
			if p.optional {
				vals[p.name] = ""
				continue
			}
			return nil, nil, fmt.Errorf("%s needs %s; usage: %s", s.full(a), shown, s.usage(a))
		}
		v, err := p.kind.canonical(shown, raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%w; usage: %s", err, s.usage(a))
		}
		vals[p.name] = v
	}
	return a, vals, nil
}

func (a *api) param(name string) *param {
	for i := range a.params {
		if a.params[i].name == name {
			return &a.params[i]
		}
	}
	return nil
}

// matchKey identifies a bound call up to the equivalences evaluation uses,
// so an agent's call can be compared with the expert's.
func (a *api) matchKey(v values) string {
	var b strings.Builder
	b.WriteString(a.fullName())
	for _, p := range a.params {
		b.WriteString("\x00" + p.kind.compareKey(v[p.name]))
	}
	return b.String()
}

// errFull reports a collection at its size limit.
var errFull = errors.New("no room left")

func newCatalog() *catalog {
	c := &catalog{apps: []*app{
		{
			name:  "contacts",
			doc:   "The user's address book.",
			attrs: map[string]string{"name": "the person's name", "phone": "phone number, like 555-0142"},
			apis: []*api{
				{name: "find", doc: "show a contact's phone number",
					params: []param{{name: "name", kind: kindName, doc: "the contact's name"}}, run: contactsFind},
				{name: "add", doc: "add a contact",
					params: []param{{name: "name", kind: kindName, doc: "the new contact's name"}, {name: "phone", kind: kindPhone, doc: "phone number"}}, run: contactsAdd},
				{name: "list", doc: "list all contact names", run: contactsList},
			},
		},
		{
			name:  "calendar",
			doc:   "The user's weekly calendar of events.",
			attrs: map[string]string{"id": "event number", "title": "what the event is", "day": "Mon to Sun", "with": "who the user meets"},
			apis: []*api{
				{name: "list", doc: "list a day's events as id: title with person",
					params: []param{{name: "day", kind: kindDay, doc: "Mon, Tue, Wed, Thu, Fri, Sat or Sun"}}, run: calendarList},
				{name: "add", doc: "add an event",
					params: []param{{name: "title", kind: kindText, doc: "what the event is, like lunch"}, {name: "day", kind: kindDay, doc: "Mon to Sun"}, {name: "with", kind: kindName, doc: "who the user meets"}}, run: calendarAdd},
				{name: "cancel", doc: "cancel an event by id",
					params: []param{{name: "id", kind: kindInt, doc: "the event's id, from calendar.list"}}, run: calendarCancel},
			},
		},
		{
			name:  "files",
			doc:   "The user's text files.",
			attrs: map[string]string{"name": "file name, like notes.txt", "text": "the file's text"},
			apis: []*api{
				{name: "read", doc: "show a file's text",
					params: []param{{name: "name", kind: kindFile, doc: "file name"}}, run: filesRead},
				{name: "write", doc: "create or overwrite a file",
					params: []param{{name: "name", kind: kindFile, doc: "file name"}, {name: "text", kind: kindText, doc: "the file's new text"}}, run: filesWrite},
				{name: "delete", doc: "delete a file",
					params: []param{{name: "name", kind: kindFile, doc: "file name"}}, run: filesDelete},
				{name: "list", doc: "list all file names", run: filesList},
			},
		},
		{
			name:  "bank",
			doc:   "The user's bank account.",
			attrs: map[string]string{"balance": "money in the account, in dollars", "payments": "payments made to contacts"},
			apis: []*api{
				{name: "balance", doc: "show the account balance", run: bankBalance},
				{name: "pay", doc: "pay a contact from the account",
					params: []param{{name: "to", kind: kindName, doc: "the contact to pay"}, {name: "amount", kind: kindInt, doc: "whole dollars"}}, run: bankPay},
			},
		},
		{
			name: "task",
			doc:  "The task itself.",
			apis: []*api{
				{name: "finish", doc: "end the task; answer questions in answer", finish: true,
					params: []param{{name: "answer", kind: kindText, optional: true, doc: "the answer, when the task asks a question"}},
					run:    func(*world, values, *surface) (string, error) { return "task finished", nil }},
			},
		},
	}}
	c.byID = make(map[string]*api)
	for _, ap := range c.apps {
		for _, a := range ap.apis {
			a.app = ap.name
			c.byID[a.fullName()] = a
		}
	}
	c.canon = canonicalSurface(c)
	return c
}

// names returns s, or the canonical surface when s is nil.
func (c *catalog) names(s *surface) *surface {
	if s == nil {
		return c.canon
	}
	return s
}

// mustContact returns the index of an existing contact or an agent-facing
// error.
func mustContact(w *world, name string, s *surface) (int, error) {
	i := w.contactIndex(name)
	if i < 0 {
		return -1, fmt.Errorf("no contact named %s; %s shows all names", name, s.ref("contacts.list"))
	}
	return i, nil
}

func contactsFind(w *world, v values, s *surface) (string, error) {
	i, err := mustContact(w, v["name"], s)
	if err != nil {
		return "", err
	}
	return w.contacts[i].name + " " + w.contacts[i].phone, nil
}

func contactsAdd(w *world, v values, s *surface) (string, error) {
	if w.contactIndex(v["name"]) >= 0 {
		return "", fmt.Errorf("%s is already a contact", v["name"])
	}
	if len(w.contacts) >= maxEntries {
		return "", fmt.Errorf("contacts: %w", errFull)
	}
	w.contacts = append(w.contacts, contact{name: v["name"], phone: v["phone"]})
	return "added " + v["name"], nil
}

func contactsList(w *world, _ values, s *surface) (string, error) {
	if len(w.contacts) == 0 {
		return "no contacts", nil
	}
	names := make([]string, len(w.contacts))
	for i, c := range w.contacts {
		names[i] = c.name
	}
	return strings.Join(names, ", "), nil
}

func calendarList(w *world, v values, s *surface) (string, error) {
	evs := w.eventsOn(v["day"])
	if len(evs) == 0 {
		return "no events on " + v["day"], nil
	}
	lines := make([]string, len(evs))
	for i, e := range evs {
		lines[i] = fmt.Sprintf("%d: %s with %s", e.id, e.title, e.with)
	}
	return strings.Join(lines, "\n"), nil
}

func calendarAdd(w *world, v values, s *surface) (string, error) {
	if len(w.events) >= maxEntries {
		return "", fmt.Errorf("calendar: %w", errFull)
	}
	if v["title"] == "" {
		return "", fmt.Errorf("title must not be empty; usage: %s", s.use("calendar.add"))
	}
	id := w.nextEventID
	w.nextEventID++
	w.events = append(w.events, event{id: id, title: v["title"], day: v["day"], with: v["with"]})
	return fmt.Sprintf("added event %d", id), nil
}

func calendarCancel(w *world, v values, s *surface) (string, error) {
	id := v.int("id")
	for i, e := range w.events {
		if e.id == id {
			w.events = append(w.events[:i:i], w.events[i+1:]...)
			return fmt.Sprintf("cancelled event %d", id), nil
		}
	}
	return "", fmt.Errorf("no event with id %d; %s shows ids", id, s.use("calendar.list"))
}

func filesRead(w *world, v values, s *surface) (string, error) {
	text, ok := w.files[v["name"]]
	if !ok {
		return "", fmt.Errorf("no file named %s; %s shows all files", v["name"], s.ref("files.list"))
	}
	return text, nil
}

func filesWrite(w *world, v values, s *surface) (string, error) {
	if v["text"] == "" {
		return "", fmt.Errorf("text must not be empty; usage: %s", s.use("files.write"))
	}
	if _, ok := w.files[v["name"]]; !ok && len(w.files) >= maxEntries {
		return "", fmt.Errorf("files: %w", errFull)
	}
	w.files[v["name"]] = v["text"]
	return "wrote " + v["name"], nil
}

func filesDelete(w *world, v values, s *surface) (string, error) {
	if _, ok := w.files[v["name"]]; !ok {
		return "", fmt.Errorf("no file named %s; %s shows all files", v["name"], s.ref("files.list"))
	}
	delete(w.files, v["name"])
	return "deleted " + v["name"], nil
}

func filesList(w *world, _ values, s *surface) (string, error) {
	if len(w.files) == 0 {
		return "no files", nil
	}
	names := make([]string, 0, len(w.files))
	for n := range w.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", "), nil
}

func bankBalance(w *world, _ values, s *surface) (string, error) {
	return fmt.Sprintf("balance %d", w.balance), nil
}

func bankPay(w *world, v values, s *surface) (string, error) {
	i, err := mustContact(w, v["to"], s)
	if err != nil {
		return "", fmt.Errorf("%w (payments go to contacts)", err)
	}
	amount := v.int("amount")
	if amount > w.balance {
		return "", fmt.Errorf("insufficient funds: the balance is %d", w.balance)
	}
	if len(w.payments) >= maxEntries {
		return "", fmt.Errorf("bank: %w", errFull)
	}
	to := w.contacts[i].name
	w.balance -= amount
	w.payments = append(w.payments, payment{to: to, amount: amount})
	return fmt.Sprintf("paid %s %d, balance %d", to, amount, w.balance), nil
}
