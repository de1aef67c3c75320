package avalon

import (
	"fmt"
	"strings"
)

// The prompts follow the reference's English prompts (G/games/avalon/prompt.py)
// in content and order; quests and proposals are shown 1-based ("Quest 1 of
// 5"), where the reference showed 0-based indices. Logs keep 0-based
// indices in their quest and proposal fields.

// Moderator is the name under which the game's announcements appear in a
// seat's history.
const Moderator = "Moderator"

// PlayerName is how seat i is called in prompts: "Player i".
func PlayerName(i int) string { return fmt.Sprintf("Player %d", i) }

func listSeats(team []int) string {
	parts := make([]string, len(team))
	for i, s := range team {
		parts[i] = fmt.Sprint(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func joinInts(a [NumQuests]int) string {
	parts := make([]string, len(a))
	for i, v := range a {
		parts[i] = fmt.Sprintf("quest %d: %d", i+1, v)
	}
	return strings.Join(parts, ", ")
}

// castSummary lists the cast per side in role order, e.g. "1 Merlin, 2
// Servant".
func castSummary(cast []Role) (good, evil string) {
	n := map[Role]int{}
	for _, r := range cast {
		n[r]++
	}
	var g, e []string
	for r := Merlin; r <= Assassin; r++ {
		if n[r] == 0 {
			continue
		}
		item := fmt.Sprintf("%d %s", n[r], r)
		if r.Side() == Good {
			g = append(g, item)
		} else {
			e = append(e, item)
		}
	}
	// Merlin's side first by convention: Merlin, Percival, Servant; evil:
	// Assassin, then the others in role order.
	return strings.Join(g, ", "), strings.Join(moveFirst(e, fmt.Sprintf("%d %s", n[Assassin], Assassin)), ", ")
}

// moveFirst moves item (if present) to the front of list.
func moveFirst(list []string, item string) []string {
	for i, s := range list {
		if s == item {
			out := append([]string{s}, list[:i]...)
			return append(out, list[i+1:]...)
		}
	}
	return list
}

// systemPrompt is the rules, the seat's role and what it knows, and the
// answer format.
func systemPrompt(s Setup, cast []Role, seat int, role Role, know []Sighting) string {
	good, evil := castSummary(cast)
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s in a game of The Resistance: Avalon with %d players, Player 0 to Player %d.\n\n", PlayerName(seat), s.Players, s.Players-1)
	b.WriteString("# Rules\n")
	fmt.Fprintf(&b, "- %d players are Good (%s) and %d are Evil (%s). Roles are secret.\n", s.Good, good, s.Evil, evil)
	b.WriteString("- The game has 5 quests. For each quest the leader proposes a team; the players discuss in turn, starting with the leader, and then everyone votes to approve or reject the team. A strict majority approves it.\n")
	b.WriteString("- Leadership passes to the next player after every proposal. The fifth proposal for the same quest is approved whatever the votes.\n")
	fmt.Fprintf(&b, "- Team sizes: %s.\n", joinInts(s.TeamSize))
	fmt.Fprintf(&b, "- Team members secretly play success or fail. Good players must play success; Evil players may play either. A quest fails with at least this many fails: %s.\n", joinInts(s.FailsNeeded))
	b.WriteString("- Three failed quests: Evil wins. Three successful quests: the Assassin names one player; if that player is Merlin, Evil wins, otherwise Good wins.\n")
	b.WriteString("- Merlin knows the Evil players (except Mordred, if present) and must help Good without being discovered. Percival, if present, knows who Merlin and Morgana are but not which is which. Evil players know each other (except Oberon, if present).\n\n")
	b.WriteString("# Your role\n")
	fmt.Fprintf(&b, "Your role is %s. You are on the %s side.\n", role, role.Side())
	b.WriteString(knowledgeText(role, know))
	b.WriteString("\n# How to answer\n")
	b.WriteString("Think first inside <think>...</think>; nobody else sees your thinking. After the thinking section write your actual reply, which is what the others see (for private questions, only the moderator sees it). Never write <agent:...> tags: that format only appears in the history.\n")
	return b.String()
}

func knowledgeText(role Role, know []Sighting) string {
	var evil, mm []string
	for _, k := range know {
		switch k.As {
		case SeenEvil:
			evil = append(evil, PlayerName(k.Seat))
		case SeenMerlinOrMorgana:
			mm = append(mm, PlayerName(k.Seat))
		}
	}
	switch {
	case role == Merlin && len(evil) > 0:
		return "You know that these players are Evil: " + strings.Join(evil, ", ") + ".\n"
	case role == Percival && len(mm) > 0:
		return "You know that " + strings.Join(mm, " and ") + " are Merlin and Morgana, but not which is which.\n"
	case role.Side() == Evil && role != Oberon && len(evil) > 0:
		return "Your fellow Evil players are: " + strings.Join(evil, ", ") + ".\n"
	case role.Side() == Evil && role != Oberon:
		return "No other Evil player is known to you.\n"
	case role == Oberon:
		return "You do not know the other Evil players, and they do not know you.\n"
	}
	return "You do not know the identities of the other players.\n"
}

func greeting(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = PlayerName(i)
	}
	return fmt.Sprintf("A new game begins. The players are %s. Roles have been dealt; each player was told their own role privately.", strings.Join(names, ", "))
}

func roleMessage(seat int, role Role, know []Sighting) string {
	return fmt.Sprintf("[%s ONLY] %s, your role is %s. You are on the %s side. %s", PlayerName(seat), PlayerName(seat), role, role.Side(), strings.TrimSpace(knowledgeText(role, know)))
}

func selectionAnnouncement(e *Engine) string {
	forced := ""
	if e.NextProposalForced() {
		forced = " This is the fifth proposal for this quest: the team will be approved whatever the votes."
	}
	return fmt.Sprintf("Quest %d of %d, proposal %d of %d. Team selection: the leader, %s, will choose %d players; the quest fails with %d or more fails.%s Discussion first: players speak in turn, starting with the leader.",
		e.Quest()+1, NumQuests, e.Proposal()+1, MaxProposals, PlayerName(e.Leader()), e.TeamSize(), e.Setup().FailsNeeded[e.Quest()], forced)
}

func discussionInstruction(e *Engine, seat int) string {
	who := "the next player to speak"
	if seat == e.Leader() {
		who = "the leader, and you speak first"
	}
	return fmt.Sprintf("Quest %d, proposal %d. It is your turn in the discussion (you are %s, %s). Say what you want the other players to hear, in a few sentences.",
		e.Quest()+1, e.Proposal()+1, PlayerName(seat), who)
}

func teamInstruction(e *Engine) string {
	n := e.Setup().Players
	return fmt.Sprintf("[LEADER ONLY] You are the leader. Choose exactly %d players for quest %d from Player 0 to Player %d (you may choose yourself). After your thinking, answer with the list of their ids in brackets, for example %s.",
		e.TeamSize(), e.Quest()+1, n-1, listSeats(exampleTeam(e.TeamSize())))
}

func exampleTeam(k int) []int {
	t := make([]int, k)
	for i := range t {
		t[i] = i
	}
	return t
}

func proposalAnnouncement(leader int, team []int) string {
	return fmt.Sprintf("The leader, %s, proposes the team %s.", PlayerName(leader), listSeats(team))
}

func teamVoteInstruction(e *Engine) string {
	forced := ""
	if e.NextProposalForced() {
		forced = " This is the fifth proposal: the team goes on the quest whatever the votes, but your vote is still shown to all."
	}
	return fmt.Sprintf("[%s] The leader, %s, proposed the team %s for quest %d.%s Do you approve this team? Answer \"Yes\" to approve or \"No\" to reject.",
		"PRIVATE", PlayerName(e.Leader()), listSeats(e.Team()), e.Quest()+1, forced)
}

func teamVoteResult(team []int, votes []bool, approved, forced bool) string {
	word, how := "Reject", "rejected"
	if approved {
		word, how = "Approve", "approved"
	}
	if forced {
		how = "approved (fifth proposal)"
	}
	parts := make([]string, len(votes))
	for i, v := range votes {
		s := "Reject"
		if v {
			s = "Approve"
		}
		parts[i] = fmt.Sprintf("%s: %s", PlayerName(i), s)
	}
	return fmt.Sprintf("Team voting result: %s. The team %s was %s. Votes: %s.", word, listSeats(team), how, strings.Join(parts, ", "))
}

func questInstruction(quest int, team []int, role Role) string {
	must := ""
	if role.Side() == Good {
		must = " As a Good player you must play success."
	}
	return fmt.Sprintf("[PRIVATE] The team %s was approved and you are on quest %d. Play your quest card in secret: answer \"Yes\" for success or \"No\" for fail.%s",
		listSeats(team), quest+1, must)
}

func questResult(quest int, team []int, succeeded bool, fails int) string {
	word := "failed"
	if succeeded {
		word = "succeeded"
	}
	return fmt.Sprintf("Quest result: quest %d %s. The team was %s. Number of fails: %d.", quest+1, word, listSeats(team), fails)
}

func assassinationAnnouncement(assassin int) string {
	return fmt.Sprintf("Good has completed three quests. Assassination phase: the Assassin, %s, will now try to name Merlin. If the Assassin is right, Evil wins.", PlayerName(assassin))
}

func assassinInstruction(n, assassin int) string {
	return fmt.Sprintf("[ASSASSIN ONLY] Choose the player you believe is Merlin: one id from 0 to %d, not yourself (%s). After your thinking, answer with \"Player <id>\".", n-1, PlayerName(assassin))
}

func assassinationResult(assassin, target int, goodWins bool) string {
	w := "Evil wins!"
	if goodWins {
		w = "Good wins!"
	}
	return fmt.Sprintf("The Assassin, %s, has chosen to assassinate %s. %s", PlayerName(assassin), PlayerName(target), w)
}

func endMessage(goodWins bool, reason string, roles []Role) string {
	w := "Evil wins!"
	if goodWins {
		w = "Good wins!"
	}
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = fmt.Sprintf("%s: %s", PlayerName(i), r)
	}
	return fmt.Sprintf("Game ended: %s (%s). True roles: %s.", w, reason, strings.Join(parts, ", "))
}

func reaskMessage(err error, format string) string {
	return fmt.Sprintf("Your answer could not be read (%v). Please answer again. %s", strings.TrimPrefix(err.Error(), ErrUnparsable.Error()+": "), format)
}
