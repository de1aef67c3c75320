package toolworld

import (
	"fmt"
	"strings"
)

// A surface is how one world shows its apps to the agent: the names of its
// apps, APIs and arguments, the description of each API and the order of
// the tool list in the system prompt. Underneath every surface the apps
// behave the same (the catalog's canonical APIs), so tasks, checks and
// scores do not depend on it; only what the agent reads and writes does.
//
// The canonical surface shows the catalog as it is (contacts.find
// name=NAME); Config.Worlds draws a surface per world from synonyms, so
// that a policy acts well only by reading the tools it is given.
type surface struct {
	canonical bool
	app       map[string]string          // canonical app -> shown app
	apiName   map[*api]string            // shown API name (without the app)
	param     map[*api]map[string]string // canonical -> shown argument name
	doc       map[*api]string            // shown description
	order     []*api                     // tool list order in the prompt
	// back maps a shown "app.api" to its API; backParam a shown argument
	// name of an API to the canonical one.
	back      map[string]*api
	backParam map[*api]map[string]string
	// refs and usages are the shown name and usage of each canonical
	// "app.api", for error texts.
	refs, usages map[string]string
	// pools are the values the world's tasks draw from.
	pools valuePools
	// prompt is the system prompt of a varied world (empty for the
	// canonical surface, whose prompt Config chooses).
	prompt string
}

// canonicalSurface shows the catalog unchanged.
func canonicalSurface(c *catalog) *surface {
	s := &surface{canonical: true, pools: classicPools()}
	s.init(c)
	for _, ap := range c.apps {
		s.app[ap.name] = ap.name
		for _, a := range ap.apis {
			s.apiName[a] = a.name
			s.doc[a] = a.doc
			s.order = append(s.order, a)
			for _, p := range a.params {
				s.param[a][p.name] = p.name
			}
		}
	}
	s.index()
	return s
}

func (s *surface) init(c *catalog) {
	s.app = map[string]string{}
	s.apiName = map[*api]string{}
	s.param = map[*api]map[string]string{}
	s.doc = map[*api]string{}
	for _, ap := range c.apps {
		for _, a := range ap.apis {
			s.param[a] = map[string]string{}
		}
	}
}

// index fills the reverse lookups.
func (s *surface) index() {
	s.back = map[string]*api{}
	s.backParam = map[*api]map[string]string{}
	s.refs, s.usages = map[string]string{}, map[string]string{}
	for a, name := range s.apiName {
		s.back[s.app[a.app]+"."+name] = a
		s.refs[a.fullName()] = s.full(a)
		s.usages[a.fullName()] = s.usage(a)
		m := map[string]string{}
		for canon, shown := range s.param[a] {
			m[shown] = canon
		}
		s.backParam[a] = m
	}
}

// full is the shown "app.api" of a.
func (s *surface) full(a *api) string { return s.app[a.app] + "." + s.apiName[a] }

// fullID is the shown "app.api" of the canonical API id ("contacts.list").
func (s *surface) fullID(c *catalog, id string) string { return s.full(c.byID[id]) }

// ref is the shown "app.api" of the canonical API id, for an error text;
// a nil surface (a replay's) gives id itself.
func (s *surface) ref(id string) string {
	if s == nil {
		return id
	}
	return s.refs[id]
}

// use is the shown usage of the canonical API id, for an error text; a nil
// surface gives id itself.
func (s *surface) use(id string) string {
	if s == nil {
		return id
	}
	return s.usages[id]
}

// usage is a's call pattern as shown, e.g. people.lookup who=NAME.
func (s *surface) usage(a *api) string {
	var b strings.Builder
	b.WriteString(s.full(a))
	for _, p := range a.params {
		b.WriteByte(' ')
		if p.optional {
			b.WriteByte('[')
		}
		b.WriteString(s.param[a][p.name] + "=" + p.kind.placeholder())
		if p.optional {
			b.WriteByte(']')
		}
	}
	return b.String()
}

// usageID is the shown usage of the canonical API id.
func (s *surface) usageID(c *catalog, id string) string { return s.usage(c.byID[id]) }

// appNames lists the shown app names in catalog order.
func (s *surface) appNames(c *catalog) []string {
	out := make([]string, len(c.apps))
	for i, ap := range c.apps {
		out[i] = s.app[ap.name]
	}
	return out
}

