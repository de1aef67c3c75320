package textgame

import (
	"context"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// Profile describes the game for task synthesis: the places the tasks
// name, the items near the entrance and the verbs the parser knows best.
// It implements envservice.ProfileProvider.
func (e *Env) Profile() agentevolver.EnvProfile {
	p := agentevolver.EnvProfile{
		Name: Name,
		Background: "Colossal Cave Adventure (open-adventure, the 430-point version): the player starts at the end of " +
			"a road by a small brick building, finds a lamp and keys inside, unlocks a steel grate south of the road " +
			"and explores a cave of treasures, dwarves and a pirate, one or two-word command per turn. " +
			"The game's score grows with treasures found and brought back and with getting deep into the cave.",
		TaskPreference: agentevolver.TaskPreference{NumEntities: 2, NumOpts: 3, RelationDifficulty: 2},
	}
	places := agentevolver.Entity{Name: "location", Description: "places of the cave and its surroundings", Attrs: map[string]string{}}
	for _, pl := range []Place{PlaceBuilding, PlaceGrate, PlaceBelowGrate, PlaceDebris, PlaceBird, PlaceHallMists, PlaceNugget} {
		places.Attrs[pl.Name] = pl.Long
	}
	places.Opts = []agentevolver.Operation{
		{Name: "north, south, east, west, up, down, in, out", Description: "move in a direction (n, s, e, w, u, d)"},
		{Name: "look", Description: "describe the current place again"},
	}
	items := agentevolver.Entity{
		Name: "item", Description: "objects the player can carry or use",
		Attrs: map[string]string{
			"lamp":  "a shiny brass lamp in the building; needed in the dark parts of the cave",
			"keys":  "a set of keys in the building; they unlock the grate",
			"grate": "a steel grate in a depression south of the road, the way into the cave",
			"cage":  "a small wicker cage in the cobble crawl",
			"bird":  "a little bird in the bird chamber",
			"rod":   "a black rod with a rusty star in the debris room",
			"gold":  "a large nugget of gold, a treasure, below the Hall of Mists",
		},
		Opts: []agentevolver.Operation{
			{Name: "take ITEM", Description: "pick an item up"},
			{Name: "drop ITEM", Description: "put an item down"},
			{Name: "light lamp", Description: "switch the lamp on (also: on)"},
			{Name: "unlock grate", Description: "unlock the grate when carrying the keys"},
			{Name: "inventory", Description: "list what the player carries"},
			{Name: "score", Description: "show the score so far"},
		},
	}
	p.Entities = []agentevolver.Entity{places, items}
	return p
}

// TaskMetadata describes taskID: its difficulty grows with the length of
// the expert's solution (1 up to 3 commands, 2 up to 12, else 3). It
// implements envservice.TaskMetadataProvider.
func (e *Env) TaskMetadata(ctx context.Context, taskID string) (envservice.TaskMetadata, error) {
	if err := ctx.Err(); err != nil {
		return envservice.TaskMetadata{}, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return envservice.TaskMetadata{}, err
	}
	d := 3
	switch n := len(t.spec.solution); {
	case n <= 3:
		d = 1
	case n <= 12:
		d = 2
	}
	return envservice.TaskMetadata{Difficulty: d}, nil
}

// Corpus returns the text a policy reads and writes on the tasks of split,
// to learn a tokenizer from: the system prompt once, then for each task in
// order its first user message and, for each of the expert's commands, the
// command followed by the game's answer, captured by playing the expert's
// walk on the real game. It implements envservice.CorpusProvider; it needs
// the game, one process per task, run one after another.
func (e *Env) Corpus(ctx context.Context, split string) ([]string, error) {
	ids, ok := e.splits[split]
	if !ok {
		return nil, fmt.Errorf("textgame: corpus: %w: %q (want train, val or test)", ErrUnknownSplit, split)
	}
	docs := []string{e.system}
	for i, id := range ids {
		d, err := e.walk(ctx, id, fmt.Sprintf("corpus-%d", i))
		if err != nil {
			return nil, fmt.Errorf("textgame: corpus of %s: %w", id, err)
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// walk plays the expert's commands of taskID and returns the user message
// of the initial state, then each command and its observation.
func (e *Env) walk(ctx context.Context, taskID, instanceID string) ([]string, error) {
	in, err := e.newInstance(ctx, taskID, instanceID, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = in.Close() }()
	st, err := in.InitState(ctx, nil)
	if err != nil {
		return nil, err
	}
	docs := []string{st.State[1].Content}
	actions, err := e.Demonstrate(ctx, taskID)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		res, err := in.Step(ctx, a, nil)
		if err != nil {
			return nil, err
		}
		docs = append(docs, a.Content, res.State[0].Content)
	}
	return docs, nil
}
