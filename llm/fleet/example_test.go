package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/fleet"
)

// vllmLike is a minimal stand-in for a vLLM server with runtime LoRA
// loading: it loads any adapter and answers every chat request with two
// tokens, naming the model the request asked for.
func vllmLike() *httptest.Server {
	loaded := map[string]bool{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/load_lora_adapter":
			var req struct {
				Name string `json:"lora_name"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			loaded[req.Name] = true
		case "/v1/unload_lora_adapter":
		case "/v1/chat/completions":
			var req struct {
				Model string `json:"model"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			fmt.Fprintf(w, `{"model": %q, "choices": [{"message": {"role": "assistant", "content": "ok"},
				"finish_reason": "stop", "logprobs": {"content": [
				{"token": "token_id:1034", "logprob": -0.25}, {"token": "token_id:151645", "logprob": -0.01}]}}]}`, req.Model)
		default:
			http.NotFound(w, r)
		}
	}))
}

func Example() {
	a, b := vllmLike(), vllmLike()
	defer a.Close()
	defer b.Close()
	f, err := fleet.New(fleet.Config{BaseURLs: []string{a.URL + "/v1", b.URL + "/v1"}, Model: "Qwen2.5-0.5B-Instruct"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	// After each update: publish the new adapter (a PEFT directory the
	// servers can read); the following requests name it.
	if err := f.Publish(ctx, "run-step_000001", "/shared/adapters/step_000001"); err != nil {
		fmt.Println(err)
		return
	}
	c, err := f.Chat(ctx, []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hi"}}, llm.ChatOptions{MaxTokens: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Model(), c.Message.Content, c.TokenIDs, c.LogProbs)
	fmt.Println("in rotation:", f.Stats().InRotation)
	// Output:
	// run-step_000001 ok [1034 151645] [-0.25 -0.01]
	// in rotation: 2
}
