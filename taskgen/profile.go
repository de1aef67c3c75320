package taskgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
)

// Limits of an environment profile, which is untrusted input (a file from
// anywhere, or an environment's answer): beyond them ParseProfile and
// ValidateProfile fail, nothing is truncated.
const (
	// MaxProfileBytes bounds the JSON text of a profile.
	MaxProfileBytes = 4 << 20
	// MaxProfileEntities bounds the entities of a profile.
	MaxProfileEntities = 1000
	// MaxEntityAttrs bounds the attributes of one entity.
	MaxEntityAttrs = 1000
	// MaxEntityOpts bounds the operations of one entity.
	MaxEntityOpts = 1000
	// MaxPreferenceCount bounds TaskPreference.NumEntities and NumOpts.
	MaxPreferenceCount = 1000
)

// ErrInvalidProfile reports a profile that cannot be used: malformed JSON,
// a missing or unknown field, an empty name, a relation difficulty outside
// 1..3, or a limit exceeded. Errors of ParseProfile and ValidateProfile
// wrap it.
var ErrInvalidProfile = errors.New("taskgen: invalid env profile")

// RelationDifficultyText returns the fixed description of a relation
// difficulty (1 easy, 2 medium, 3 hard) that the reference renders into its
// prompts, word for word, and false for any other level.
func RelationDifficultyText(level int) (string, bool) {
	switch level {
	case 1:
		return "Easy: Involves only one entity or one attribute. " +
			"No cross-entity or cross-attribute dependencies. ", true
	case 2:
		return "Medium: Involves multiple entities or attributes, " +
			"but operations are independent of each other. " +
			"No prerequisite conditions or sequential dependencies.", true
	case 3:
		return "Hard: Involves multiple entities or attributes, " +
			"and operations require prior condition checks or " +
			"depend on the results of previous steps. " +
			"Requires reasoning and decision-making.", true
	}
	return "", false
}

// difficultyText is RelationDifficultyText with a visible placeholder for
// a level that ValidateProfile would reject (the reference cannot build
// such a profile at all).
func difficultyText(level int) string {
	if s, ok := RelationDifficultyText(level); ok {
		return s
	}
	return "unknown (" + strconv.Itoa(level) + ")"
}

// Instruction renders p as the markdown environment description of the
// reference's get_instruction: an overview (the user's name and
// background), one section per entity (description, attributes,
// operations) and the task preferences. It contains no role-setting for an
// LLM, so it can be inserted into any larger prompt.
//
// The output is deterministic: attributes are listed by name in byte order
// (the reference lists them in its dict's insertion order, the order of the
// JSON file, which a Go map does not keep); entities and operations keep
// their order. A relation difficulty outside 1..3 renders as "unknown (N)";
// validate the profile first (ValidateProfile) to rule that out.
func Instruction(p agentevolver.EnvProfile) string {
	var parts []string
	parts = append(parts, "### Environment Overview")
	parts = append(parts, "- **User Name**: "+p.Name+"\n- **User Background**: "+p.Background)
	parts = append(parts, "\n### Entities in the Environment")
	for _, e := range p.Entities {
		parts = append(parts, "#### Entity: "+e.Name)
		parts = append(parts, "- Description: "+e.Description)
		parts = append(parts, "- Attributes:")
		for _, k := range sortedKeys(e.Attrs) {
			parts = append(parts, "  - **"+k+"**: "+e.Attrs[k])
		}
		parts = append(parts, "- Available Operations:")
		for _, o := range e.Opts {
			parts = append(parts, "  - **"+o.Name+"**: "+o.Description)
		}
		parts = append(parts, "") // a blank line between entities
	}
	parts = append(parts, "### Task Preferences")
	parts = append(parts, preferenceLines(p.TaskPreference)...)
	return strings.Join(parts, "\n")
}

