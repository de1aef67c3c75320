package toolworld

import (
	"strconv"
	"strings"
)

// maxEntries bounds every collection of a world so that no sequence of
// actions can grow an instance without limit.
const maxEntries = 200

// weekDays returns the calendar's days in their canonical spelling.
func weekDays() [7]string { return [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"} }

type contact struct{ name, phone string }

type event struct {
	id               int
	title, day, with string
}

type payment struct {
	to     string
	amount int
}

// world is the state of the four apps in one episode.
type world struct {
	contacts    []contact
	events      []event
	nextEventID int
	files       map[string]string // lower-case name -> text
	balance     int
	payments    []payment
}

func (w *world) clone() *world {
	c := *w
	c.contacts = append([]contact(nil), w.contacts...)
	c.events = append([]event(nil), w.events...)
	c.payments = append([]payment(nil), w.payments...)
	c.files = make(map[string]string, len(w.files))
	for k, v := range w.files {
		c.files[k] = v
	}
	return &c
}

// contactIndex finds a contact by name, ignoring case; -1 when absent.
func (w *world) contactIndex(name string) int {
	for i, c := range w.contacts {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// eventsOn returns the events of a day, in id order.
func (w *world) eventsOn(day string) []event {
	var out []event
	for _, e := range w.events {
		if e.day == day {
			out = append(out, e)
		}
	}
	return out
}

// state flattens the world into the key/value form evaluation compares:
// values are normalised the way checks compare them (names ignore case,
// phones keep only digits, texts ignore case and spacing), collections
// with repeats map to counts. The balance is left out: payments determine
// it.
func (w *world) state() map[string]string {
	s := make(map[string]string, len(w.contacts)+len(w.events)+len(w.files)+len(w.payments))
	for _, c := range w.contacts {
		s["contact/"+foldName(c.name)] = digits(c.phone)
	}
	for _, e := range w.events {
		bump(s, "event/"+normText(e.title)+"|"+e.day+"|"+foldName(e.with))
	}
	for name, text := range w.files {
		s["file/"+name] = normText(text)
	}
	for _, p := range w.payments {
		bump(s, "payment/"+foldName(p.to)+"/"+strconv.Itoa(p.amount))
	}
	return s
}

func bump(s map[string]string, key string) {
	n, _ := strconv.Atoi(s[key])
	s[key] = strconv.Itoa(n + 1)
}

// foldName is the comparison form of a person's name.
func foldName(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// normText is the comparison form of a free text: lower case, single
// spaces, no surrounding quotes or final full stop.
func normText(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.Trim(s, `"'`)
	s = strings.TrimSuffix(s, ".")
	return strings.TrimSpace(s)
}

// digits keeps the decimal digits of s.
func digits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
