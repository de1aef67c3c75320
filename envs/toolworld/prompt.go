package toolworld

import "strings"

// helper reports the listing APIs that the compact prompt leaves out: no
// task needs them, and every byte of that prompt counts.
func (a *api) helper() bool { return a.name == "list" && a.app != "calendar" }

// compactPrompt is the system prompt of Config.Compact: the syntax by
// example and, per app, every API a task needs with its argument names.
func (c *catalog) compactPrompt() string {
	var b strings.Builder
	b.WriteString("One call per turn:\n```tool\nbank.pay to=Ann amount=5\n```")
	for _, ap := range c.apps {
		var calls []string
		for _, a := range ap.apis {
			if a.helper() {
				continue
			}
			s := a.name
			for _, p := range a.params {
				if p.optional {
					s += " [" + p.name + "]"
				} else {
					s += " " + p.name
				}
			}
			calls = append(calls, s)
		}
		b.WriteString("\n" + ap.name + ": " + strings.Join(calls, ", "))
	}
	b.WriteString(" (ends the task; answer questions)")
	return b.String()
}

// fullPrompt is the default system prompt: the apps, both call syntaxes,
// the rules and the documented APIs.
func (c *catalog) fullPrompt() string {
	return "You help a user by calling the APIs of their apps: contacts, calendar, files and bank.\n" +
		"Send exactly one API call per turn, in a tool block:\n" +
		"```tool\ncontacts.find name=Ann\n```\n" +
		"Arguments are key=value pairs separated by spaces; quote values that contain spaces: " +
		"files.write name=a.txt text=\"buy milk\". " +
		"A JSON call such as {\"name\": \"contacts.find\", \"arguments\": {\"name\": \"Ann\"}} works too. " +
		"The result of each call comes back as the next message. " +
		"When the task is done, call task.finish; when it asks a question, give the answer there: " +
		"task.finish answer=\"...\".\n\n" + c.apiDoc(c.canon)
}

// apiDoc lists every API with its usage and what it does, as s shows
// them.
func (c *catalog) apiDoc(s *surface) string {
	var b strings.Builder
	b.WriteString("APIs:\n")
	for _, ap := range c.apps {
		for _, a := range ap.apis {
			b.WriteString("- " + s.usage(a) + ": " + s.doc[a] + "\n")
		}
	}
	return b.String()
}

// openAITools describes the APIs as OpenAI function tools. Function names
// use "_" for "." (contacts_find), which ParseAction accepts.
func (c *catalog) openAITools(s *surface) []map[string]any {
	var tools []map[string]any
	for _, ap := range c.apps {
		for _, a := range ap.apis {
			props := map[string]any{}
			required := []string{}
			for _, p := range a.params {
				name := s.param[a][p.name]
				props[name] = map[string]any{"type": p.kind.jsonType(), "description": p.doc}
				if !p.optional {
					required = append(required, name)
				}
			}
			tools = append(tools, map[string]any{
				"type": "function",
				"function": map[string]any{
					"name":        s.app[a.app] + "_" + s.apiName[a],
					"description": s.doc[a],
					"parameters":  map[string]any{"type": "object", "properties": props, "required": required},
				},
			})
		}
	}
	return tools
}
