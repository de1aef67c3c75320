package sqlworld

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// maxAnswerRows bounds a task's reference answer: a template instance
// with more rows (or none) is skipped.
const maxAnswerRows = 50

// candidate is one instance of a template: a question and its reference
// query.
type candidate struct {
	template string
	question string
	sql      string
	ordered  bool
}

// template is a question pattern over the data, with its instances.
type template struct {
	name       string
	difficulty int
	candidates []candidate
}

// task is one generated task.
type task struct {
	info    TaskInfo
	sql     string
	ordered bool
	answer  *result
}

// quote writes s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// templates builds every template's instances from the data, in a
// deterministic order.
func templates(d *dataset) []*template {
	var ts []*template
	add := func(name string, difficulty int, ordered bool, f func(emit func(q, sql string))) {
		t := &template{name: name, difficulty: difficulty}
		f(func(q, sql string) {
			t.candidates = append(t.candidates, candidate{template: name, question: q, sql: sql, ordered: ordered})
		})
		ts = append(ts, t)
	}
	countryName := map[string]string{}
	for _, c := range d.countries {
		countryName[c.Alpha2] = c.Name
	}

	// Difficulty 1: one table, one row looked up by a key.
	add("country_alpha3", 1, false, func(emit func(q, sql string)) {
		for _, c := range d.countries {
			emit(fmt.Sprintf("What is the alpha-3 code of %s?", c.Name),
				"SELECT alpha_3 FROM countries WHERE name = "+quote(c.Name))
		}
	})
	add("country_by_alpha2", 1, false, func(emit func(q, sql string)) {
		for _, c := range d.countries {
			emit(fmt.Sprintf("Which country has the alpha-2 code %s? Give its name.", c.Alpha2),
				"SELECT name FROM countries WHERE alpha_2 = "+quote(c.Alpha2))
		}
	})
	add("country_numeric", 1, false, func(emit func(q, sql string)) {
		for _, c := range d.countries {
			emit(fmt.Sprintf("What is the numeric code of %s?", c.Name),
				"SELECT numeric_code FROM countries WHERE name = "+quote(c.Name))
		}
	})
	add("country_official", 1, false, func(emit func(q, sql string)) {
		for _, c := range d.countries {
			if c.OfficialName != "" {
				emit(fmt.Sprintf("What is the official name of %s?", c.Name),
					"SELECT official_name FROM countries WHERE name = "+quote(c.Name))
			}
		}
	})
	add("currency_name", 1, false, func(emit func(q, sql string)) {
		for _, c := range d.currencies {
			emit(fmt.Sprintf("What is the name of the currency with code %s?", c.Alpha3),
				"SELECT name FROM currencies WHERE alpha_3 = "+quote(c.Alpha3))
		}
	})
	add("currency_numeric", 1, false, func(emit func(q, sql string)) {
		for _, c := range d.currencies {
			emit(fmt.Sprintf("What is the numeric code of the currency %s?", c.Alpha3),
				"SELECT numeric_code FROM currencies WHERE alpha_3 = "+quote(c.Alpha3))
		}
	})
	add("language_name", 1, false, func(emit func(q, sql string)) {
		for _, l := range d.languages {
			emit(fmt.Sprintf("What is the name of the language with ISO 639-3 code %s?", l.Alpha3),
				"SELECT name FROM languages WHERE alpha_3 = "+quote(l.Alpha3))
		}
	})
	add("subdivision_name", 1, false, func(emit func(q, sql string)) {
		for _, s := range d.subdivisions {
			emit(fmt.Sprintf("What is the name of the subdivision with code %s?", s.Code),
				"SELECT name FROM subdivisions WHERE code = "+quote(s.Code))
		}
	})

	// Difficulty 2: one table, filters and aggregates.
	add("countries_count_letter", 2, false, func(emit func(q, sql string)) {
		for c := 'A'; c <= 'Z'; c++ {
			emit(fmt.Sprintf("How many countries have a name starting with the letter %c?", c),
				fmt.Sprintf("SELECT count(*) FROM countries WHERE substr(name, 1, 1) = '%c'", c))
		}
	})
	add("currencies_code_letter", 2, false, func(emit func(q, sql string)) {
		for c := 'A'; c <= 'Z'; c++ {
			emit(fmt.Sprintf("List the names of the currencies whose code starts with '%c'.", c),
				fmt.Sprintf("SELECT name FROM currencies WHERE substr(alpha_3, 1, 1) = '%c'", c))
		}
	})
	add("countries_numeric_below", 2, false, func(emit func(q, sql string)) {
		for n := 20; n <= 200; n += 10 {
			emit(fmt.Sprintf("Which countries have a numeric code below %d? List their names.", n),
				fmt.Sprintf("SELECT name FROM countries WHERE numeric_code < %d", n))
		}
	})
	add("countries_numeric_above", 2, false, func(emit func(q, sql string)) {
		for n := 700; n <= 890; n += 10 {
			emit(fmt.Sprintf("Which countries have a numeric code above %d? List their names.", n),
				fmt.Sprintf("SELECT name FROM countries WHERE numeric_code > %d", n))
		}
	})
	add("subdivisions_count_type", 2, false, func(emit func(q, sql string)) {
		for _, t := range distinct(d.subdivisions, func(s isoSubdivision) string { return s.Type }) {
			emit(fmt.Sprintf("How many subdivisions of type '%s' are there in all countries together?", t),
				"SELECT count(*) FROM subdivisions WHERE type = "+quote(t))
		}
	})
	add("languages_count_kind", 2, false, func(emit func(q, sql string)) {
		for _, l := range distinct(d.languages, func(l isoLanguage) string { return scopeName(l.Scope) + "/" + typeName(l.Type) }) {
			scope, typ, _ := strings.Cut(l, "/")
			emit(fmt.Sprintf("How many languages have the scope '%s' and the type '%s'?", scope, typ),
				fmt.Sprintf("SELECT count(*) FROM languages WHERE scope = %s AND type = %s", quote(scope), quote(typ)))
		}
	})
	add("languages_alpha2_letter", 2, false, func(emit func(q, sql string)) {
		for c := 'a'; c <= 'z'; c++ {
			emit(fmt.Sprintf("How many languages have a two-letter code starting with '%c'?", c),
				fmt.Sprintf("SELECT count(*) FROM languages WHERE substr(alpha_2, 1, 1) = '%c'", c))
		}
	})
	add("countries_official_word", 2, false, func(emit func(q, sql string)) {
		words := map[string]bool{}
		for _, c := range d.countries {
			if w, _, ok := strings.Cut(c.OfficialName, " "); ok && !strings.ContainsAny(w, "'%_") {
				words[w] = true
			}
		}
		for _, w := range sortedKeys(words) {
			emit(fmt.Sprintf("How many countries have an official name whose first word is '%s'?", w),
				fmt.Sprintf("SELECT count(*) FROM countries WHERE official_name LIKE '%s %%'", w))
		}
	})
	add("subdivisions_count_code", 2, false, func(emit func(q, sql string)) {
		for _, cc := range distinct(d.subdivisions, func(s isoSubdivision) string { return s.Code[:2] }) {
			emit(fmt.Sprintf("How many subdivisions have the country code %s?", cc),
				"SELECT count(*) FROM subdivisions WHERE country_code = "+quote(cc))
		}
	})
	add("languages_count_prefix", 2, false, func(emit func(q, sql string)) {
		for _, p := range distinct(d.languages, func(l isoLanguage) string {
			if r := []rune(l.Name); len(r) >= 2 && !strings.ContainsAny(string(r[:2]), "'%_ ") {
				return string(r[:2])
			}
			return ""
		}) {
			if p != "" {
				emit(fmt.Sprintf("How many languages have a name starting with '%s'?", p),
					fmt.Sprintf("SELECT count(*) FROM languages WHERE substr(name, 1, %d) = %s", len([]rune(p)), quote(p)))
			}
		}
	})
	add("top_numeric", 2, true, func(emit func(q, sql string)) {
		for _, tbl := range []string{"countries", "currencies"} {
			for _, dir := range []string{"highest", "lowest"} {
				for n := 2; n <= 6; n++ {
					order := "DESC"
					if dir == "lowest" {
						order = "ASC"
					}
					emit(fmt.Sprintf("List the names of the %d %s with the %s numeric codes, from the %s down.", n, tbl, dir, dir),
						fmt.Sprintf("SELECT name FROM %s ORDER BY numeric_code %s LIMIT %d", tbl, order, n))
				}
			}
		}
	})

	// Difficulty 3: joins.
	withSubs := map[string]bool{}
	for _, s := range d.subdivisions {
		withSubs[s.Code[:2]] = true
	}
	add("subdivisions_count_country", 3, false, func(emit func(q, sql string)) {
		for _, c := range d.countries {
			if withSubs[c.Alpha2] {
				emit(fmt.Sprintf("How many subdivisions does %s have?", c.Name),
					"SELECT count(*) FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code WHERE c.name = "+quote(c.Name))
			}
		}
	})
	add("subdivision_types_country", 3, false, func(emit func(q, sql string)) {
		for _, c := range d.countries {
			if withSubs[c.Alpha2] {
				emit(fmt.Sprintf("How many different subdivision types does %s have?", c.Name),
					"SELECT count(DISTINCT s.type) FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code WHERE c.name = "+quote(c.Name))
			}
		}
	})
	add("subdivisions_of_type", 3, false, func(emit func(q, sql string)) {
		for _, ct := range distinct(d.subdivisions, func(s isoSubdivision) string { return s.Code[:2] + "/" + s.Type }) {
			cc, typ, _ := strings.Cut(ct, "/")
			emit(fmt.Sprintf("List the names of the subdivisions of %s whose type is '%s'.", countryName[cc], typ),
				fmt.Sprintf("SELECT s.name FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code WHERE c.name = %s AND s.type = %s",
					quote(countryName[cc]), quote(typ)))
		}
	})
	add("country_of_subdivision", 3, false, func(emit func(q, sql string)) {
		n := map[string]int{}
		for _, s := range d.subdivisions {
			n[s.Name]++
		}
		for _, s := range d.subdivisions {
			if n[s.Name] == 1 {
				emit(fmt.Sprintf("Which country has a subdivision named '%s'? Give the country's name.", s.Name),
					"SELECT c.name FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code WHERE s.name = "+quote(s.Name))
			}
		}
	})
	add("subdivision_children", 3, false, func(emit func(q, sql string)) {
		parents := map[string]bool{}
		for _, s := range d.subdivisions {
			if s.Parent != "" {
				parents[parentCode(s.Code[:2], s.Parent)] = true
			}
		}
		for _, s := range d.subdivisions {
			if parents[s.Code] {
				emit(fmt.Sprintf("List the names of the subdivisions whose parent subdivision is %s (%s).", s.Name, countryName[s.Code[:2]]),
					fmt.Sprintf("SELECT s.name FROM subdivisions s JOIN subdivisions p ON p.code = s.parent_code JOIN countries c ON c.alpha_2 = p.country_code WHERE p.name = %s AND c.name = %s",
						quote(s.Name), quote(countryName[s.Code[:2]])))
			}
		}
	})
	add("currency_of_country_numeric", 3, false, func(emit func(q, sql string)) {
		cur := map[string]bool{}
		for _, c := range d.currencies {
			cur[c.Numeric] = true
		}
		for _, c := range d.countries {
			if cur[c.Numeric] {
				emit(fmt.Sprintf("Which currency has the same numeric code as %s? Give the currency's name.", c.Name),
					"SELECT cu.name FROM currencies cu JOIN countries c ON c.numeric_code = cu.numeric_code WHERE c.name = "+quote(c.Name))
			}
		}
	})
	return ts
}

