package contextmgr

import (
	"fmt"
	"slices"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/tokenizer"
)

// StepOptions configure ParseResponseSteps.
type StepOptions struct {
	// AssistantHeader and UserHeader are the token ids that open a policy
	// turn and an observation (StepHeaders derives them). An empty header
	// is never found.
	AssistantHeader, UserHeader []int
	// MarkObservation also gives an observation's tokens the id of the step
	// it follows (the reference's default, false, marks them -1).
	MarkObservation bool
	// Decode, when set, fills Step.ActionText and Step.ObservationText.
	Decode func(ids []int) string
}

// Segment is a run of response tokens of one role, its header excluded.
type Segment struct {
	Role string `json:"role"`
	// Start and End delimit the segment's tokens: [Start, End).
	Start  int   `json:"start"`
	End    int   `json:"end"`
	Tokens []int `json:"-"`
}

// Step is one policy action and the observation that followed it.
type Step struct {
	// ActionStart and ActionEnd delimit the action's tokens.
	ActionStart int `json:"action_start"`
	ActionEnd   int `json:"action_end"`
	// ObsStart and ObsEnd delimit the observation's tokens (possibly none).
	ObsStart          int    `json:"obs_start"`
	ObsEnd            int    `json:"obs_end"`
	ActionTokens      []int  `json:"action_tokens"`
	ObservationTokens []int  `json:"observation_tokens"`
	ActionText        string `json:"action_text"`
	ObservationText   string `json:"observation_text"`
}

// StepParse is the result of ParseResponseSteps.
type StepParse struct {
	// Segments are the turns' non-empty bodies in order, leading
	// observations dropped; they never overlap and never hold a header
	// token.
	Segments []Segment
	// Steps are the policy actions in order.
	Steps []Step
	// StepIDs has one entry per response token: the index of the step whose
	// action (or, with MarkObservation, observation span) holds the token,
	// else -1 (headers outside an observation span, leading observations).
	// Ids never decrease along the response, -1s aside.
	StepIDs []int
}

// ParseResponseSteps cuts a sample's response ids into steps (reference
// §7.5). Headers are found left to right, never overlapping: at each
// position the longer of the two headers that matches there is taken (the
// assistant header when both are the same), and the search goes on after
// it. Every header opens a turn whose body runs from just after the header
// to the start of the next header (or the end); a response that does not
// start with a header starts with an implicit policy turn; turns with an
// empty body are dropped; leading user turns are dropped. Each remaining
// policy turn opens a step whose observation is the user turns up to the
// next policy turn. Header tokens are never part of a step's action; with
// MarkObservation every token of an observation's span [ObsStart, ObsEnd),
// the user headers inside it included (as in the reference), gets the
// step's id.
//
// [BUG/QUIRK] fixed: the reference ends a body at the first header that
// starts strictly after the body's start, so a header directly followed by
// another header (an empty turn) swallowed that header and the next turn
// into an overlapping segment: response [9 1 2 3 1 2 3 7] with assistant
// header [1 2 3] gave step ids [0 -1 -1 -1 1 1 1 2]; here a body ends at
// the first header starting at or after it, an empty turn makes no
// segment, and the result is [0 -1 -1 -1 -1 -1 -1 1]. The reference also
// searched the two headers independently, so occurrences of different
// roles could overlap; here they cannot. The reference's merge of
// same-role segments that touch (end == start) never fires once bodies
// stop at header starts, so there is none: consecutive policy turns are
// separate steps, as in the reference.
func ParseResponseSteps(ids []int, opts StepOptions) StepParse {
	n := len(ids)
	stepIDs := make([]int, n)
	for i := range stepIDs {
		stepIDs[i] = -1
	}
	hdrs := findHeaders(ids, opts.AssistantHeader, opts.UserHeader)

	var segs []Segment
	addSeg := func(role string, start, end int) {
		if start < end {
			segs = append(segs, Segment{Role: role, Start: start, End: end, Tokens: slices.Clone(ids[start:end])})
		}
	}
	firstHdr := n
	if len(hdrs) > 0 {
		firstHdr = hdrs[0].start
	}
	addSeg(agentevolver.RoleAssistant, 0, firstHdr) // the implicit policy turn, if any
	for i, h := range hdrs {
		end := n
		if i+1 < len(hdrs) {
			end = hdrs[i+1].start
		}
		addSeg(h.role, h.end, end)
	}
	for len(segs) > 0 && segs[0].Role != agentevolver.RoleAssistant {
		segs = segs[1:]
	}
	if len(segs) == 0 {
		return StepParse{StepIDs: stepIDs}
	}

	var steps []Step
	for i := 0; i < len(segs); {
		a := segs[i] // segs[i] is a policy turn: leading user turns are gone
		st := Step{
			ActionStart:  a.Start,
			ActionEnd:    a.End,
			ObsStart:     a.End,
			ObsEnd:       a.End,
			ActionTokens: slices.Clone(a.Tokens),
		}
		j := i + 1
		for ; j < len(segs) && segs[j].Role != agentevolver.RoleAssistant; j++ {
			st.ObsEnd = segs[j].End
			st.ObservationTokens = append(st.ObservationTokens, segs[j].Tokens...)
		}
		if opts.Decode != nil {
			st.ActionText = opts.Decode(st.ActionTokens)
			if len(st.ObservationTokens) > 0 {
				st.ObservationText = opts.Decode(st.ObservationTokens)
			}
		}
		steps = append(steps, st)
		i = j
	}
	for k, st := range steps {
		for p := st.ActionStart; p < st.ActionEnd; p++ {
			stepIDs[p] = k
		}
		if opts.MarkObservation {
			for p := st.ObsStart; p < st.ObsEnd; p++ {
				stepIDs[p] = k
			}
		}
	}
	return StepParse{Segments: segs, Steps: steps, StepIDs: stepIDs}
}