// render shows a canonical call: its app, API and argument names as this
// surface names them, values unchanged.
func (s *surface) render(c Call) Call {
	if s.canonical {
		return c
	}
	id := c.App + "." + c.API
	var a *api
	for x := range s.apiName {
		if x.fullName() == id {
			a = x
			break
		}
	}
	if a == nil {
		return c
	}
	out := Call{App: s.app[a.app], API: s.apiName[a], Args: make([]Arg, len(c.Args))}
	for i, arg := range c.Args {
		name := arg.Name
		if shown, ok := s.param[a][name]; ok {
			name = shown
		}
		out.Args[i] = Arg{Name: name, Value: arg.Value}
	}
	return out
}

// rewriteHints replaces the canonical examples that ParseAction's error
// details give (contacts.find name=Ann, contacts.list) by this surface's
// calls, so that a hint never names an API the world does not have.
func (s *surface) rewriteHints(c *catalog, detail string) string {
	if s.canonical {
		return detail
	}
	find := c.byID["contacts.find"]
	example := s.full(find) + " " + s.param[find]["name"] + "=Ann"
	return strings.NewReplacer(
		"contacts.find name=Ann", example,
		"contacts.find", s.full(find),
		"contacts.list", s.fullID(c, "contacts.list"),
	).Replace(detail)
}

// variedPrompt is the system prompt of a varied world: the syntax, shown
// with this world's payment API, then every tool with its usage and
// description in the world's order.
func (s *surface) variedPrompt(c *catalog, intro string) string {
	var b strings.Builder
	if intro != "" {
		b.WriteString(intro + "\n")
	}
	pay := c.byID["bank.pay"]
	b.WriteString("One call per turn:\n```tool\n" + s.full(pay) + " " + s.param[pay]["to"] + "=Ann " + s.param[pay]["amount"] + "=5\n```\nTools:")
	for _, a := range s.order {
		b.WriteString("\n" + s.usage(a) + ": " + s.doc[a])
	}
	return b.String()
}

// surfaceChoices are the synonyms a varied world draws from, keyed by the
// canonical app, "app.api" or argument concept. Names are lower-case ASCII
// letters only: they must be identifiers, and JSON function names join
// app and API with "_". No word serves two keys, so that which synonym a
// world uses for an API or argument is told by the word alone: a policy
// reads it off the tool list without having to tell which line it is on.
// The arguments of one concept (a person's name, a day, a file) share a
// word within a world.
func surfaceChoices() map[string][]string {
	return map[string][]string{
		"contacts": {"contacts", "people", "phonebook", "addressbook", "friends", "directory", "roster", "crm"},
		"calendar": {"calendar", "agenda", "schedule", "planner", "diary", "meetings"},
		"files":    {"files", "docs", "notes", "drive", "storage", "disk", "folder"},
		"bank":     {"bank", "wallet", "money", "account", "finance", "ledger", "purse"},
		"task":     {"task", "session", "job", "chat", "agent", "episode"},

		"contacts.find":   {"find", "lookup", "search", "query", "locate"},
		"contacts.add":    {"add", "insert", "register", "enroll", "join"},
		"contacts.list":   {"everyone", "names", "members", "listall"},
		"calendar.list":   {"list", "events", "daily", "peek", "agendaof"},
		"calendar.add":    {"plan", "reserve", "arrange", "set", "slot"},
		"calendar.cancel": {"cancel", "unbook", "drop", "scrap", "annul"},
		"files.read":      {"read", "open", "cat", "fetch", "load"},
		"files.write":     {"write", "put", "store", "save", "record"},
		"files.delete":    {"delete", "rm", "trash", "erase", "remove"},
		"files.list":      {"ls", "dir", "listing", "catalog", "inventory"},
		"bank.balance":    {"balance", "funds", "total", "status", "available"},
		"bank.pay":        {"pay", "send", "transfer", "give", "wire", "remit"},
		"task.finish":     {"finish", "done", "end", "complete", "submit"},

		"person": {"name", "who", "person", "contact", "full"},
		"phone":  {"phone", "tel", "digits", "mobile", "cell"},
		"day":    {"day", "date", "weekday", "when", "on"},
		"title":  {"title", "subject", "label", "topic", "headline"},
		"with":   {"guest", "partner", "attendee", "companion", "invitee"},
		"id":     {"id", "event", "num", "ref", "key"},
		"file":   {"file", "path", "filename", "doc", "fname"},
		"text":   {"text", "content", "body", "data", "words"},
		"to":     {"payee", "recipient", "beneficiary", "dest", "target"},
		"amount": {"amount", "dollars", "sum", "value", "usd"},
		"answer": {"answer", "result", "reply", "response", "output"},
	}
}

