package openai

import (
	"net/http"
	"strings"
	"testing"

	"github.com/org/agentevolver/llm"
)

// BenchmarkChat measures the client's per-call cost against a local server
// answering a 256-token completion with log-probs and token ids.
func BenchmarkChat(b *testing.B) {
	const n = 256
	var lp strings.Builder
	for i := range n {
		if i > 0 {
			lp.WriteByte(',')
		}
		lp.WriteString(`{"token":"token_id:1234","logprob":-0.25,"bytes":[97],"top_logprobs":[]}`)
	}
	body := `{"id":"chatcmpl-b","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		strings.Repeat("a", n) + `"},"logprobs":{"content":[` + lp.String() + `]},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":256,"total_tokens":266}}`
	chunks := make([]string, 0, n)
	for i := range n {
		finish := ""
		if i == n-1 {
			finish = "stop"
		}
		chunks = append(chunks, chunkJSON(`{"content":"a"}`, finish, `{"content":[{"token":"token_id:1234","logprob":-0.25,"bytes":[97],"top_logprobs":[]}]}`))
	}
	for _, stream := range []bool{false, true} {
		name := "json"
		reply := jsonReply(http.StatusOK, body)
		if stream {
			name, reply = "stream", sseReply(true, chunks...)
		}
		b.Run(name, func(b *testing.B) {
			s := newScriptedServer(b, reply)
			c := newTestClient(b, s, func(c *Config) { c.Stream = stream })
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				got, err := c.Chat(ctx, userMessages("hi"), llm.ChatOptions{LogProbs: true})
				if err != nil || len(got.TokenIDs) != n {
					b.Fatalf("%v, %d ids", err, len(got.TokenIDs))
				}
			}
		})
	}
}
