package agentevolver

// EnvProfile describes an environment for task synthesis (self-questioning):
// who the user is, which entities exist, what can be done with them, and what
// kind of tasks to prefer. Its JSON form is the reference's env profile
// format.
type EnvProfile struct {
	Name           string         `json:"name"`
	Background     string         `json:"background"`
	Entities       []Entity       `json:"entities"`
	TaskPreference TaskPreference `json:"task_preference"`
}

// Entity is one thing an environment exposes (an app, a database table).
type Entity struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Attrs maps attribute names to descriptions.
	Attrs map[string]string `json:"attrs"`
	// Opts are the operations available on the entity.
	Opts []Operation `json:"opts"`
}

// Operation is one operation of an Entity.
type Operation struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// TaskPreference says what synthesised tasks should look like.
type TaskPreference struct {
	NumEntities int `json:"num_entities"`
	NumOpts     int `json:"num_opts"`
	// RelationDifficulty is 1 (easy), 2 (medium) or 3 (hard).
	RelationDifficulty int `json:"relation_difficulty"`
}
