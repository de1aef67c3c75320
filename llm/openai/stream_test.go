package openai

import (
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

func streamClient(t *testing.T, s *scriptedServer) *Client {
	return newTestClient(t, s, func(c *Config) { c.Stream = true })
}

func TestStreamAssembly(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   llm.Completion
	}{
		{
			name: "content, token ids and usage",
			events: []string{
				chunkJSON(`{"role":"assistant","content":""}`, "", ""),
				chunkJSON(`{"content":"Hel"}`, "", `{"content":[{"token":"token_id:9707","logprob":-0.25,"bytes":[72,101,108],"top_logprobs":[]}]}`),
				chunkJSON(`{"content":"lo"}`, "", `{"content":[{"token":"token_id:385","logprob":-0.5,"bytes":[108,111],"top_logprobs":[]}]}`),
				chunkJSON(`{"content":""}`, "stop", `{"content":[{"token":"token_id:151645","logprob":-0.125,"bytes":[],"top_logprobs":[]}]}`),
				usageChunkJSON,
			},
			want: llm.Completion{
				Message:  agentevolver.Message{Role: "assistant", Content: "Hello"},
				TokenIDs: []int{9707, 385, 151645}, LogProbs: []float64{-0.25, -0.5, -0.125},
				FinishReason: "stop", PromptTokens: 12, CompletionTokens: 5, RequestID: "chatcmpl-stream1",
			},
		},
		{
			name: "tool calls split over chunks",
			events: []string{
				chunkJSON(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "", ""),
				chunkJSON(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`, "", ""),
				chunkJSON(`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`, "", ""),
				chunkJSON(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]}`, "", ""),
				chunkJSON(`{}`, "tool_calls", ""),
				usageChunkJSON,
			},
			want: llm.Completion{
				Message: agentevolver.Message{Role: "assistant", ToolCalls: []agentevolver.ToolCall{
					{ID: "call_a", Type: "function", Function: agentevolver.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
					{ID: "call_b", Type: "function", Function: agentevolver.FunctionCall{Name: "get_time", Arguments: `{}`}},
				}},
				FinishReason: "tool_calls", PromptTokens: 12, CompletionTokens: 5, RequestID: "chatcmpl-stream1",
			},
		},
		{
			name: "whole tool call with object arguments in one chunk, no usage",
			events: []string{
				chunkJSON(`{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"call_z","type":"function","function":{"name":"f","arguments":{"a":[1, 2]}}}]}`, "tool_calls", ""),
			},
			want: llm.Completion{
				Message: agentevolver.Message{Role: "assistant", ToolCalls: []agentevolver.ToolCall{
					{ID: "call_z", Type: "function", Function: agentevolver.FunctionCall{Name: "f", Arguments: `{"a":[1,2]}`}},
				}},
				FinishReason: "tool_calls", RequestID: "chatcmpl-stream1",
			},
		},
		{
			name: "DashScope reasoning deltas are not content",
			events: []string{
				chunkJSON(`{"role":"assistant","content":null,"reasoning_content":"Let me think."}`, "", ""),
				chunkJSON(`{"content":"42","reasoning_content":null}`, "", ""),
				chunkJSON(`{"content":""}`, "stop", ""),
			},
			want: llm.Completion{Message: agentevolver.Message{Role: "assistant", Content: "42"}, FinishReason: "stop", RequestID: "chatcmpl-stream1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, sseReply(true, tt.events...))
			got, err := streamClient(t, s).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{LogProbs: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestStreamRequestIDHeaderWins(t *testing.T) {
	s := newScriptedServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "hdr-1")
		sseReply(true, chunkJSON(`{"content":"x"}`, "stop", ""))(w, r)
	})
	got, err := streamClient(t, s).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
	if err != nil || got.RequestID != "hdr-1" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestStreamFailures(t *testing.T) {
	ok := sseReply(true, chunkJSON(`{"content":"fine"}`, "stop", ""))
	tests := []struct {
		name         string
		script       []http.HandlerFunc
		wantErr      error
		wantRequests int
	}{
		{
			name: "cut before a finish reason is retried",
			script: []http.HandlerFunc{
				sseReply(false, chunkJSON(`{"role":"assistant","content":"par"}`, "", "")),
				ok,
			},
			wantRequests: 2,
		},
		{
			name:         "503 before the stream is retried",
			script:       []http.HandlerFunc{jsonReply(503, `{"error":{"message":"busy"}}`), ok},
			wantRequests: 2,
		},
		{
			name: "DashScope moderation error event",
			script: []http.HandlerFunc{sseReply(false,
				chunkJSON(`{"content":"Once"}`, "", ""),
				`{"error":{"code":"data_inspection_failed","param":null,"message":"Output data may contain inappropriate content.","type":"data_inspection_failed"},"id":"chatcmpl-d","request_id":"r-1"}`,
			), ok},
			wantErr:      ErrContentFiltered,
			wantRequests: 1,
		},
		{
			name: "vLLM error chunk",
			script: []http.HandlerFunc{sseReply(true,
				`{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`,
			), ok},
			wantErr:      ErrContextLength,
			wantRequests: 1,
		},
		{
			name:         "finish_reason content_filter",
			script:       []http.HandlerFunc{sseReply(true, chunkJSON(`{"content":"Once"}`, "content_filter", "")), ok},
			wantErr:      ErrContentFiltered,
			wantRequests: 1,
		},
		{
			name: "refusal deltas",
			script: []http.HandlerFunc{sseReply(true,
				chunkJSON(`{"role":"assistant","content":null,"refusal":"I can't "}`, "", ""),
				chunkJSON(`{"refusal":"help with that."}`, "stop", ""),
			), ok},
			wantErr:      ErrRefused,
			wantRequests: 1,
		},
		{
			name:         "malformed chunk",
			script:       []http.HandlerFunc{sseReply(true, `{"id":"x","choices":[{"delta":`), ok},
			wantErr:      ErrMalformedResponse,
			wantRequests: 1,
		},
		{
			name:         "no chunks at all",
			script:       []http.HandlerFunc{sseReply(true), ok},
			wantErr:      ErrMalformedResponse,
			wantRequests: 1,
		},
		{
			name:         "hostile tool call index",
			script:       []http.HandlerFunc{sseReply(true, chunkJSON(`{"tool_calls":[{"index":100000000,"function":{"arguments":"x"}}]}`, "", "")), ok},
			wantErr:      ErrMalformedResponse,
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, tt.script...)
			got, err := streamClient(t, s).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			if s.count() != tt.wantRequests {
				t.Errorf("%d requests, want %d", s.count(), tt.wantRequests)
			}
			if tt.wantErr == nil {
				if err != nil || got.Message.Content != "fine" {
					t.Fatalf("got %+v, %v; want success", got, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestStreamRefusalText(t *testing.T) {
	s := newScriptedServer(t, sseReply(true,
		chunkJSON(`{"role":"assistant","refusal":"I can't "}`, "", ""),
		chunkJSON(`{"refusal":"help."}`, "stop", "")))
	_, err := streamClient(t, s).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
	var refusal *RefusalError
	if !errors.As(err, &refusal) || refusal.Refusal != "I can't help." {
		t.Fatalf("err = %v, want refusal text %q", err, "I can't help.")
	}
}
