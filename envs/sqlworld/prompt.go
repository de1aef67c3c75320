package sqlworld

import "fmt"

// schemaDoc describes the tables, as the system prompt and Info show them.
const schemaDoc = `Tables (SQLite):
countries(alpha_2 TEXT PRIMARY KEY, alpha_3 TEXT UNIQUE, numeric_code INTEGER, name TEXT, official_name TEXT, common_name TEXT) -- ISO 3166-1
subdivisions(code TEXT PRIMARY KEY, country_code TEXT REFERENCES countries(alpha_2), name TEXT, type TEXT, parent_code TEXT REFERENCES subdivisions(code)) -- ISO 3166-2, code like 'NO-03'
currencies(alpha_3 TEXT PRIMARY KEY, numeric_code INTEGER, name TEXT) -- ISO 4217
languages(alpha_3 TEXT PRIMARY KEY, alpha_2 TEXT, name TEXT, scope TEXT, type TEXT) -- ISO 639-3; scope: individual, macrolanguage, special; type: living, extinct, ancient, historical, constructed, special
`

// systemPrompt is the system message of every task.
func systemPrompt(maxRows, maxActions int) string {
	return "You answer questions about a database of ISO codes by writing SQL queries.\n" + schemaDoc +
		"\nSend exactly one block per turn. To run a query and see its result:\n" +
		"```sql\nSELECT name FROM countries WHERE alpha_2 = 'NO'\n```\n" +
		"To answer, submit the final query; its result is your answer (select only the columns the question asks for, in that order):\n" +
		"```submit\nSELECT name FROM countries WHERE alpha_2 = 'NO'\n```\n" +
		fmt.Sprintf("Only single SELECT (or WITH ... SELECT) statements run; results show at most %d rows. "+
			"You have at most %d actions.", maxRows, maxActions)
}
