package contextmgr

import (
	"fmt"
	"slices"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// Texts the reference adds to messages.
const (
	// NoContentObservation replaces an empty environment observation.
	NoContentObservation = "[No content provided by the environment]"
	noThinkInit          = "\n/no_think"
	noThinkEnv           = " /no_think"
)

// core is the state every strategy shares: the full record of the episode
// (the reference's full_context) and the tokenisation helpers.
type core struct {
	cfg      Config
	enc      encoder
	eos      int
	blackout []int
	full     []*ExtendedMessage
	penalty  float64 // lowest RepetitionPenalty over policy turns
}

func newCore(cfg Config, perTurn bool) (*core, error) {
	cfg, err := cfg.resolve(perTurn)
	if err != nil {
		return nil, err
	}
	eos, err := eosID(cfg)
	if err != nil {
		return nil, err
	}
	c := &core{
		cfg: cfg,
		enc: encoder{tok: cfg.Tokenizer, tpl: cfg.Template, opts: cfg.TemplateOptions},
		eos: eos,
	}
	if cfg.AssistantHeader != "" {
		c.blackout = cfg.Tokenizer.Encode(cfg.AssistantHeader)
	} else if c.blackout, err = c.enc.generationHeader(); err != nil {
		return nil, err
	}
	return c, nil
}

// eosID resolves the end-of-turn id: Config.EOSToken when set, else the
// tokenizer's (tokenizer.EOSID: its own, else DefaultEOSToken's).
func eosID(cfg Config) (int, error) {
	if cfg.EOSToken == "" {
		if id, ok := tokenizer.EOSID(cfg.Tokenizer); ok {
			return id, nil
		}
		cfg.EOSToken = DefaultEOSToken // for the error below
	}
	id, ok := cfg.Tokenizer.TokenID(cfg.EOSToken)
	if !ok {
		return 0, fmt.Errorf("%w: EOSToken %q is not in the vocabulary", ErrConfig, cfg.EOSToken)
	}
	return id, nil
}

// History returns a deep copy of every message recorded so far, including
// messages later prompts no longer show.
func (c *core) History() []ExtendedMessage {
	out := make([]ExtendedMessage, len(c.full))
	for i, m := range c.full {
		out[i] = *m.clone()
	}
	return out
}

// Madness is -1 when any policy turn degenerated, else 0 (reference §2.3
// compute_madness).
func (c *core) Madness() float64 {
	if c.penalty < -0.01 {
		return -1
	}
	return 0
}

// Steps returns the recorded messages as later prompts show them, memory
// summaries excluded.
func (c *core) Steps() []agentevolver.Message {
	out := make([]agentevolver.Message, 0, len(c.full))
	for _, m := range c.full {
		if m.Author == AuthorMemory {
			continue
		}
		out = append(out, m.Message())
	}
	return out
}

// Finish drops a trailing message that is neither a policy turn nor an
// initial message. [BUG/QUIRK] fixed: the reference pops any non-policy
// message, so an episode without a policy turn lost its task message.
func (c *core) Finish() {
	if n := len(c.full); n > 0 {
		if a := c.full[n-1].Author; a != AuthorLLM && a != AuthorInit {
			c.full = c.full[:n-1]
		}
	}
}

// newMessage builds a message whose tokens are computed from its own
// rendering; clip marks an environment observation to be clipped.
func (c *core) newMessage(author, role, content string, clip bool) (*ExtendedMessage, error) {
	m := &ExtendedMessage{
		Author:        author,
		Role:          role,
		Content:       content,
		FutureContent: futureContent(content, clip, c.cfg.MaxEnvTokens, c.countText),
		UUID:          newUUID(),
	}
	ids, err := c.enc.auto(m.Message())
	if err != nil {
		return nil, err
	}
	m.Tokens = ids
	return m, nil
}

// derive re-renders src with new content and author, remembering where it
// came from.
func (c *core) derive(src *ExtendedMessage, author, content string) (*ExtendedMessage, error) {
	m, err := c.newMessage(author, src.Role, content, false)
	if err != nil {
		return nil, err
	}
	m.BuildFromUUID = src.UUID
	return m, nil
}

// replay returns src, a recorded policy turn, as a later prompt shows it
// with content and author. When content is the turn's own text the
// replayed turn keeps its tokens: a policy that reports its ids
// (model.Policy) splices them back into any later prompt that holds its
// answer verbatim, generation-prompt tail included, so a re-tokenised
// replay would differ from what the policy saw wherever the sampled ids
// are not the canonical encoding of the text. Other content is re-rendered
// (derive), as in the reference.
func (c *core) replay(src *ExtendedMessage, author, content string) (*ExtendedMessage, error) {
	if content != src.Content || len(src.ToolCalls) > 0 || (src.Author != AuthorLLM && src.Author != AuthorLLMNoTrain) {
		return c.derive(src, author, content)
	}
	m := src.clone()
	m.Author, m.UUID, m.BuildFromUUID = author, newUUID(), src.UUID
	return m, nil
}

func (c *core) countText(s string) int { return len(c.cfg.Tokenizer.Encode(s)) }

// initMessages records the initial messages (reference save_init_input).
func (c *core) initMessages(msgs []agentevolver.Message) error {
	if len(c.full) > 0 {
		return fmt.Errorf("%w: Init called twice", ErrSequence)
	}
	msgs = append([]agentevolver.Message(nil), msgs...)
	if c.cfg.NoThink && len(msgs) > 0 {
		msgs[len(msgs)-1].Content += noThinkInit
	}
	for i := range msgs {
		// Tokens must match what later prompts render.
		msgs[i].Content = futureContent(msgs[i].Content, false, 0, nil)
	}
	tokens, err := c.enc.prefixTokens(msgs)
	if err != nil {
		return err
	}
	for i, msg := range msgs {
		c.full = append(c.full, &ExtendedMessage{
			Author:        AuthorInit,
			Role:          msg.Role,
			Content:       msg.Content,
			FutureContent: msg.Content,
			ToolCalls:     msg.ToolCalls,
			Tokens:        tokens[i],
			UUID:          newUUID(),
		})
	}
	return nil
}

// policyMessage builds the message of a policy completion of prompt. When
// the policy reported its token ids, they are spliced into the template
// rendering (reference replace_token_ids); otherwise the rendering is
// tokenised.
func (c *core) policyMessage(prompt []agentevolver.Message, out llm.Completion) (*ExtendedMessage, error) {
	role := out.Message.Role
	if role == "" {
		role = agentevolver.RoleAssistant
	}
	m := &ExtendedMessage{
		Author:        AuthorLLM,
		Role:          role,
		Content:       out.Message.Content,
		FutureContent: futureContent(out.Message.Content, false, 0, nil),
		ToolCalls:     out.Message.ToolCalls,
		UUID:          newUUID(),
	}
	if len(out.TokenIDs) == 0 {
		ids, err := c.enc.auto(m.Message())
		if err != nil {
			return nil, err
		}
		m.Tokens = ids
		// Without the sampled ids only the finish reason tells that the
		// rendering's end-of-turn token was not generated.
		m.Unclosed = out.FinishReason == "length"
		return m, nil
	}
	// [BUG/QUIRK] fixed: an empty reply is shown empty in later prompts,
	// not as EmptyContent. The sample holds the turn as sampled (header,
	// end-of-turn), so a later prompt that showed "(Empty Content)" would
	// condition the following turns on text the sample does not hold.
	m.FutureContent = out.Message.Content
	raw := agentevolver.Message{Role: role, Content: out.Message.Content, ToolCalls: out.Message.ToolCalls}
	texts := make([]string, 3)
	for i, r := range []struct {
		msgs []agentevolver.Message
		gen  bool
	}{{prompt, false}, {prompt, true}, {append(slices.Clone(prompt), raw), false}} {
		var err error
		if texts[i], err = c.enc.render(r.msgs, r.gen); err != nil {
			return nil, err
		}
	}
	base := c.cfg.Tokenizer.Encode(texts[0])
	// header: the generation prompt; placeholder: the reply as the template
	// renders it, header and tail included.
	header := c.cfg.Tokenizer.Encode(texts[1])
	header = header[commonPrefix(base, header):]
	placeholder := c.cfg.Tokenizer.Encode(texts[2])
	placeholder = placeholder[commonPrefix(base, placeholder):]
	if FindSublist(placeholder, header, false) < 0 {
		// Qwen3 with thinking disabled renders a reply that holds
		// "</think>" with its own think block instead of the generation
		// prompt's empty one, so the header is not in the rendering and
		// the reference's splice would keep a wrong head. The policy was
		// prompted with the header: the turn is the header, the sampled
		// ids and the rendering's tail from its last end-of-turn token.
		tail := pySliceFrom(placeholder, FindSublist(placeholder, []int{c.eos}, true))
		placeholder = append(slices.Clone(header), tail...)
	}
	sampled := out.TokenIDs
	var lp []float64
	if len(out.LogProbs) == len(sampled) {
		lp = out.LogProbs
	}
	if n := len(sampled); n > 0 && sampled[n-1] != c.eos && out.FinishReason != "length" {
		// [BUG/QUIRK] fixed: a final stop token other than the end-of-turn
		// one (<|endoftext|>) that the reply's text does not hold is
		// dropped. Later prompts render the text, closed by the template's
		// end-of-turn token, so they never show it (model.Policy's
		// included); the reference kept it, and later turns were trained
		// in a context the policy had not seen.
		if text, err := c.cfg.Tokenizer.Decode(sampled[:n-1]); err == nil && text == out.Message.Content {
			sampled = sampled[:n-1]
			if lp != nil {
				lp = lp[:n-1]
			}
		}
	}
	m.Tokens, m.LogProbs = replaceTokenIDs(placeholder, sampled, lp, header, []int{c.eos})
	// A reply that does not end on the end-of-turn token (cut at the length
	// limit, or ended on another stop token or a stop string) still gets
	// the template's end-of-turn token, so that the turn reads as later
	// prompts render it (the policy's next prompt closes the cut answer the
	// same way); but that token was not sampled and carries no loss.
	m.Unclosed = len(sampled) == 0 || sampled[len(sampled)-1] != c.eos
	return m, nil
}

// recordPolicy appends a policy turn and updates the madness record.
func (c *core) recordPolicy(m *ExtendedMessage) {
	c.full = append(c.full, m)
	c.penalty = min(c.penalty, RepetitionPenalty(m.Content))
}

// observation builds the message of an environment observation
// (reference save_env_output): always a user turn, clipped in later
// prompts.
func (c *core) observation(obs agentevolver.Message) (*ExtendedMessage, error) {
	content := obs.Content
	if content == "" {
		content = NoContentObservation
	}
	if c.cfg.NoThink {
		content += noThinkEnv
	}
	return c.newMessage(AuthorEnv, agentevolver.RoleUser, content, true)
}

// lastAuthored returns the last message by author, or nil.
func (c *core) lastAuthored(author string) *ExtendedMessage {
	for i := len(c.full) - 1; i >= 0; i-- {
		if c.full[i].Author == author {
			return c.full[i]
		}
	}
	return nil
}

// authored returns the messages whose author is one of authors, in order.
func (c *core) authored(authors ...string) []*ExtendedMessage {
	var out []*ExtendedMessage
	for _, m := range c.full {
		for _, a := range authors {
			if m.Author == a {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// checkFits fails with ErrContextFull when msgs, rendered as a prompt, do
// not leave room for a response.
func (c *core) checkFits(msgs []agentevolver.Message) error {
	n, err := c.enc.count(msgs)
	if err != nil {
		return err
	}
	if n >= c.cfg.maxContext() {
		return fmt.Errorf("%w: %d tokens, limit %d", ErrContextFull, n, c.cfg.maxContext())
	}
	return nil
}

// rawAction returns the latest policy turn as an assistant message with its
// raw content (reference prepare_world_interaction).
func (c *core) rawAction() (agentevolver.Message, error) {
	if n := len(c.full); n == 0 || c.full[n-1].Author != AuthorLLM {
		return agentevolver.Message{}, fmt.Errorf("%w: Action before a policy turn", ErrSequence)
	}
	m := c.full[len(c.full)-1]
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: m.Content, ToolCalls: m.ToolCalls}, nil
}

func messagesOf(ms []*ExtendedMessage) []agentevolver.Message {
	out := make([]agentevolver.Message, len(ms))
	for i, m := range ms {
		out[i] = m.Message()
	}
	return out
}
