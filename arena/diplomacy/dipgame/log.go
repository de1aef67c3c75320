package dipgame

import (
	"encoding/json"
	"io"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
)

// Log is a game's log in the shape of the reference's game_log.json
// (extension spec §1.3.7): map_name, game_id, outcome, game_log
// {initialization, phases}, model_names. Its additions are marked: the
// scores, the rejected orders in order_logs (empty in the reference), the
// engine's history (the position, orders and results of every phase, from
// which diplomacy.Replay rebuilds the game) and, with Config.LogCalls,
// every model call.
type Log struct {
	MapName string `json:"map_name"`
	GameID  string `json:"game_id"`
	// Outcome is the last phase followed by the winner, or by every
	// surviving power when nobody won (the library's outcome list).
	Outcome    []string `json:"outcome"`
	Game       GameLog  `json:"game_log"`
	ModelNames []string `json:"model_names,omitempty"`
	// Scores is each power's reward (addition).
	Scores map[string]float64 `json:"scores"`
	// Centers is each power's supply-centre count at the end (addition).
	Centers map[string]int `json:"centers"`
	// History is the engine's record of every processed phase (addition).
	History []diplomacy.PhaseRecord `json:"history"`
	// Calls are the model calls, with Config.LogCalls (addition).
	Calls []Call `json:"calls,omitempty"`
	// Error says why the game stopped early, when it did (addition; the
	// log is still written).
	Error string `json:"error,omitempty"`
}

// GameLog is the reference's game_log object.
type GameLog struct {
	Initialization Initialization `json:"initialization"`
	Phases         []PhaseLog     `json:"phases"`
}

// Initialization is the reference's initialization object.
type Initialization struct {
	MapName string   `json:"map_name"`
	Seed    uint64   `json:"seed"`
	Powers  []string `json:"powers"`
}

// PhaseLog is one processed phase.
type PhaseLog struct {
	Phase       string           `json:"phase"`
	Negotiation []NegotiationLog `json:"negotiation"`
	// Orders are the orders each power submitted.
	Orders map[string][]string `json:"orders"`
	// OrderLogs are the order texts refused per power, and why (the
	// reference's order_logs is always empty).
	OrderLogs map[string][]diplomacy.Rejection `json:"order_logs"`
	// Fallback lists the powers whose orders came from the substring
	// fallback, and Defaulted those with no agent (random orders)
	// (additions).
	Fallback  []string       `json:"fallback,omitempty"`
	Defaulted []string       `json:"defaulted,omitempty"`
	SCCounts  map[string]int `json:"sc_counts"`
}

// NegotiationLog is one negotiation round.
type NegotiationLog struct {
	RoundIdx int       `json:"round_idx"`
	Messages []Message `json:"messages"`
}

// Call is one model call.
type Call struct {
	Power    string                 `json:"power"`
	Phase    string                 `json:"phase"`
	Action   string                 `json:"action"` // "negotiation" or "orders"
	Prompt   []agentevolver.Message `json:"prompt"`
	Reply    string                 `json:"reply"`
	TokenIDs []int                  `json:"token_ids,omitempty"`
}

// write writes l as one line of JSON.
func (l *Log) write(w io.Writer) error {
	if w == nil {
		return nil
	}
	return json.NewEncoder(w).Encode(l)
}
