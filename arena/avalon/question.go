package avalon

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
)

// Question is what a seat is asked, read back from the messages Play sends
// a seat model. It lets a seat model that is not a language model (a person
// at a web page, a rule-based bot) know which action is wanted without
// parsing prose of its own; Play's prompts are its only source, so the
// seat learns nothing beyond what its prompt says.
type Question struct {
	// Action is what is asked.
	Action Action `json:"action"`
	// Seat is the asked seat; Players the number of seats.
	Seat    int `json:"seat"`
	Players int `json:"players"`
	// Quest is the 0-based quest index (all actions but assassinate);
	// Proposal the 0-based proposal index (discuss).
	Quest    int `json:"quest"`
	Proposal int `json:"proposal,omitempty"`
	// TeamSize is the number of players to choose (team).
	TeamSize int `json:"team_size,omitempty"`
	// Team is the team voted on or played (team_vote, quest_vote).
	Team []int `json:"team,omitempty"`
	// Instruction is the question itself: the prompt's text after the
	// history block.
	Instruction string `json:"instruction"`
	// Reask is set when an earlier answer could not be read: the
	// moderator's explanation, the last message of the request.
	Reask string `json:"reask,omitempty"`
}

var (
	sysSeatRE     = regexp.MustCompile(`^You are Player (\d+) in a game of The Resistance: Avalon with (\d+) players`)
	questOfRE     = regexp.MustCompile(`for quest (\d+)`)
	questOnRE     = regexp.MustCompile(`you are on quest (\d+)`)
	discussRE     = regexp.MustCompile(`^Quest (\d+), proposal (\d+)\. It is your turn in the discussion`)
	teamListRE    = regexp.MustCompile(`[Tt]he team \[([0-9, ]*)\]`)
	teamQuestRE   = regexp.MustCompile(`for quest (\d+) from`)
	historyEndTag = "</history>"
)

// ReadQuestion reads the question of a request that Play sent to a seat
// model: messages[0] the system prompt, messages[1] the history and the
// question, then re-ask exchanges. It fails with ErrUnparsable for messages
// Play did not write.
func ReadQuestion(messages []agentevolver.Message) (Question, error) {
	if len(messages) < 2 {
		return Question{}, fmt.Errorf("%w: want a system prompt and a question, got %d messages", ErrUnparsable, len(messages))
	}
	m := sysSeatRE.FindStringSubmatch(messages[0].Content)
	if m == nil {
		return Question{}, fmt.Errorf("%w: not an Avalon seat prompt", ErrUnparsable)
	}
	q := Question{}
	q.Seat, _ = strconv.Atoi(m[1])
	q.Players, _ = strconv.Atoi(m[2])
	instr := messages[1].Content
	if i := strings.LastIndex(instr, historyEndTag); i >= 0 {
		instr = instr[i+len(historyEndTag):]
		if j := strings.Index(instr, "\n\n"); j >= 0 {
			// Skip the note that follows the history block.
			if k := strings.Index(instr[j+2:], "\n\n"); k >= 0 {
				instr = instr[j+2+k:]
			}
		}
	}
	q.Instruction = strings.TrimSpace(instr)
	if n := len(messages); n > 2 && messages[n-1].Role == agentevolver.RoleUser {
		q.Reask = messages[n-1].Content
	}
	atoi1 := func(re *regexp.Regexp) int {
		if mm := re.FindStringSubmatch(q.Instruction); mm != nil {
			v, _ := strconv.Atoi(mm[1])
			return v - 1
		}
		return 0
	}
	team := func() []int {
		mm := teamListRE.FindStringSubmatch(q.Instruction)
		if mm == nil {
			return nil
		}
		ids, _ := parseIDList(mm[1])
		return ids
	}
	switch {
	case strings.HasPrefix(q.Instruction, "[LEADER ONLY]"):
		mm := teamAskRE.FindStringSubmatch(q.Instruction)
		if mm == nil {
			return Question{}, fmt.Errorf("%w: team question without a size", ErrUnparsable)
		}
		q.Action = ActionTeam
		q.TeamSize, _ = strconv.Atoi(mm[1])
		q.Quest = atoi1(teamQuestRE)
	case strings.HasPrefix(q.Instruction, "[ASSASSIN ONLY]"):
		q.Action = ActionAssassinate
	case strings.Contains(q.Instruction, "Do you approve this team?"):
		q.Action = ActionTeamVote
		q.Quest = atoi1(questOfRE)
		q.Team = team()
	case strings.Contains(q.Instruction, "Play your quest card"):
		q.Action = ActionQuestVote
		q.Quest = atoi1(questOnRE)
		q.Team = team()
	default:
		mm := discussRE.FindStringSubmatch(q.Instruction)
		if mm == nil {
			return Question{}, fmt.Errorf("%w: unknown question", ErrUnparsable)
		}
		q.Action = ActionDiscuss
		qi, _ := strconv.Atoi(mm[1])
		pi, _ := strconv.Atoi(mm[2])
		q.Quest, q.Proposal = qi-1, pi-1
	}
	return q, nil
}
