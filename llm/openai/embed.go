package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// EmbedOptions are the settings of one Embed call.
type EmbedOptions struct {
	// Dimension, when positive, is the length every returned vector must
	// have; another length is ErrMalformedResponse.
	Dimension int
	// SendDimension also sends Dimension as the request's "dimensions"
	// field, which shortens the output of models that support it
	// (text-embedding-3-*, DashScope text-embedding-v3/v4, Matryoshka
	// models on vLLM). Other models reject the field.
	SendDimension bool
}

// Embed asks the /embeddings endpoint for the vectors of texts with
// Config.Model, in one request, and returns them in the order of texts.
// texts must not be empty, nor hold an empty text (servers reject them).
//
// The request goes through the same stack as Chat: Config.MaxConcurrency,
// RequestTimeout, CallTimeout, MaxRetries with their backoff, and
// MaxResponseBytes apply, and a failure is typed as Chat's is (an
// *UnavailableError once transient failures used up the retries, an
// *APIError, ErrResponseTooLarge, the context's error). The answer is
// untrusted: a missing, repeated or out-of-range index, a vector of the
// wrong length (EmbedOptions.Dimension) and a non-finite value are
// ErrMalformedResponse. A server that sends base64 despite
// encoding_format "float" is understood. Config's chat settings
// (ExtraBody, Stream, UseMaxCompletionTokens) do not apply.
func (c *Client) Embed(ctx context.Context, texts []string, opts EmbedOptions) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, errors.New("openai: Embed needs at least one text")
	}
	params := oai.EmbeddingNewParams{
		Model:          c.cfg.Model,
		Input:          oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: oai.EmbeddingNewParamsEncodingFormatFloat,
	}
	if opts.SendDimension && opts.Dimension > 0 {
		params.Dimensions = oai.Int(int64(opts.Dimension))
	}
	return retrying(ctx, c, "embeddings request", func(ctx context.Context) ([][]float32, error) {
		start := time.Now()
		var vecs [][]float32
		requestID, err := c.send(ctx, func(ctx context.Context, reqOpts []option.RequestOption) error {
			var body []byte
			reqOpts = append(reqOpts, option.WithResponseBodyInto(&body))
			_, err := c.sdk.Embeddings.New(ctx, params, reqOpts...)
			if err == nil {
				vecs, err = decodeEmbeddings(body, len(texts), opts.Dimension)
			}
			return err
		})
		c.logger.DebugContext(ctx, "openai: embeddings attempt", "model", c.cfg.Model, "texts", len(texts),
			"duration", time.Since(start), "request_id", requestID, "err", err)
		return vecs, err
	})
}

// decodeEmbeddings parses an /embeddings response body for want texts of
// dimension dim (any when dim <= 0). The body is untrusted: everything is
// checked. An embedding may be a list of numbers or, should a server
// ignore encoding_format, base64 of little-endian float32s.
func decodeEmbeddings(body []byte, want, dim int) ([][]float32, error) {
	var resp struct {
		Data []struct {
			Embedding json.RawMessage `json:"embedding"`
			Index     *int            `json:"index"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("%w: embeddings: %v", ErrMalformedResponse, err)
	}
	if resp.Data == nil {
		// Some servers answer an error with status 200.
		if apiErr := errorInBody(body); apiErr != nil {
			return nil, apiErr
		}
	}
	if len(resp.Data) != want {
		return nil, fmt.Errorf("%w: embeddings: %d vectors for %d inputs", ErrMalformedResponse, len(resp.Data), want)
	}
	out := make([][]float32, want)
	for j, d := range resp.Data {
		i := j
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= want || out[i] != nil {
			return nil, fmt.Errorf("%w: embeddings: bad or repeated index %d", ErrMalformedResponse, i)
		}
		v, err := decodeEmbedding(d.Embedding, dim)
		if err != nil {
			return nil, fmt.Errorf("%w: embeddings: input %d: %v", ErrMalformedResponse, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// decodeEmbedding parses one embedding, a JSON list of numbers or a base64
// string, of dimension dim (any when dim <= 0) with finite values.
func decodeEmbedding(raw json.RawMessage, dim int) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	var v []float32
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("base64 embedding: %v", err)
		}
		switch {
		case len(b)%4 != 0:
			return nil, fmt.Errorf("base64 embedding of %d bytes, not float32s", len(b))
		case dim > 0 && len(b) != 4*dim:
			return nil, fmt.Errorf("dimension %d, want %d", len(b)/4, dim)
		}
		v = make([]float32, len(b)/4)
		for k := range v {
			v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
		}
	} else {
		var f []float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, err
		}
		if dim > 0 && len(f) != dim {
			return nil, fmt.Errorf("dimension %d, want %d", len(f), dim)
		}
		v = make([]float32, len(f))
		for k, x := range f {
			v[k] = float32(x)
		}
	}
	if len(v) == 0 {
		return nil, errors.New("empty embedding")
	}
	for k, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("value %d is not finite", k)
		}
	}
	return v, nil
}
