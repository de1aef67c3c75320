package openai

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/org/agentevolver/internal/retry"
)

func FuzzParseTokenID(f *testing.F) {
	for _, s := range []string{"token_id:0", "token_id:151645", "token_id:", "token_id:-1", "token_id:99999999999", "Hello", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := ParseTokenID(s)
		if !ok {
			if id != 0 {
				t.Fatalf("ParseTokenID(%q) = %d with ok false", s, id)
			}
			return
		}
		if id < 0 || id > 1<<31-1 {
			t.Fatalf("ParseTokenID(%q) = %d out of range", s, id)
		}
		if s != TokenIDPrefix+strconv.Itoa(id) && !strings.HasPrefix(s, TokenIDPrefix+"0") {
			t.Fatalf("ParseTokenID(%q) = %d does not round-trip", s, id)
		}
	})
}

func FuzzParseErrorBody(f *testing.F) {
	seeds := []string{
		`{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		`{"object":"error","message":"bad","type":"BadRequestError","param":null,"code":400}`,
		`{"error":{"code":"data_inspection_failed","message":"Output data may contain inappropriate content."},"request_id":"r"}`,
		`{"code":"DataInspectionFailed","message":"Input data may contain inappropriate content."}`,
		`{"error":"model not found"}`,
		`{"detail":[{"msg":"field required"}]}`,
		`<html>502</html>`,
		``, `null`, `{"error":null}`, `{"error":[1,2]}`, "\xff\xfe",
		`{"error":{"message":"boom","code":500}}`,
		`{"error":{"message":"busy","type":"server_error","code":"503"}}`,
		`{"error":{"message":"x","type":"server_error","param":null,"code":null}}`,
		`{"error":{"message":"x","code":1e400}}`, `{"error":{"message":"x","code":-500}}`,
		`{"error":{"message":"x","code":"99999999999999999999"}}`,
	}
	for _, s := range seeds {
		f.Add(400, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := parseErrorBody(status, body)
		if e == nil || e.StatusCode != status {
			t.Fatalf("parseErrorBody returned %+v", e)
		}
		for _, s := range []string{e.Message, e.Type, e.Code, e.Param} {
			if len(s) > maxErrorMessage+len("…") {
				t.Fatalf("field of %d bytes kept", len(s))
			}
		}
		_ = e.Error()
		_ = errors.Is(e, ErrContentFiltered)
		_ = retryable(e)

		in := inBodyError(body)
		if !in.InBody || (in.StatusCode != 0 && (in.StatusCode < 400 || in.StatusCode > 599)) {
			t.Fatalf("inBodyError: status %d, in body %v", in.StatusCode, in.InBody)
		}
		_ = in.Error()
		_ = retryable(in)
	})
}

func FuzzDecodeCompletion(f *testing.F) {
	seeds := []string{
		completionJSON("hello", "stop"),
		completionJSON("x", "content_filter"),
		`{"id":"a","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hi"},"logprobs":{"content":[{"token":"token_id:5","logprob":-0.5}]}}]}`,
		`{"id":"a","choices":[{"index":0,"finish_reason":"tool_calls","message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"a":1}}}]}}]}`,
		`{"id":"a","choices":[{"index":0,"message":{"refusal":"no"}}]}`,
		`{"object":"error","message":"maximum context length","code":400}`,
		`{"error":{"message":"internal error","code":500}}`,
		`{"error":{"message":"overloaded","type":"server_error","code":"503"}}`,
		`{"choices":[]}`, `{"choices":"x"}`, `[]`, `null`, ``, `{`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := decodeCompletion(body)
		if err != nil {
			return
		}
		if c.TokenIDs != nil && len(c.TokenIDs) != len(c.LogProbs) {
			t.Fatalf("%d token ids for %d log-probs", len(c.TokenIDs), len(c.LogProbs))
		}
		if c.Message.Role == "" {
			t.Fatal("completion without a role")
		}
	})
}

// FuzzReadStream feeds arbitrary bytes through the SDK's SSE decoder and the
// stream assembler.
func FuzzReadStream(f *testing.F) {
	seeds := []string{
		"data: " + chunkJSON(`{"role":"assistant","content":"Hi"}`, "", `{"content":[{"token":"token_id:1","logprob":-1}]}`) + "\n\n" +
			"data: " + chunkJSON(`{"content":"!"}`, "stop", `{"content":[{"token":"token_id:2","logprob":-2}]}`) + "\n\n" +
			"data: " + usageChunkJSON + "\n\ndata: [DONE]\n\n",
		"data: " + chunkJSON(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}`, "", "") + "\n\n" +
			"data: " + chunkJSON(`{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`, "tool_calls", "") + "\n\ndata: [DONE]\n\n",
		"data: {\"error\":{\"code\":\"data_inspection_failed\",\"message\":\"inappropriate content\"}}\n\n",
		"data: {\"object\":\"error\",\"message\":\"boom\",\"code\":500}\n\n",
		"data: " + chunkJSON(`{"content":"Once"}`, "", "") + "\n\ndata: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\",\"code\":\"503\"}}\n\n",
		"data: {\"error\":{\"message\":\"bad\",\"code\":400}}\n\n",
		"data: " + strings.Repeat("x", 1<<17) + "\n\n",
		": keep-alive\n\nevent: ping\ndata: {}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n",
		"data: {", "",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res := &http.Response{
			StatusCode: 200,
			Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
			Body:       &limitedBody{ReadCloser: io.NopCloser(bytes.NewReader(body)), remaining: 1 << 16},
		}
		c, err := readStream(ssestream.NewStream[oai.ChatCompletionChunk](ssestream.NewDecoder(res), nil))
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) && !apiErr.InBody {
				t.Fatalf("stream error %v not marked as in the body", err)
			}
			return
		}
		if c.FinishReason == "" {
			t.Fatal("completion without a finish reason")
		}
		if len(c.Message.ToolCalls) > maxStreamToolCalls {
			t.Fatalf("%d tool calls", len(c.Message.ToolCalls))
		}
		if c.TokenIDs != nil && len(c.TokenIDs) != len(c.LogProbs) {
			t.Fatalf("%d token ids for %d log-probs", len(c.TokenIDs), len(c.LogProbs))
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0.5", "-1", "NaN", "+Inf", "1e300", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", ""} {
		f.Add(s, "")
		f.Add("", s)
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retryAfter, retryAfterMs string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("Retry-After-Ms", retryAfterMs)
		d := parseRetryAfter(h, now)
		if d < 0 || d > retry.MaxRetryAfter {
			t.Fatalf("parseRetryAfter(%q, %q) = %v", retryAfter, retryAfterMs, d)
		}
		if w := backoff(3, time.Millisecond, time.Second, d); w < 0 || w > time.Second {
			t.Fatalf("backoff with hint %v = %v", d, w)
		}
	})
}