// paramConcept names the concept of a canonical argument
// ("contacts.find.name" is a person).
func paramConcept(apiID, param string) string {
	switch apiID + "." + param {
	case "contacts.find.name", "contacts.add.name":
		return "person"
	case "files.read.name", "files.write.name", "files.delete.name":
		return "file"
	}
	return param
}

// docChoices are the descriptions a varied world draws from, per API.
// They use none of the words of surfaceChoices (a test checks), so that
// the only words of a tool list that name an API or argument are its
// names; "{answer}" stands for the finish API's argument as shown.
func docChoices() map[string][]string {
	return map[string][]string{
		"contacts.find":   {"telephone details of someone known", "how someone can be reached by telephone", "look up how someone is rung"},
		"contacts.add":    {"make a new address entry", "new entry for someone, and how they are rung", "note someone new down"},
		"contacts.list":   {"all address entries", "everybody noted down", "the whole address roll"},
		"calendar.list":   {"appointments of one chosen Mon ... Sun", "see appointments and their counts", "appointments for Mon, Tue ... or Sun, counted"},
		"calendar.add":    {"make an appointment", "make a new appointment for someone", "pencil an appointment in"},
		"calendar.cancel": {"call off an appointment by its count", "call off an appointment", "strike an appointment, given its count"},
		"files.read":      {"show the contents of a document", "print a document", "look inside a document"},
		"files.write":     {"make or overwrite a document", "make or replace a document", "fill a document afresh"},
		"files.delete":    {"throw a document away", "get rid of a document", "wipe out a document"},
		"files.list":      {"all documents", "every document there is", "documents kept so far"},
		"bank.balance":    {"cash left", "how much cash there is", "cash at hand"},
		"bank.pay":        {"hand cash over", "move cash into someone's hands", "settle up, in cash"},
		"task.finish":     {"stop working; a question's solution goes in {answer}", "wrap up (a question's solution in {answer})", "close out; any solution in {answer}"},
	}
}

// drawSurface draws the surface of one varied world from r: a synonym per
// app, API and argument (distinct where they must be), a description per
// API, the tool order and the world's value pools. The finish API's
// description names its answer argument as shown ("{answer}" in
// docChoices).
func drawSurface(c *catalog, r *rng, intro string) (*surface, error) {
	choices, docs := surfaceChoices(), docChoices()
	s := &surface{}
	s.init(c)
	usedApps := map[string]bool{}
	concepts := map[string]string{} // argument concept -> its word in this world
	for _, ap := range c.apps {
		name, ok := pickFresh(r, choices[ap.name], usedApps)
		if !ok {
			return nil, fmt.Errorf("toolworld: no app name left for %s", ap.name)
		}
		s.app[ap.name] = name
		usedAPIs := map[string]bool{}
		for _, a := range ap.apis {
			id := a.fullName()
			n, ok := pickFresh(r, choices[id], usedAPIs)
			if !ok {
				return nil, fmt.Errorf("toolworld: no API name left for %s", id)
			}
			s.apiName[a] = n
			for _, p := range a.params {
				concept := paramConcept(id, p.name)
				if _, ok := concepts[concept]; !ok {
					concepts[concept] = r.pick(choices[concept])
				}
				s.param[a][p.name] = concepts[concept]
			}
			d := r.pick(docs[id])
			if a.finish {
				d = strings.ReplaceAll(d, "{answer}", s.param[a]["answer"])
			}
			s.doc[a] = d
		}
	}
	for _, ap := range c.apps {
		s.order = append(s.order, ap.apis...)
	}
	for i := len(s.order) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		s.order[i], s.order[j] = s.order[j], s.order[i]
	}
	s.pools = drawPools(r)
	s.index()
	s.prompt = s.variedPrompt(c, intro)
	return s, nil
}

// pickFresh picks a random element of xs not in used and marks it used.
func pickFresh(r *rng, xs []string, used map[string]bool) (string, bool) {
	for _, x := range r.shuffled(xs) {
		if !used[x] {
			used[x] = true
			return x, true
		}
	}
	return "", false
}
