package openai

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

func TestNewRequiresModel(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New without a model succeeded")
	}
}

func TestChatRequestBody(t *testing.T) {
	seed := int64(7)
	tests := []struct {
		name   string
		cfg    func(*Config)
		opts   llm.ChatOptions
		want   map[string]any
		absent []string
	}{
		{
			name:   "defaults omit sampling fields",
			want:   map[string]any{"model": "qwen2.5-7b-instruct"},
			absent: []string{"temperature", "top_p", "top_k", "max_tokens", "max_completion_tokens", "stop", "seed", "logprobs", "top_logprobs", "stream", "stream_options"},
		},
		{
			name: "greedy temperature is sent as 0",
			opts: llm.ChatOptions{Temperature: llm.Float(0)},
			want: map[string]any{"temperature": 0.0},
		},
		{
			name: "all sampling options",
			opts: llm.ChatOptions{Temperature: llm.Float(0.9), TopP: 0.95, TopK: 20, MaxTokens: 4096, Stop: []string{"</s>", "\n\n"}, Seed: &seed, LogProbs: true},
			want: map[string]any{
				"temperature": 0.9, "top_p": 0.95, "top_k": 20.0, "max_tokens": 4096.0,
				"stop": []any{"</s>", "\n\n"}, "seed": 7.0, "logprobs": true, "top_logprobs": 0.0,
			},
			absent: []string{"max_completion_tokens"},
		},
		{
			name:   "max_completion_tokens when configured",
			cfg:    func(c *Config) { c.UseMaxCompletionTokens = true },
			opts:   llm.ChatOptions{MaxTokens: 256},
			want:   map[string]any{"max_completion_tokens": 256.0},
			absent: []string{"max_tokens"},
		},
		{
			name: "extra body fields, per-request top_k wins",
			cfg: func(c *Config) {
				c.ExtraBody = map[string]any{"return_tokens_as_token_ids": true, "top_k": 5, "chat_template_kwargs": map[string]any{"enable_thinking": false}}
			},
			opts: llm.ChatOptions{TopK: 50},
			want: map[string]any{"return_tokens_as_token_ids": true, "top_k": 50.0, "chat_template_kwargs": map[string]any{"enable_thinking": false}},
		},
		{
			name: "extra body top_k kept without a per-request one",
			cfg:  func(c *Config) { c.ExtraBody = map[string]any{"top_k": 5} },
			want: map[string]any{"top_k": 5.0},
		},
		{
			name: "streaming asks for usage",
			cfg:  func(c *Config) { c.Stream = true },
			want: map[string]any{"stream": true, "stream_options": map[string]any{"include_usage": true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := jsonReply(http.StatusOK, completionJSON("ok", "stop"))
			if strings.Contains(tt.name, "stream") {
				reply = sseReply(true, chunkJSON(`{"role":"assistant","content":"ok"}`, "stop", ""))
			}
			s := newScriptedServer(t, reply)
			c := newTestClient(t, s, tt.cfg)
			if _, err := c.Chat(testContext(t), userMessages("hi"), tt.opts); err != nil {
				t.Fatal(err)
			}
			body := s.body(0)
			for k, v := range tt.want {
				if !reflect.DeepEqual(body[k], v) {
					t.Errorf("body[%q] = %#v, want %#v", k, body[k], v)
				}
			}
			for _, k := range tt.absent {
				if v, ok := body[k]; ok {
					t.Errorf("body has %q = %#v, want it absent", k, v)
				}
			}
			if got := s.headers[0].Get("Authorization"); got != "Bearer test-key" {
				t.Errorf("Authorization = %q", got)
			}
		})
	}
}

func TestChatMessagesWireFormat(t *testing.T) {
	s := newScriptedServer(t, jsonReply(http.StatusOK, completionJSON("done", "stop")))
	c := newTestClient(t, s, nil)
	messages := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "be brief"},
		{Role: agentevolver.RoleUser, Content: "weather?", Name: "alice"},
		{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{{ID: "call_1", Type: "function", Function: agentevolver.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: agentevolver.RoleTool, Content: "sunny", ToolCallID: "call_1"},
		{Role: agentevolver.RoleAssistant, Content: "It is sunny."},
	}
	if _, err := c.Chat(testContext(t), messages, llm.ChatOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "user", "content": "weather?", "name": "alice"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`},
		}}},
		map[string]any{"role": "tool", "content": "sunny", "tool_call_id": "call_1"},
		map[string]any{"role": "assistant", "content": "It is sunny."},
	}
	if got := s.body(0)["messages"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("messages =\n%#v\nwant\n%#v", got, want)
	}
}

func TestChatRejectsBadMessages(t *testing.T) {
	s := newScriptedServer(t, jsonReply(http.StatusOK, completionJSON("x", "stop")))
	c := newTestClient(t, s, nil)
	for _, msgs := range [][]agentevolver.Message{nil, {{Role: "narrator", Content: "x"}}} {
		if _, err := c.Chat(testContext(t), msgs, llm.ChatOptions{}); err == nil {
			t.Errorf("Chat(%v) succeeded", msgs)
		}
	}
	if s.count() != 0 {
		t.Fatalf("%d requests sent for invalid input", s.count())
	}
}

func TestChatSuccess(t *testing.T) {
	s := newScriptedServer(t, jsonReply(http.StatusOK, completionJSON("Hello there.", "stop"), "X-Request-Id", "req-42"))
	c := newTestClient(t, s, nil)
	got, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Completion{
		Message:      agentevolver.Message{Role: "assistant", Content: "Hello there."},
		FinishReason: "stop", PromptTokens: 21, CompletionTokens: 8, RequestID: "req-42",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestChatResponseShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		want llm.Completion
	}{
		{
			name: "tool calls with string and object arguments, null content",
			body: `{"id":"chatcmpl-t","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` +
				`{"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},` +
				`{"id":"call_b","type":"function","function":{"name":"g","arguments":{"y": [1, 2]}}}]}}]}`,
			want: llm.Completion{
				Message: agentevolver.Message{Role: "assistant", ToolCalls: []agentevolver.ToolCall{
					{ID: "call_a", Type: "function", Function: agentevolver.FunctionCall{Name: "f", Arguments: `{"x":1}`}},
					{ID: "call_b", Type: "function", Function: agentevolver.FunctionCall{Name: "g", Arguments: `{"y":[1,2]}`}},
				}},
				FinishReason: "tool_calls", RequestID: "chatcmpl-t",
			},
		},
		{
			name: "content as a list of parts, missing role and usage",
			body: `{"id":"chatcmpl-p","choices":[{"index":0,"finish_reason":"length","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`,
			want: llm.Completion{Message: agentevolver.Message{Role: "assistant", Content: "ab"}, FinishReason: "length", RequestID: "chatcmpl-p"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, jsonReply(http.StatusOK, tt.body))
			got, err := newTestClient(t, s, nil).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestChatLogProbs(t *testing.T) {
	const head = `{"id":"chatcmpl-lp","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop","logprobs":`
	const tail = `}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	tests := []struct {
		name     string
		logprobs string
		wantIDs  []int
		wantLP   []float64
		wantErr  error
	}{
		{
			name:     "vLLM token ids",
			logprobs: `{"content":[{"token":"token_id:13048","logprob":-0.0123,"bytes":[72,105],"top_logprobs":[]},{"token":"token_id:0","logprob":-9999.0,"bytes":[33],"top_logprobs":[]}]}`,
			wantIDs:  []int{13048, 0},
			wantLP:   []float64{-0.0123, -9999.0},
		},
		{
			name:     "plain tokens keep log-probs only",
			logprobs: `{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]},{"token":"!","logprob":0,"bytes":[33],"top_logprobs":[]}],"refusal":null}`,
			wantLP:   []float64{-0.5, 0},
		},
		{
			name:     "mixed tokens give no ids",
			logprobs: `{"content":[{"token":"token_id:1","logprob":-1},{"token":"token_id:x","logprob":-2}]}`,
			wantLP:   []float64{-1, -2},
		},
		{
			name:     "null logprobs",
			logprobs: `null`,
		},
		{
			name:     "non-numeric log-prob is malformed",
			logprobs: `{"content":[{"token":"token_id:1","logprob":"very likely"}]}`,
			wantErr:  ErrMalformedResponse,
		},
		{
			name:     "missing log-prob is malformed",
			logprobs: `{"content":[{"token":"token_id:1"}]}`,
			wantErr:  ErrMalformedResponse,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, jsonReply(http.StatusOK, head+tt.logprobs+tail))
			got, err := newTestClient(t, s, nil).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{LogProbs: true})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got.TokenIDs, tt.wantIDs) || !reflect.DeepEqual(got.LogProbs, tt.wantLP) {
				t.Fatalf("ids %v logprobs %v, want %v %v", got.TokenIDs, got.LogProbs, tt.wantIDs, tt.wantLP)
			}
			if s.count() != 1 {
				t.Fatalf("%d requests, want 1", s.count())
			}
		})
	}
}

func TestChatRetries(t *testing.T) {
	ok := jsonReply(http.StatusOK, completionJSON("fine", "stop"))
	rateLimited := jsonReply(http.StatusTooManyRequests,
		`{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "Retry-After", "0.004")
	tests := []struct {
		name         string
		maxRetries   int
		script       []http.HandlerFunc
		wantRequests int
		wantErr      []error
		wantStatus   int
	}{
		{name: "429 then success", script: []http.HandlerFunc{rateLimited, ok}, wantRequests: 2},
		{name: "500 and 503 then success", script: []http.HandlerFunc{
			jsonReply(500, `{"error":{"message":"internal","type":"server_error","code":null}}`),
			jsonReply(503, `<html><body>upstream unavailable</body></html>`),
			ok,
		}, wantRequests: 3},
		{name: "502 with vLLM error shape then success", script: []http.HandlerFunc{
			jsonReply(502, `{"object":"error","message":"bad gateway","type":"InternalServerError","param":null,"code":502}`), ok,
		}, wantRequests: 2},
		{name: "dropped connection then success", script: []http.HandlerFunc{dropConnection, ok}, wantRequests: 2},
		{name: "408 then success", script: []http.HandlerFunc{jsonReply(408, `{}`), ok}, wantRequests: 2},
		{name: "rate limit exhausted", maxRetries: 2, script: []http.HandlerFunc{rateLimited}, wantRequests: 3, wantErr: []error{ErrRateLimited}, wantStatus: 429},
		{name: "5xx exhausted", maxRetries: 1, script: []http.HandlerFunc{jsonReply(503, `{"error":{"message":"overloaded"}}`)}, wantRequests: 2, wantStatus: 503},
		{name: "no retries configured", maxRetries: -1, script: []http.HandlerFunc{jsonReply(500, `{}`), ok}, wantRequests: 1, wantStatus: 500},
		{name: "insufficient quota is final", script: []http.HandlerFunc{
			jsonReply(429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`), ok,
		}, wantRequests: 1, wantErr: []error{ErrRateLimited}, wantStatus: 429},
		{name: "x-should-retry false is final", script: []http.HandlerFunc{jsonReply(503, `{}`, "X-Should-Retry", "false"), ok}, wantRequests: 1, wantStatus: 503},
		{name: "x-should-retry true retries a 400", script: []http.HandlerFunc{jsonReply(400, `{}`, "X-Should-Retry", "true"), ok}, wantRequests: 2},
		{name: "400 is final", script: []http.HandlerFunc{
			jsonReply(400, `{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`), ok,
		}, wantRequests: 1, wantStatus: 400},
		{name: "401 is final", script: []http.HandlerFunc{jsonReply(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`), ok}, wantRequests: 1, wantStatus: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, tt.script...)
			c := newTestClient(t, s, func(c *Config) { c.MaxRetries = tt.maxRetries })
			got, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			if s.count() != tt.wantRequests {
				t.Errorf("%d requests, want %d", s.count(), tt.wantRequests)
			}
			if tt.wantStatus == 0 {
				if err != nil || got.Message.Content != "fine" {
					t.Fatalf("got %+v, %v; want success", got, err)
				}
				return
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus {
				t.Fatalf("err = %v, want an APIError with status %d", err, tt.wantStatus)
			}
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("errors.Is(%v, %v) = false", err, want)
				}
			}
		})
	}
}