// header is one header occurrence: ids[start:end] opens a turn of role.
type header struct {
	start, end int
	role       string
}

// findHeaders returns the header occurrences in ids, left to right and
// never overlapping: at each position the longer matching header is taken
// (the assistant header on a tie), and the search resumes after it. An
// empty header never matches.
func findHeaders(ids, assistant, user []int) []header {
	var out []header
	for p := 0; p < len(ids); {
		la, lu := matchAt(ids, p, assistant), matchAt(ids, p, user)
		switch {
		case la > 0 && la >= lu:
			out = append(out, header{start: p, end: p + la, role: agentevolver.RoleAssistant})
			p += la
		case lu > 0:
			out = append(out, header{start: p, end: p + lu, role: agentevolver.RoleUser})
			p += lu
		default:
			p++
		}
	}
	return out
}

// matchAt returns len(hdr) when ids holds hdr at position p, else 0.
func matchAt(ids []int, p int, hdr []int) int {
	if len(hdr) == 0 || p+len(hdr) > len(ids) || !slices.Equal(ids[p:p+len(hdr)], hdr) {
		return 0
	}
	return len(hdr)
}

// StepHeaders derives the assistant and user headers for ParseResponseSteps
// from a tokenizer and chat template: the assistant header is the
// template's generation prompt (the ids a policy turn follows), the user
// header the ids a user turn adds before its text. For ChatML these are the
// ids of "<|im_start|>assistant\n" and "<|im_start|>user\n", which the
// reference derives from other renderings.
func StepHeaders(tok tokenizer.Tokenizer, tpl tokenizer.ChatTemplate, opts tokenizer.TemplateOptions) (assistant, user []int, err error) {
	enc := encoder{tok: tok, tpl: tpl, opts: opts}
	if assistant, err = enc.generationHeader(); err != nil {
		return nil, nil, err
	}
	inc, err := enc.auto(agentevolver.Message{Role: agentevolver.RoleUser, Content: "x"})
	if err != nil {
		return nil, nil, err
	}
	x := tok.Encode("x")
	i := FindSublist(inc, x, false)
	if len(x) == 0 || i < 0 {
		return nil, nil, fmt.Errorf("%w: cannot find the text of a user turn in its rendering", ErrTemplate)
	}
	return assistant, inc[:i], nil
}