func distinct[T any](xs []T, key func(T) string) []string {
	m := map[string]bool{}
	for _, x := range xs {
		m[key(x)] = true
	}
	return sortedKeys(m)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// generator draws tasks from the templates: per difficulty, a random
// template with instances left, then that template's next instance in a
// seeded shuffle, skipping instances whose answer is empty, longer than
// maxAnswerRows or already used.
type generator struct {
	env  *Env
	rng  *rand.Rand
	byD  map[int][]*template
	next map[*template]int
	seen map[string]bool
}

func newGenerator(e *Env, d *dataset, seed int64) *generator {
	g := &generator{
		env:  e,
		rng:  rand.New(rand.NewPCG(uint64(seed), 0x5c1_3041d)),
		byD:  map[int][]*template{},
		next: map[*template]int{},
		seen: map[string]bool{},
	}
	for _, t := range templates(d) {
		g.rng.Shuffle(len(t.candidates), func(i, j int) { t.candidates[i], t.candidates[j] = t.candidates[j], t.candidates[i] })
		g.byD[t.difficulty] = append(g.byD[t.difficulty], t)
	}
	return g
}

// draw returns a new task of difficulty d.
func (g *generator) draw(ctx context.Context, d int) (*task, error) {
	for {
		ts := g.byD[d]
		if len(ts) == 0 {
			return nil, fmt.Errorf("sqlworld: no more distinct tasks of difficulty %d; ask for fewer tasks", d)
		}
		k := g.rng.IntN(len(ts))
		t := ts[k]
		i := g.next[t]
		if i >= len(t.candidates) {
			g.byD[d] = append(ts[:k:k], ts[k+1:]...)
			continue
		}
		g.next[t] = i + 1
		c := t.candidates[i]
		res, err := g.env.query(ctx, c.sql, maxAnswerRows)
		if err != nil {
			return nil, fmt.Errorf("sqlworld: template %s: reference query %q: %w", c.template, c.sql, err)
		}
		if len(res.rows) == 0 || res.more {
			continue
		}
		sig := c.question + "\x00" + answerKey(res, c.ordered)
		if g.seen[sig] || g.seen[c.question] {
			continue
		}
		g.seen[sig], g.seen[c.question] = true, true
		return &task{
			info:    TaskInfo{Difficulty: d, Template: c.template, Question: c.question},
			sql:     c.sql,
			ordered: c.ordered,
			answer:  res,
		}, nil
	}
}