func TestChatHonoursRetryAfter(t *testing.T) {
	s := newScriptedServer(t,
		jsonReply(429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`, "Retry-After", "2"),
		jsonReply(503, `{}`, "Retry-After-Ms", "1500"),
		jsonReply(503, `{}`),
		jsonReply(http.StatusOK, completionJSON("ok", "stop")))
	c := newTestClient(t, s, func(c *Config) {
		c.RetryBaseDelay = 10 * time.Millisecond
		c.RetryMaxDelay = time.Minute
	})
	var waits []time.Duration
	c.wait = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	if _, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 3 {
		t.Fatalf("waits = %v, want 3", waits)
	}
	if waits[0] < 2*time.Second || waits[1] < 1500*time.Millisecond {
		t.Errorf("waits %v ignore Retry-After (2s) and retry-after-ms (1.5s)", waits)
	}
	// Without a hint: base 10ms doubled twice, jittered into [20ms, 40ms].
	if waits[2] < 20*time.Millisecond || waits[2] > 40*time.Millisecond {
		t.Errorf("third wait %v outside [20ms, 40ms]", waits[2])
	}
}

func TestChatTimeout(t *testing.T) {
	t.Run("exhausted", func(t *testing.T) {
		s := newScriptedServer(t, hang)
		c := newTestClient(t, s, func(c *Config) { c.RequestTimeout = 30 * time.Millisecond; c.MaxRetries = 1 })
		_, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v claims the caller's deadline passed", err)
		}
		if s.count() != 2 {
			t.Fatalf("%d requests, want 2", s.count())
		}
	})
	t.Run("retried then success", func(t *testing.T) {
		s := newScriptedServer(t, hang, jsonReply(http.StatusOK, completionJSON("late", "stop")))
		c := newTestClient(t, s, func(c *Config) { c.RequestTimeout = 30 * time.Millisecond })
		got, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
		if err != nil || got.Message.Content != "late" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("stalled stream", func(t *testing.T) {
		stall := func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: " + chunkJSON(`{"role":"assistant","content":"par"}`, "", "") + "\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
		s := newScriptedServer(t, stall)
		c := newTestClient(t, s, func(c *Config) { c.Stream = true; c.RequestTimeout = 30 * time.Millisecond; c.MaxRetries = -1 })
		if _, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{}); !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
	})
	t.Run("server 504", func(t *testing.T) {
		s := newScriptedServer(t, jsonReply(504, `{"error":{"message":"gateway timeout"}}`))
		c := newTestClient(t, s, func(c *Config) { c.MaxRetries = 1 })
		if _, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{}); !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
	})
}

func TestChatCancelDuringBackoff(t *testing.T) {
	s := newScriptedServer(t, jsonReply(503, `{"error":{"message":"overloaded"}}`))
	c := newTestClient(t, s, func(c *Config) {
		c.RetryBaseDelay = time.Hour
		c.RetryMaxDelay = time.Hour
		c.CallTimeout = -1 // else the hour-long wait would end the call at once
	})
	ctx, cancel := context.WithCancel(testContext(t))
	waiting := make(chan struct{})
	c.wait = func(ctx context.Context, d time.Duration) error {
		close(waiting)
		return retry.Sleep(ctx, d)
	}
	go func() {
		<-waiting
		cancel()
	}()
	_, err := c.Chat(ctx, userMessages("hi"), llm.ChatOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "503") {
		t.Errorf("err %q does not mention the last failure", err)
	}
	if s.count() != 1 {
		t.Fatalf("%d requests, want 1", s.count())
	}
}

func TestChatCancelInFlight(t *testing.T) {
	started := make(chan struct{})
	s := newScriptedServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		hang(w, r)
	})
	c := newTestClient(t, s, nil)
	ctx, cancel := context.WithCancel(testContext(t))
	go func() {
		<-started
		cancel()
	}()
	if _, err := c.Chat(ctx, userMessages("hi"), llm.ChatOptions{}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want context.Canceled only", err)
	}
	if s.count() != 1 {
		t.Fatalf("%d requests, want 1 (cancellation is not retried)", s.count())
	}
}

func TestChatRefusals(t *testing.T) {
	tests := []struct {
		name        string
		reply       http.HandlerFunc
		wantErr     error
		wantRefusal string
	}{
		{
			name:    "finish_reason content_filter",
			reply:   jsonReply(200, completionJSON("I can", "content_filter")),
			wantErr: ErrContentFiltered,
		},
		{
			name: "Azure content_filter error",
			reply: jsonReply(400, `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,`+
				`"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":true,"severity":"high"}}}}}`),
			wantErr: ErrContentFiltered,
		},
		{
			name:    "DashScope data_inspection_failed",
			reply:   jsonReply(400, `{"error":{"code":"data_inspection_failed","param":null,"message":"Output data may contain inappropriate content.","type":"data_inspection_failed"},"id":"chatcmpl-x","request_id":"5a1b"}`),
			wantErr: ErrContentFiltered,
		},
		{
			name:    "DashScope native shape",
			reply:   jsonReply(400, `{"code":"DataInspectionFailed","message":"Input data may contain inappropriate content.","request_id":"5a1c"}`),
			wantErr: ErrContentFiltered,
		},
		{
			name: "message.refusal",
			reply: jsonReply(200, `{"id":"chatcmpl-r","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop",`+
				`"message":{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}}]}`),
			wantErr:     ErrRefused,
			wantRefusal: "I'm sorry, I can't help with that.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, tt.reply, jsonReply(200, completionJSON("retried", "stop")))
			_, err := newTestClient(t, s, nil).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if s.count() != 1 {
				t.Fatalf("%d requests: a refusal was retried", s.count())
			}
			var refusal *RefusalError
			if errors.As(err, &refusal) && refusal.Refusal != tt.wantRefusal {
				t.Errorf("refusal text %q, want %q", refusal.Refusal, tt.wantRefusal)
			}
			if errors.Is(err, ErrRateLimited) || errors.Is(err, ErrContextLength) {
				t.Errorf("err %v matches unrelated sentinels", err)
			}
		})
	}
}

func TestChatContentFilterKeepsPartialCompletion(t *testing.T) {
	s := newScriptedServer(t, jsonReply(200, completionJSON("Once upon", "content_filter"), "X-Request-Id", "rq-9"))
	_, err := newTestClient(t, s, nil).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
	var refusal *RefusalError
	if !errors.As(err, &refusal) {
		t.Fatalf("err = %v, want *RefusalError", err)
	}
	if refusal.Completion.Message.Content != "Once upon" || refusal.Completion.RequestID != "rq-9" {
		t.Fatalf("partial completion %+v", refusal.Completion)
	}
}

func TestChatContextLength(t *testing.T) {
	tests := []struct {
		name  string
		reply http.HandlerFunc
	}{
		{"OpenAI code", jsonReply(400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)},
		{"vLLM top-level error", jsonReply(400, `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33010 tokens (29010 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`)},
		{"vLLM v1 wrapped error", jsonReply(400, `{"error":{"message":"The decoder prompt (length 40000) is longer than the maximum model length of 32768.","type":"BadRequestError","param":null,"code":400}}`)},
		{"DashScope input range", jsonReply(400, `{"error":{"message":"<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]","type":"invalid_request_error","param":null,"code":"invalid_parameter_error"}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, tt.reply)
			_, err := newTestClient(t, s, nil).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			if !errors.Is(err, ErrContextLength) {
				t.Fatalf("err = %v, want ErrContextLength", err)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message == "" {
				t.Fatalf("err = %#v, want a 400 APIError with a message", err)
			}
			if s.count() != 1 {
				t.Fatalf("%d requests, want 1", s.count())
			}
		})
	}
}

