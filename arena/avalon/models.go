package avalon

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// ErrScriptExhausted reports a Scripted model asked for more replies than
// it holds, with no Default.
var ErrScriptExhausted = errors.New("avalon: scripted model has no replies left")

// Scripted is a seat model that returns fixed replies in order, for tests
// and examples. It is safe for concurrent use (calls take replies in the
// order they arrive).
type Scripted struct {
	mu      sync.Mutex
	replies []string
	// Default is returned once the replies are used up; empty means fail
	// with ErrScriptExhausted.
	Default string
	// Requests records every request's messages, for inspection; read it
	// only when no call is in flight.
	Requests [][]agentevolver.Message
}

// NewScripted returns a model that replies with replies, in order.
func NewScripted(replies ...string) *Scripted {
	return &Scripted{replies: replies}
}

var _ llm.ChatModel = (*Scripted)(nil)

// Chat returns the next reply.
func (s *Scripted) Chat(ctx context.Context, messages []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	if err := ctx.Err(); err != nil {
		return llm.Completion{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Requests = append(s.Requests, append([]agentevolver.Message(nil), messages...))
	var text string
	switch {
	case len(s.replies) > 0:
		text, s.replies = s.replies[0], s.replies[1:]
	case s.Default != "":
		text = s.Default
	default:
		return llm.Completion{}, ErrScriptExhausted
	}
	return completion(text), nil
}

func completion(text string) llm.Completion {
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, FinishReason: "stop"}
}

// Random is a seat model that plays legal random moves, for tests,
// examples and as a baseline in tournaments. It reads what is asked from
// this package's prompts (it is not a general chat model).
//
// Its answer is a pure function of Seed, the request's messages and the
// request's ChatOptions.Seed, so it is safe for concurrent use, may hold
// several seats, and replays a seeded game exactly.
type Random struct {
	// Seed varies the model's choices; two Random models with different
	// seeds play differently.
	Seed uint64
	// ApproveProb is the probability of approving a team; 0 means 0.5.
	// Evil players approve teams that hold an evil player they know of.
	ApproveProb float64
	// FailProb is the probability that an Evil player fails a quest it is
	// on; 0 means 0.5, negative means never.
	FailProb float64
	// Noise is the probability of an unreadable or illegal answer to an
	// action (to exercise re-asks and fallbacks); 0 means none.
	Noise float64
	// Informed plays on what the seat knows instead of at random: a leader
	// picks itself and seats it does not know to be evil; Merlin rejects
	// teams with a known evil player, other Good players approve teams
	// they are on and otherwise vote at random; Evil players approve teams
	// with an evil player and reject the others.
	Informed bool
}

var _ llm.ChatModel = Random{}

var (
	teamAskRE     = regexp.MustCompile(`Choose exactly (\d+) players for quest \d+ from Player 0 to Player (\d+)`)
	assassinAskRE = regexp.MustCompile(`one id from 0 to (\d+), not yourself \(Player (\d+)\)`)
	fellowRE      = regexp.MustCompile(`(?:Your fellow Evil players are|these players are Evil): ([^.\n]*)`)
	proposedRE    = regexp.MustCompile(`proposed the team \[([0-9, ]*)\]`)
	seatIDRE      = regexp.MustCompile(`Player (\d+)`)
)

// Chat answers the request.
func (m Random) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if err := ctx.Err(); err != nil {
		return llm.Completion{}, err
	}
	h := fnv.New64a()
	for _, msg := range messages {
		h.Write([]byte(msg.Role))
		h.Write([]byte{0})
		h.Write([]byte(msg.Content))
		h.Write([]byte{0})
	}
	var s2 uint64
	if opts.Seed != nil {
		s2 = uint64(*opts.Seed)
	}
	rng := rand.New(rand.NewPCG(m.Seed^h.Sum64(), s2))
	if len(messages) < 2 {
		return completion("Hello."), nil
	}
	sys := messages[0].Content
	ask := messages[1].Content
	if i := strings.LastIndex(ask, "</history>"); i >= 0 {
		ask = ask[i:]
	}
	evil := strings.Contains(sys, "You are on the Evil side")
	noisy := m.Noise > 0 && rng.Float64() < m.Noise
	approve := m.ApproveProb
	if approve == 0 {
		approve = 0.5
	}
	fail := m.FailProb
	if fail == 0 {
		fail = 0.5
	}
	switch {
	case strings.Contains(ask, "[LEADER ONLY]"):
		mm := teamAskRE.FindStringSubmatch(ask)
		if mm == nil {
			return completion("[0]"), nil
		}
		k, _ := strconv.Atoi(mm[1])
		last, _ := strconv.Atoi(mm[2])
		if noisy {
			return completion(fmt.Sprintf("<think>hmm</think>I pick players %d and %d and maybe more.", rng.IntN(last+1), last+1)), nil
		}
		if m.Informed {
			return completion(fmt.Sprintf("<think>Myself and players I trust.</think>I propose %s.", listSeats(informedTeam(rng, sys, k, last+1)))), nil
		}
		perm := rng.Perm(last + 1)[:k]
		return completion(fmt.Sprintf("<think>Choosing at random.</think>My team is %s.", listSeats(sorted(perm)))), nil
	case strings.Contains(ask, "[ASSASSIN ONLY]"):
		mm := assassinAskRE.FindStringSubmatch(ask)
		if mm == nil {
			return completion("Player 0"), nil
		}
		last, _ := strconv.Atoi(mm[1])
		me, _ := strconv.Atoi(mm[2])
		if noisy {
			return completion("I cannot decide between Player 1 and Player 2."), nil
		}
		known := map[int]bool{me: true}
		for _, id := range fellowSeats(sys) {
			known[id] = true
		}
		var pool []int
		for i := 0; i <= last; i++ {
			if !known[i] {
				pool = append(pool, i)
			}
		}
		if len(pool) == 0 {
			pool = []int{(me + 1) % (last + 1)}
		}
		return completion(fmt.Sprintf("<think>Guessing.</think>I choose Player %d.", pool[rng.IntN(len(pool))])), nil
	case strings.Contains(ask, "Do you approve this team?"):
		if noisy {
			return completion("Maybe yes, maybe no."), nil
		}
		yes := rng.Float64() < approve
		if m.Informed {
			yes = informedVote(sys, ask, evil, yes)
		} else if evil {
			if mm := proposedRE.FindStringSubmatch(ask); mm != nil {
				for _, id := range fellowSeats(sys) {
					for _, f := range strings.Split(mm[1], ", ") {
						if f == strconv.Itoa(id) {
							yes = true
						}
					}
				}
			}
		}
		if yes {
			return completion("<think>Fine.</think>Yes, I approve."), nil
		}
		return completion("<think>No.</think>No, I do not approve this team."), nil
	case strings.Contains(ask, "Play your quest card"):
		if noisy {
			return completion("..."), nil
		}
		if evil && fail > 0 && rng.Float64() < fail {
			return completion("No"), nil
		}
		return completion("Yes"), nil
	}
	lines := []string{
		"I have no strong read yet; let us watch the votes.",
		"I trust the leader for now.",
		"Something about the last vote bothers me.",
		"I would like to be on this team.",
		"Let us keep the team small and safe.",
	}
	return completion("<think>Say something harmless.</think>" + lines[rng.IntN(len(lines))]), nil
}

