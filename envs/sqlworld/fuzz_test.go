package sqlworld

import (
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// FuzzParseAction feeds untrusted assistant messages to the action parser
// and the statement check: neither may panic, an accepted action has a
// known kind and non-empty SQL, and an accepted statement is one SELECT or
// WITH statement.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{
		"```sql\nSELECT 1\n```",
		"```submit\nSELECT name FROM countries\n```",
		"text\n```SQL\nWITH x AS (SELECT 1) SELECT * FROM x;\n```\nmore",
		"```sql\nSELECT 1; DROP TABLE countries\n```",
		"```sql\nSELECT ';' -- ;\n/* ; */ FROM countries;\n```",
		"```sql\nSELECT \"a\"\"b\" FROM [x;y]\n",
		"```\n```sql\n```submit",
		"```sql\n'unterminated",
		"```sql\nPRAGMA writable_schema=1\n```",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		a, err := ParseAction(agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content})
		if err != nil {
			if _, ok := err.(*ActionError); !ok {
				t.Fatalf("error %T %v is not an *ActionError", err, err)
			}
			return
		}
		if a.Kind != KindQuery && a.Kind != KindSubmit || a.SQL == "" {
			t.Fatalf("accepted %+v", a)
		}
		back, err := ParseAction(a.Message())
		if err != nil || back != a && !strings.Contains(a.SQL, "```") {
			t.Fatalf("round trip of %+v: %+v, %v", a, back, err)
		}
		stmt, err := checkStatement(a.SQL)
		if err != nil {
			if _, ok := err.(*queryError); !ok {
				t.Fatalf("error %T %v is not a *queryError", err, err)
			}
			return
		}
		toks := tokenize(stmt)
		if len(toks) == 0 || toks[0].kind != tokWord {
			t.Fatalf("accepted %q without a leading keyword", stmt)
		}
		if k := strings.ToUpper(toks[0].text); k != "SELECT" && k != "WITH" {
			t.Fatalf("accepted %q starting with %s", stmt, k)
		}
		for _, tk := range toks {
			if tk.kind == tokSemicolon {
				t.Fatalf("accepted %q with a top-level ';'", stmt)
			}
		}
	})
}
