package sqlworld

import (
	"context"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// Demonstrate returns the expert's actions for taskID, as Solve does: run
// the reference query, then submit it; replayed on a fresh instance they
// score 1. It implements envservice.Expert.
func (e *Env) Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.Solve(taskID)
}

// TaskMetadata describes taskID: its Difficulty is 1 (one-table lookup),
// 2 (filter, aggregate or order over one table) or 3 (joins). It
// implements envservice.TaskMetadataProvider.
func (e *Env) TaskMetadata(ctx context.Context, taskID string) (envservice.TaskMetadata, error) {
	if err := ctx.Err(); err != nil {
		return envservice.TaskMetadata{}, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return envservice.TaskMetadata{}, err
	}
	return envservice.TaskMetadata{Difficulty: t.info.Difficulty}, nil
}

// Corpus returns the text a policy reads and writes on the tasks of split,
// to learn a tokenizer from: the system prompt (with the schema) once,
// then for each task in split order its question and the expert's episode:
// each action (the reference SQL in a sql block, then in a submit block)
// followed by its observation. It implements envservice.CorpusProvider.
func (e *Env) Corpus(ctx context.Context, split string) ([]string, error) {
	ids, ok := e.splits[split]
	if !ok {
		return nil, fmt.Errorf("sqlworld: corpus: %w: %q (want train, val or test)", ErrUnknownSplit, clip(split, 40))
	}
	docs := []string{e.system}
	for _, id := range ids {
		inst, err := e.newInstance(ctx, id, "corpus", nil)
		if err != nil {
			return nil, err
		}
		docs = append(docs, inst.task.info.Question)
		actions, _ := e.Solve(id)
		for _, a := range actions {
			res, err := inst.Step(ctx, a, nil)
			if err != nil {
				return nil, fmt.Errorf("sqlworld: corpus of %s: %w", id, err)
			}
			docs = append(docs, a.Content, res.State[0].Content)
		}
		_ = inst.Close()
	}
	return docs, nil
}

// Profile describes the environment for task synthesis (reference §4.2):
// one entity per table, its columns as attributes, and the two actions.
func (e *Env) Profile() agentevolver.EnvProfile {
	opts := []agentevolver.Operation{
		{Name: "query", Description: "run one SELECT statement in a ```sql block and see up to " + fmt.Sprint(e.maxRows) + " rows"},
		{Name: "submit", Description: "submit the final SELECT statement in a ```submit block; its result is the answer"},
	}
	table := func(name, desc string, attrs map[string]string) agentevolver.Entity {
		return agentevolver.Entity{
			Name:        name,
			Description: fmt.Sprintf("%s (%d rows)", desc, e.counts[name]),
			Attrs:       attrs,
			Opts:        opts,
		}
	}
	return agentevolver.EnvProfile{
		Name: Name,
		Background: "A read-only SQLite database built from Debian's iso-codes: countries (ISO 3166-1), their subdivisions (ISO 3166-2), " +
			"currencies (ISO 4217) and languages (ISO 639-3). The agent answers a question by running SELECT queries and submitting " +
			"the query whose result set is the answer.",
		Entities: []agentevolver.Entity{
			table("countries", "Countries and territories", map[string]string{
				"alpha_2": "two-letter code, primary key (NO)", "alpha_3": "three-letter code (NOR)",
				"numeric_code": "numeric code as an integer (578)", "name": "short name (Norway)",
				"official_name": "official name, may be NULL", "common_name": "common name, may be NULL",
			}),
			table("subdivisions", "Subdivisions of countries (provinces, states, regions...)", map[string]string{
				"code": "code, primary key (NO-03)", "country_code": "the country's alpha_2",
				"name": "name (Oslo)", "type": "kind of subdivision (County, Province...)",
				"parent_code": "code of the parent subdivision, may be NULL",
			}),
			table("currencies", "Currencies", map[string]string{
				"alpha_3": "three-letter code, primary key (NOK)", "numeric_code": "numeric code as an integer (578)",
				"name": "name (Norwegian Krone)",
			}),
			table("languages", "Languages", map[string]string{
				"alpha_3": "three-letter ISO 639-3 code, primary key (nor)", "alpha_2": "two-letter code, may be NULL (no)",
				"name": "name (Norwegian)", "scope": "individual, macrolanguage or special",
				"type": "living, extinct, ancient, historical, constructed or special",
			}),
		},
		TaskPreference: agentevolver.TaskPreference{NumEntities: 2, NumOpts: 2, RelationDifficulty: 2},
	}
}