func TestChatMalformed(t *testing.T) {
	tests := []struct {
		name    string
		reply   http.HandlerFunc
		cfg     func(*Config)
		wantErr error
	}{
		{"invalid JSON", jsonReply(200, `{"id":"x","choices":[{"index":0,`), nil, ErrMalformedResponse},
		{"empty body", jsonReply(200, ``), nil, ErrMalformedResponse},
		{"empty choices", jsonReply(200, `{"id":"x","object":"chat.completion","choices":[]}`), nil, ErrMalformedResponse},
		{"choices of the wrong type", jsonReply(200, `{"id":"x","choices":"none"}`), nil, ErrMalformedResponse},
		{"HTML with status 200", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>captive portal</html>"))
		}, nil, ErrMalformedResponse},
		{"too large", jsonReply(200, completionJSON(strings.Repeat("x", 4096), "stop")), func(c *Config) { c.MaxResponseBytes = 1024 }, ErrResponseTooLarge},
		{"too large stream", sseReply(true, chunkJSON(`{"content":"`+strings.Repeat("x", 4096)+`"}`, "stop", "")), func(c *Config) { c.MaxResponseBytes = 1024; c.Stream = true }, ErrResponseTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, tt.reply, jsonReply(200, completionJSON("retried", "stop")))
			_, err := newTestClient(t, s, tt.cfg).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if s.count() != 1 {
				t.Fatalf("%d requests, want 1", s.count())
			}
		})
	}
}