// PreferenceInstruction renders only the task preferences of p, then
// "**Rubrics**:" and one line per rubric, then "You are required to follow
// these preferences strictly." and a final newline: the reference's
// get_task_preference_instruction, which the summarisation prompt uses as
// its task requirements. The reference registers rubrics on the profile in
// code only; here they are the caller's to pass.
func PreferenceInstruction(p agentevolver.EnvProfile, rubrics []string) string {
	parts := preferenceLines(p.TaskPreference)
	parts = append(parts, "", "**Rubrics**:")
	parts = append(parts, rubrics...)
	parts = append(parts, "You are required to follow these preferences strictly.", "")
	return strings.Join(parts, "\n")
}

func preferenceLines(tp agentevolver.TaskPreference) []string {
	return []string{
		"The task should involve the following characteristics:",
		"- **Average number of entities involved**: " + strconv.Itoa(tp.NumEntities),
		"- **Average number of operations involved**: " + strconv.Itoa(tp.NumOpts),
		"- **Relation difficulty**: " + difficultyText(tp.RelationDifficulty),
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The wire form of a profile. Pointers tell a missing (or null) string or
// number from an empty one, as the reference's from_json fails on a
// missing key; lists and maps may be missing or null, which Go's own
// encoding of an empty slice or map produces.
type profileJSON struct {
	Name           *string         `json:"name"`
	Background     *string         `json:"background"`
	Entities       []entityJSON    `json:"entities"`
	TaskPreference *preferenceJSON `json:"task_preference"`
}

type entityJSON struct {
	Name        *string           `json:"name"`
	Description *string           `json:"description"`
	Attrs       map[string]string `json:"attrs"`
	Opts        []operationJSON   `json:"opts"`
}

type operationJSON struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

type preferenceJSON struct {
	NumEntities        *int `json:"num_entities"`
	NumOpts            *int `json:"num_opts"`
	RelationDifficulty *int `json:"relation_difficulty"`
}

// ParseProfile decodes the reference's env profile JSON (§4.2) and checks
// it with ValidateProfile. Errors wrap ErrInvalidProfile.
//
// It differs from the reference's from_json on purpose, because a profile
// is usually written by hand and a typo must not pass silently:
//   - data longer than MaxProfileBytes is refused before decoding;
//   - unknown fields are rejected (the reference ignores them), so that a
//     misspelt "relation_dificulty" or "atrs" is an error, not a default;
//   - every string and number of the format is required, as in the
//     reference, which fails on a missing key, and null counts as missing;
//     the lists and maps ("entities", "attrs", "opts") may be missing or
//     null, meaning empty (the reference fails on a missing one; Go's
//     encoding of an empty slice is null, and with unknown fields rejected
//     a missing list cannot hide a typo);
//   - counts are integers (2.0 is refused), and anything after the JSON
//     object is an error.
//
// A parsed profile's Entities is nil when it has none; every entity has a
// non-nil Attrs and Opts.
func ParseProfile(data []byte) (agentevolver.EnvProfile, error) {
	var p agentevolver.EnvProfile
	if len(data) > MaxProfileBytes {
		return p, fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidProfile, len(data), MaxProfileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var raw profileJSON
	if err := dec.Decode(&raw); err != nil {
		return p, fmt.Errorf("%w: %w", ErrInvalidProfile, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return p, fmt.Errorf("%w: data after the profile object", ErrInvalidProfile)
	}
	p, err := raw.profile()
	if err != nil {
		return agentevolver.EnvProfile{}, fmt.Errorf("%w: %w", ErrInvalidProfile, err)
	}
	if err := ValidateProfile(p); err != nil {
		return agentevolver.EnvProfile{}, err
	}
	return p, nil
}

func (raw profileJSON) profile() (agentevolver.EnvProfile, error) {
	var p agentevolver.EnvProfile
	switch {
	case raw.Name == nil:
		return p, errors.New(`missing "name"`)
	case raw.Background == nil:
		return p, errors.New(`missing "background"`)
	case raw.TaskPreference == nil:
		return p, errors.New(`missing "task_preference"`)
	}
	p.Name, p.Background = *raw.Name, *raw.Background
	if len(raw.Entities) > MaxProfileEntities {
		return p, fmt.Errorf("%d entities, more than %d", len(raw.Entities), MaxProfileEntities)
	}
	for i, re := range raw.Entities {
		switch {
		case re.Name == nil:
			return p, fmt.Errorf(`entities[%d]: missing "name"`, i)
		case re.Description == nil:
			return p, fmt.Errorf(`entities[%d]: missing "description"`, i)
		case len(re.Opts) > MaxEntityOpts:
			return p, fmt.Errorf("entities[%d]: %d operations, more than %d", i, len(re.Opts), MaxEntityOpts)
		}
		e := agentevolver.Entity{Name: *re.Name, Description: *re.Description, Attrs: re.Attrs}
		if e.Attrs == nil {
			e.Attrs = map[string]string{}
		}
		e.Opts = make([]agentevolver.Operation, 0, len(re.Opts))
		for j, ro := range re.Opts {
			switch {
			case ro.Name == nil:
				return p, fmt.Errorf(`entities[%d].opts[%d]: missing "name"`, i, j)
			case ro.Description == nil:
				return p, fmt.Errorf(`entities[%d].opts[%d]: missing "description"`, i, j)
			}
			e.Opts = append(e.Opts, agentevolver.Operation{Name: *ro.Name, Description: *ro.Description})
		}
		p.Entities = append(p.Entities, e)
	}
	tp := raw.TaskPreference
	switch {
	case tp.NumEntities == nil:
		return p, errors.New(`task_preference: missing "num_entities"`)
	case tp.NumOpts == nil:
		return p, errors.New(`task_preference: missing "num_opts"`)
	case tp.RelationDifficulty == nil:
		return p, errors.New(`task_preference: missing "relation_difficulty"`)
	}
	p.TaskPreference = agentevolver.TaskPreference{
		NumEntities: *tp.NumEntities, NumOpts: *tp.NumOpts, RelationDifficulty: *tp.RelationDifficulty,
	}
	return p, nil
}

// ValidateProfile reports the first problem that makes p unusable, wrapped
// in ErrInvalidProfile, or nil: an empty (or blank) profile, entity,
// attribute or operation name; a relation difficulty outside 1..3 (the
// reference asserts the same); a negative preferred count or one above
// MaxPreferenceCount; more entities, attributes or operations than the
// Max* limits allow. Descriptions and the background may be empty.
func ValidateProfile(p agentevolver.EnvProfile) error {
	if err := validateProfile(p); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidProfile, err)
	}
	return nil
}

func validateProfile(p agentevolver.EnvProfile) error {
	if strings.TrimSpace(p.Name) == "" {
		return errors.New("name is empty")
	}
	if len(p.Entities) > MaxProfileEntities {
		return fmt.Errorf("%d entities, more than %d", len(p.Entities), MaxProfileEntities)
	}
	for i, e := range p.Entities {
		if strings.TrimSpace(e.Name) == "" {
			return fmt.Errorf("entities[%d]: name is empty", i)
		}
		if len(e.Attrs) > MaxEntityAttrs {
			return fmt.Errorf("entity %q: %d attributes, more than %d", e.Name, len(e.Attrs), MaxEntityAttrs)
		}
		for k := range e.Attrs {
			if strings.TrimSpace(k) == "" {
				return fmt.Errorf("entity %q: an attribute name is empty", e.Name)
			}
		}
		if len(e.Opts) > MaxEntityOpts {
			return fmt.Errorf("entity %q: %d operations, more than %d", e.Name, len(e.Opts), MaxEntityOpts)
		}
		for j, o := range e.Opts {
			if strings.TrimSpace(o.Name) == "" {
				return fmt.Errorf("entity %q: opts[%d]: name is empty", e.Name, j)
			}
		}
	}
	tp := p.TaskPreference
	if _, ok := RelationDifficultyText(tp.RelationDifficulty); !ok {
		return fmt.Errorf("task_preference: relation_difficulty %d, want 1, 2 or 3", tp.RelationDifficulty)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"num_entities", tp.NumEntities}, {"num_opts", tp.NumOpts}} {
		if c.n < 0 || c.n > MaxPreferenceCount {
			return fmt.Errorf("task_preference: %s %d, want 0..%d", c.name, c.n, MaxPreferenceCount)
		}
	}
	return nil
}
