package openai

import (
	"fmt"
	"maps"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// buildParams translates a conversation and its sampling options into a
// chat-completions request body.
//
// Mapping: Temperature nil is omitted (the server's default) and 0 is sent
// as 0 (greedy); TopP and MaxTokens are sent when positive; TopK, which is
// not an OpenAI field, is sent as the vendor field top_k (vLLM, DashScope)
// when positive; LogProbs sends logprobs=true with top_logprobs=0, the
// sampled token's log-probability only.
func (c *Client) buildParams(messages []agentevolver.Message, opts llm.ChatOptions) (oai.ChatCompletionNewParams, error) {
	msgs, err := toParams(messages)
	if err != nil {
		return oai.ChatCompletionNewParams{}, err
	}
	p := oai.ChatCompletionNewParams{Model: c.cfg.Model, Messages: msgs}
	if opts.Temperature != nil {
		p.Temperature = param.NewOpt(*opts.Temperature)
	}
	if opts.TopP > 0 {
		p.TopP = param.NewOpt(opts.TopP)
	}
	if opts.MaxTokens > 0 {
		if c.cfg.UseMaxCompletionTokens {
			p.MaxCompletionTokens = param.NewOpt(int64(opts.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(opts.MaxTokens))
		}
	}
	if len(opts.Stop) > 0 {
		p.Stop = oai.ChatCompletionNewParamsStopUnion{OfStringArray: opts.Stop}
	}
	if opts.Seed != nil {
		p.Seed = param.NewOpt(*opts.Seed)
	}
	if opts.LogProbs {
		p.Logprobs = param.NewOpt(true)
		p.TopLogprobs = param.NewOpt[int64](0)
	}
	if c.cfg.Stream {
		// The final chunk then carries the token counts.
		p.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	}
	extra := maps.Clone(c.cfg.ExtraBody)
	if opts.TopK > 0 {
		if extra == nil {
			extra = map[string]any{}
		}
		extra["top_k"] = opts.TopK
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, nil
}

// toParams converts SDK messages to request messages. System, developer,
// user, assistant (with tool calls) and tool roles are understood; any other
// role is an error rather than a silently dropped turn.
func toParams(messages []agentevolver.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	if len(messages) == 0 {
		return nil, fmt.Errorf("openai: no messages")
	}
	out := make([]oai.ChatCompletionMessageParamUnion, 0, len(messages))
	for i, m := range messages {
		var u oai.ChatCompletionMessageParamUnion
		switch m.Role {
		case agentevolver.RoleSystem:
			u.OfSystem = &oai.ChatCompletionSystemMessageParam{
				Content: oai.ChatCompletionSystemMessageParamContentUnion{OfString: param.NewOpt(m.Content)},
				Name:    optString(m.Name),
			}
		case "developer":
			u.OfDeveloper = &oai.ChatCompletionDeveloperMessageParam{
				Content: oai.ChatCompletionDeveloperMessageParamContentUnion{OfString: param.NewOpt(m.Content)},
				Name:    optString(m.Name),
			}
		case agentevolver.RoleUser:
			u.OfUser = &oai.ChatCompletionUserMessageParam{
				Content: oai.ChatCompletionUserMessageParamContentUnion{OfString: param.NewOpt(m.Content)},
				Name:    optString(m.Name),
			}
		case agentevolver.RoleAssistant:
			a := &oai.ChatCompletionAssistantMessageParam{Name: optString(m.Name)}
			// An assistant turn that only calls tools may have no text.
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content = oai.ChatCompletionAssistantMessageParamContentUnion{OfString: param.NewOpt(m.Content)}
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID: tc.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      tc.Function.Name,
							Arguments: tc.Function.Arguments,
						},
					},
				})
			}
			u.OfAssistant = a
		case agentevolver.RoleTool:
			u.OfTool = &oai.ChatCompletionToolMessageParam{
				Content:    oai.ChatCompletionToolMessageParamContentUnion{OfString: param.NewOpt(m.Content)},
				ToolCallID: m.ToolCallID,
			}
		default:
			return nil, fmt.Errorf("openai: message %d: unsupported role %q", i, m.Role)
		}
		out = append(out, u)
	}
	return out, nil
}

func optString(s string) param.Opt[string] {
	if s == "" {
		return param.Opt[string]{}
	}
	return param.NewOpt(s)
}