func TestChatErrorWithStatus200(t *testing.T) {
	s := newScriptedServer(t, jsonReply(200, `{"object":"error","message":"This model's maximum context length is 2048 tokens.","type":"BadRequestError","code":400}`))
	_, err := newTestClient(t, s, nil).Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
	if !errors.Is(err, ErrContextLength) {
		t.Fatalf("err = %v, want ErrContextLength", err)
	}
}

func TestChatConcurrencyLimit(t *testing.T) {
	const limit, calls = 2, 6
	var mu sync.Mutex
	inFlight, peak := 0, 0
	reached := make(chan struct{}, calls)
	gate := make(chan struct{})
	s := newScriptedServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		if inFlight == limit {
			reached <- struct{}{}
		}
		mu.Unlock()
		<-gate
		mu.Lock()
		inFlight--
		mu.Unlock()
		jsonReply(200, completionJSON("ok", "stop"))(w, r)
	})
	c := newTestClient(t, s, func(c *Config) { c.MaxConcurrency = limit })
	ctx := testContext(t)
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			_, err := c.Chat(ctx, userMessages("hi"), llm.ChatOptions{})
			errs <- err
		})
	}
	select {
	case <-reached:
	case <-ctx.Done():
		t.Fatal("the limit was never reached")
	}
	// Give excess requests (if the limit leaked) a chance to arrive.
	time.Sleep(20 * time.Millisecond)
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if peak != limit {
		t.Fatalf("peak in-flight requests %d, want %d", peak, limit)
	}
	if s.count() != calls {
		t.Fatalf("%d requests, want %d", s.count(), calls)
	}
}

