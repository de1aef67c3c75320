package contextmgr

import (
	"fmt"
	"slices"
	"sort"

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
	// Segments are the merged role segments, leading observations dropped.
	Segments []Segment
	// Steps are the policy actions in order.
	Steps []Step
	// StepIDs has one entry per response token: the index of the step whose
	// action (or, with MarkObservation, observation) holds the token, else
	// -1 (headers, leading observations).
	StepIDs []int
}

// ParseResponseSteps cuts a sample's response ids into steps (reference
// §7.5): every header opens a segment that runs to the next header; a
// response that does not start with a header starts with an implicit
// policy segment; adjacent segments of one role merge; each policy segment
// opens a step whose observation is the user segments up to the next one.
func ParseResponseSteps(ids []int, opts StepOptions) StepParse {
	n := len(ids)
	aHdr := headerPositions(ids, opts.AssistantHeader)
	uHdr := headerPositions(ids, opts.UserHeader)
	aBody := bodies(aHdr, len(opts.AssistantHeader))
	uBody := bodies(uHdr, len(opts.UserHeader))
	if n > 0 {
		first := n
		if len(aHdr) > 0 {
			first = aHdr[0]
		}
		if len(uHdr) > 0 {
			first = min(first, uHdr[0])
		}
		if first > 0 {
			aHdr = append([]int{0}, aHdr...)
			aBody = append([]int{0}, aBody...)
		}
	}
	cuts := append(append(slices.Clone(aHdr), uHdr...), n)
	sort.Ints(cuts)
	nextCut := func(pos int) int {
		for _, b := range cuts {
			if b > pos {
				return b
			}
		}
		return n
	}

	var segs []Segment
	add := func(role string, starts []int) {
		for _, s := range starts {
			if e := nextCut(s); s < e {
				segs = append(segs, Segment{Role: role, Start: s, End: e})
			}
		}
	}
	add(agentevolver.RoleAssistant, aBody)
	add(agentevolver.RoleUser, uBody)
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].Start < segs[j].Start })

	var merged []Segment
	for _, s := range segs {
		if k := len(merged) - 1; k >= 0 && merged[k].Role == s.Role && merged[k].End == s.Start {
			merged[k].End = s.End
			continue
		}
		merged = append(merged, s)
	}
	for len(merged) > 0 && merged[0].Role != agentevolver.RoleAssistant {
		merged = merged[1:]
	}
	stepIDs := make([]int, n)
	for i := range stepIDs {
		stepIDs[i] = -1
	}
	if len(merged) == 0 {
		return StepParse{StepIDs: stepIDs}
	}
	for i := range merged {
		merged[i].Tokens = slices.Clone(ids[merged[i].Start:merged[i].End])
	}

	var steps []Step
	for i := 0; i < len(merged); {
		a := merged[i]
		if a.Role != agentevolver.RoleAssistant {
			i++
			continue
		}
		st := Step{
			ActionStart:  a.Start,
			ActionEnd:    a.End,
			ObsStart:     a.End,
			ObsEnd:       a.End,
			ActionTokens: slices.Clone(a.Tokens),
		}
		j := i + 1
		for ; j < len(merged) && merged[j].Role != agentevolver.RoleAssistant; j++ {
			st.ObsEnd = merged[j].End
			st.ObservationTokens = append(st.ObservationTokens, merged[j].Tokens...)
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
	return StepParse{Segments: merged, Steps: steps, StepIDs: stepIDs}
}

// headerPositions returns the starts of the non-overlapping occurrences of
// hdr in ids, left to right.
func headerPositions(ids, hdr []int) []int {
	if len(hdr) == 0 {
		return nil
	}
	var out []int
	for p := 0; p <= len(ids)-len(hdr); {
		if slices.Equal(ids[p:p+len(hdr)], hdr) {
			out = append(out, p)
			p += len(hdr)
			continue
		}
		p++
	}
	return out
}

func bodies(hdrs []int, size int) []int {
	out := make([]int, len(hdrs))
	for i, p := range hdrs {
		out[i] = p + size
	}
	return out
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
