package fleet

import (
	"errors"
	"testing"
)

// FuzzDecodeCompletion feeds arbitrary reply bodies to the decoder: it
// never panics, and what it accepts has one finite, non-positive
// log-probability per token id, every id inside the vocabulary, and a
// model name.
func FuzzDecodeCompletion(f *testing.F) {
	f.Add([]byte(`{"model": "m", "choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop",
		"logprobs": {"content": [{"token": "token_id:5", "logprob": -0.5}]}}]}`))
	f.Add([]byte(`{"model": "m", "choices": [{"message": {"content": null}, "logprobs": {"content": []}}]}`))
	f.Add([]byte(`{"model": "m", "choices": [{"message": {"content": [{"type": "text", "text": "a"}]}, "logprobs": {"content": [{"token": "token_id:99999999999", "logprob": -1}]}}]}`))
	f.Add([]byte(`{"object": "error", "message": "boom"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, model, err := decodeCompletion(body, 100)
		if err != nil {
			if !errors.Is(err, ErrMalformedResponse) {
				t.Fatalf("error %v is not ErrMalformedResponse", err)
			}
			return
		}
		if model == "" || len(c.TokenIDs) != len(c.LogProbs) {
			t.Fatalf("accepted model %q with %d ids and %d log-probs", model, len(c.TokenIDs), len(c.LogProbs))
		}
		for i, id := range c.TokenIDs {
			if id < 0 || id >= 100 || !(c.LogProbs[i] <= 0) {
				t.Fatalf("token %d: id %d, log-prob %v", i, id, c.LogProbs[i])
			}
		}
	})
}