func TestChatWaitForSlotHonoursContext(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	s := newScriptedServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		jsonReply(200, completionJSON("ok", "stop"))(w, r)
	})
	c := newTestClient(t, s, func(c *Config) { c.MaxConcurrency = 1 })
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(testContext(t), userMessages("first"), llm.ChatOptions{})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	if _, err := c.Chat(ctx, userMessages("second"), llm.ChatOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.count() != 1 {
		t.Fatalf("%d requests, want 1", s.count())
	}
}

func TestChatConnectionErrors(t *testing.T) {
	closed := newScriptedServer(t, hang)
	closedURL := closed.URL
	closed.Close()
	tests := []struct {
		name      string
		baseURL   string
		wantWaits int
	}{
		{"connection refused is retried", closedURL + "/v1", 2},
		{"unsupported scheme is final", "gopher://localhost/v1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Config{BaseURL: tt.baseURL, Model: "m", MaxRetries: 2})
			if err != nil {
				t.Fatal(err)
			}
			waits := 0
			c.wait = func(context.Context, time.Duration) error { waits++; return nil }
			if _, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{}); err == nil {
				t.Fatal("Chat succeeded without a server")
			}
			if waits != tt.wantWaits {
				t.Fatalf("%d retries, want %d", waits, tt.wantWaits)
			}
		})
	}
}
