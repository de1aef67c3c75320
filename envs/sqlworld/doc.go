// Package sqlworld is a text-to-SQL environment over a real SQLite
// database: an agent answers a natural-language question about ISO codes
// (countries, their subdivisions, currencies, languages) by running SELECT
// queries and submitting the query whose result set is the answer. Rewards
// are verifiable: the submitted result is compared with the result of a
// reference query.
//
// # Database
//
// New reads Debian's iso-codes JSON files from Config.DataDir (default
// DefaultDataDir, /usr/share/iso-codes/json; a missing directory or file is
// an error matching ErrNoData that names the package) and builds, once per
// Env and entirely in memory (no file is written), four tables:
//
//	countries(alpha_2 PK, alpha_3 UNIQUE, numeric_code INTEGER, name, official_name, common_name)  -- iso_3166-1.json
//	subdivisions(code PK, country_code -> countries.alpha_2, name, type, parent_code -> subdivisions.code)  -- iso_3166-2.json
//	currencies(alpha_3 PK, numeric_code INTEGER, name)  -- iso_4217.json
//	languages(alpha_3 PK, alpha_2, name, scope, type)  -- iso_639-3.json, scope and type spelled out
//
// Foreign keys are checked once after loading. The built database is
// serialised, and each connection of the Env's pool (Config.MaxConns)
// holds its own in-memory copy of it, about 1 MB.
//
// # Episode
//
// The initial state is a system prompt (the schema and the action format)
// and the question as the user message. Each assistant message carries
// exactly one fenced block:
//
//	```sql
//	SELECT count(*) FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code WHERE c.name = 'Norway'
//	```
//
// runs a query; the observation is its result as a small text table
// ("col | col" lines, then "(N rows)"), at most Config.MaxRows rows with a
// note when there are more, each value clipped to 80 characters and the
// whole to Config.MaxObservationBytes. A block tagged submit runs the
// final query and ends the episode; its result is the answer:
//
//	```submit
//	SELECT count(*) FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code WHERE c.name = 'Norway'
//	```
//
// A malformed action (no block, several blocks, an empty one, more than
// MaxActionBytes) and a failing query (SQLite's own message, a refused
// statement, the time limit) get an observation starting with "error:"
// and the episode goes on; a submit whose query fails is not an answer.
// After Config.MaxActions actions the episode ends unanswered, whatever
// turn limit the trainer sets.
//
// # Scoring
//
// Evaluate is 1 when the submitted result equals the reference result and
// 0 otherwise (also before any submission); sparse and dense scores are the
// same, and the terminating step's reward is that score. Results are
// compared value by value after normalisation: numbers by value (5, 5.0
// and '005' are equal; other floats to 10 significant digits), text
// trimmed and lower-cased, NULL only equal to NULL. The columns must be
// those the question asks for, in its order (their names do not matter).
// Rows are compared as a set (order and duplicates ignored) unless the
// question asks for an order ("from the highest down"), then as a
// sequence.
//
// # Safety
//
// Actions are untrusted. Four independent layers keep the database
// read-only and the process safe: a statement check that accepts exactly
// one SELECT or WITH statement of at most MaxStatementBytes (a tokenizer
// that knows strings, quoted identifiers and comments); an SQLite
// authorizer on every connection that allows reading, functions (but
// load_extension and file functions) and recursive CTEs and denies every
// other action (writes, PRAGMA, ATTACH, transactions, schema changes);
// PRAGMA query_only; and per-connection limits (no attached databases,
// values of at most 1 MiB, bounded SQL length). Each query runs under
// Config.StatementTimeout, after which the driver interrupts it; results
// are read up to a row bound and observations are bounded in size.
//
// # Tasks
//
// Tasks are generated from Config.Seed out of question templates over the
// data, at three difficulties cycling 1, 2, 3 by index: 1, a lookup in
// one table ("What is the alpha-3 code of Norway?"); 2, filters,
// aggregates and ordering over one table ("List the names of the
// currencies whose code starts with 'E'.", "Which countries have a
// numeric code below 50? List their names."); 3, joins between countries
// and subdivisions, subdivisions and their parents, countries and
// currencies ("How many subdivisions does Norway have?"). Each task's
// reference answer is the result of its reference query on the database
// (instances with an empty answer or more than 50 rows are skipped).
// Splits (ids like sql-train-0042; 500/100/100 by default) never share a
// question: test is drawn first, then val, then train, skipping any
// question, or question and answer, drawn before. With iso-codes 4.15 the
// templates give about 2,600 distinct tasks in all, limited by
// difficulty 2; asking for more is an error.
//
// # Capabilities
//
// Env implements the optional capabilities ProfileProvider (Env.Profile:
// one entity per table), Expert (Env.Demonstrate: the reference query in a
// sql block, then in a submit block), CorpusProvider (Env.Corpus: the
// system prompt, and per task the question, the expert's actions and
// their observations) and TaskMetadataProvider (Env.TaskMetadata: the
// difficulty). It has no step oracle, task synthesiser or random
// explorer.
package sqlworld