var selfRE = regexp.MustCompile(`^You are Player (\d+) `)

func selfSeat(sys string) int {
	mm := selfRE.FindStringSubmatch(sys)
	if mm == nil {
		return -1
	}
	id, _ := strconv.Atoi(mm[1])
	return id
}

// informedTeam is the seat itself and k-1 seats it does not know to be
// evil (others if too few).
func informedTeam(rng *rand.Rand, sys string, k, n int) []int {
	me := selfSeat(sys)
	known := map[int]bool{}
	for _, id := range fellowSeats(sys) {
		known[id] = true
	}
	var team, rest []int
	if me >= 0 && me < n {
		team = append(team, me)
	}
	for _, i := range rng.Perm(n) {
		switch {
		case i == me:
		case !known[i]:
			team = append(team, i)
		default:
			rest = append(rest, i)
		}
	}
	team = append(team, rest...)
	return sorted(team[:k])
}

// informedVote decides a team vote from what the seat knows; fallback is
// the random vote, used when the seat knows nothing useful.
func informedVote(sys, ask string, evil, fallback bool) bool {
	mm := proposedRE.FindStringSubmatch(ask)
	if mm == nil {
		return fallback
	}
	onTeam := map[int]bool{}
	for _, f := range strings.Split(mm[1], ", ") {
		if id, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			onTeam[id] = true
		}
	}
	known := fellowSeats(sys)
	me := selfSeat(sys)
	knownOn := false
	for _, id := range known {
		knownOn = knownOn || onTeam[id]
	}
	switch {
	case evil:
		return knownOn || onTeam[me]
	case len(known) > 0: // Merlin
		return !knownOn
	case onTeam[me]:
		return true
	}
	return fallback
}

func fellowSeats(sys string) []int {
	mm := fellowRE.FindStringSubmatch(sys)
	if mm == nil {
		return nil
	}
	var out []int
	for _, s := range seatIDRE.FindAllStringSubmatch(mm[1], -1) {
		id, _ := strconv.Atoi(s[1])
		out = append(out, id)
	}
	return out
}

func sorted(a []int) []int {
	out := append([]int(nil), a...)
	sortInts(out)
	return out
}
