package openai_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// vllmReply is what a vLLM server started with --served-model-name qwen
// answers when the request asks for log-probs with
// return_tokens_as_token_ids.
const vllmReply = `{"id":"chatcmpl-7f3a","object":"chat.completion","created":1733000000,"model":"qwen",
"choices":[{"index":0,"message":{"role":"assistant","content":"4","tool_calls":[]},
"logprobs":{"content":[{"token":"token_id:19","logprob":-0.0021,"bytes":[52],"top_logprobs":[]},
{"token":"token_id:151645","logprob":-0.0003,"bytes":[],"top_logprobs":[]}]},
"finish_reason":"stop","stop_reason":null}],
"usage":{"prompt_tokens":14,"total_tokens":16,"completion_tokens":2}}`

// Rollouts against a vLLM server get the sampled token ids and their
// log-probabilities with the answer.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, vllmReply)
	}))
	defer srv.Close()

	client, err := openai.New(openai.Config{
		BaseURL:        srv.URL + "/v1",
		Model:          "qwen",
		MaxConcurrency: 64,
		ExtraBody:      map[string]any{"return_tokens_as_token_ids": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var model llm.ChatModel = client

	c, err := model.Chat(context.Background(),
		[]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "2+2=?"}},
		llm.ChatOptions{Temperature: llm.Float(0.9), MaxTokens: 4096, LogProbs: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("content:", c.Message.Content)
	fmt.Println("token ids:", c.TokenIDs)
	fmt.Println("log-probs:", c.LogProbs)
	fmt.Println("finish:", c.FinishReason, "tokens:", c.PromptTokens, c.CompletionTokens)
	// Output:
	// content: 4
	// token ids: [19 151645]
	// log-probs: [-0.0021 -0.0003]
	// finish: stop tokens: 14 2
}

// Moderation refusals are typed errors, told apart with errors.Is and never
// retried.
func ExampleRefusalError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":"data_inspection_failed","param":null,`+
			`"message":"Output data may contain inappropriate content.","type":"data_inspection_failed"}}`)
	}))
	defer srv.Close()

	client, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "qwen-plus"})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Chat(context.Background(),
		[]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "..."}}, llm.ChatOptions{})

	var apiErr *openai.APIError
	fmt.Println("filtered:", errors.Is(err, openai.ErrContentFiltered))
	fmt.Println("rate limited:", errors.Is(err, openai.ErrRateLimited))
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}
	// Output:
	// filtered: true
	// rate limited: false
	// 400 data_inspection_failed
}

// Streaming assembles server-sent chunks into one completion.
func ExampleConfig_stream() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
	}))
	defer srv.Close()

	client, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "qwen3-30b-a3b-thinking-2507", Stream: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.Chat(context.Background(),
		[]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "greet"}}, llm.ChatOptions{})
	fmt.Println(c.Message.Content, c.FinishReason, c.CompletionTokens, err)
	// Output: Hello stop 2 <nil>
}

// An endpoint that keeps failing, here a vLLM server answering an engine
// error with status 200, is retried; once the retries are spent the error
// matches llm.ErrUnavailable, which a trainer takes for an outage to wait
// out, and still carries the server's error and the number of attempts.
func ExampleUnavailableError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"error","message":"engine dead","type":"InternalServerError","param":null,"code":500}`)
	}))
	defer srv.Close()

	client, err := openai.New(openai.Config{
		BaseURL:        srv.URL + "/v1",
		Model:          "qwen",
		MaxRetries:     2,
		RetryBaseDelay: time.Millisecond,
		CallTimeout:    time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Chat(context.Background(),
		[]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hi"}}, llm.ChatOptions{})

	var unavailable *openai.UnavailableError
	var apiErr *openai.APIError
	fmt.Println("outage:", errors.Is(err, llm.ErrUnavailable))
	fmt.Println("call timeout:", errors.Is(err, context.DeadlineExceeded))
	if errors.As(err, &unavailable) && errors.As(err, &apiErr) {
		fmt.Println("attempts:", unavailable.Attempts)
		fmt.Println("last:", apiErr.StatusCode, apiErr.InBody, apiErr.Message)
	}
	// Output:
	// outage: true
	// call timeout: false
	// attempts: 3
	// last: 500 true engine dead
}

// A refused connection (nothing listening at BaseURL) is a transport
// failure of its own kind, retried like the others.
func ExampleTransportError() {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // now nothing listens there

	client, err := openai.New(openai.Config{BaseURL: url + "/v1", Model: "qwen", MaxRetries: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Chat(context.Background(),
		[]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hi"}}, llm.ChatOptions{})
	fmt.Println("refused:", errors.Is(err, openai.ErrConnectionRefused))
	fmt.Println("transport:", errors.Is(err, openai.ErrTransport))
	fmt.Println("outage:", errors.Is(err, llm.ErrUnavailable))
	// Output:
	// refused: true
	// transport: true
	// outage: true
}

func ExampleParseTokenID() {
	for _, tok := range []string{"token_id:151645", "Hello"} {
		id, ok := openai.ParseTokenID(tok)
		fmt.Println(id, ok)
	}
	// Output:
	// 151645 true
	// 0 false
}
