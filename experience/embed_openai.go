package experience

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/org/agentevolver/llm/openai"
)

// Defaults of OpenAIEmbedderConfig's zero fields.
const (
	// DefaultEmbedBatchSize is the number of texts sent in one request.
	// DashScope's text-embedding-v3/v4 accept at most 10; OpenAI and vLLM
	// take far more.
	DefaultEmbedBatchSize = 10
	// DefaultEmbedRequestTimeout bounds one embeddings request.
	DefaultEmbedRequestTimeout = time.Minute
	// DefaultEmbedMaxResponseBytes bounds one response body: 10 vectors
	// of dimension 4096 as JSON text take about 1 MiB.
	DefaultEmbedMaxResponseBytes = 16 << 20
)

// OpenAIEmbedderConfig configures an OpenAIEmbedder. The zero value of
// every field except Model and Dimension means a useful default.
type OpenAIEmbedderConfig struct {
	// BaseURL is the API root, for example "http://localhost:8000/v1"
	// (vLLM), "http://localhost:11434/v1" (ollama) or
	// "https://dashscope.aliyuncs.com/compatible-mode/v1". Empty means the
	// OPENAI_BASE_URL environment variable, else the OpenAI API, as for
	// llm/openai.
	BaseURL string
	// APIKey is sent as a bearer token. Empty means OPENAI_API_KEY when set,
	// else no Authorization header.
	APIKey string
	// Model names the embedding model ("text-embedding-v4",
	// "text-embedding-3-small", a vLLM --served-model-name); required. It
	// is also the embedder's Name.
	Model string
	// Dimension is the length of the vectors the model returns; required.
	// Every returned vector is checked against it, and a Workspace records
	// it.
	Dimension int
	// SendDimension also sends Dimension as the request's "dimensions"
	// field, which shortens the output of models that support it
	// (text-embedding-3-*, DashScope text-embedding-v3/v4, Matryoshka
	// models on vLLM). Other models reject the field.
	SendDimension bool
	// BatchSize is the number of texts per request; larger inputs are sent
	// as several requests, one after another. Zero means
	// DefaultEmbedBatchSize.
	BatchSize int
	// RequestTimeout bounds one request. Zero means
	// DefaultEmbedRequestTimeout; negative means no bound (the caller's
	// context still applies).
	RequestTimeout time.Duration
	// MaxResponseBytes bounds each response body; a larger one fails with
	// openai.ErrResponseTooLarge. Zero means DefaultEmbedMaxResponseBytes.
	MaxResponseBytes int64
	// HTTPClient sends the requests. Nil means the SDK's default client.
	HTTPClient *http.Client
}

// OpenAIEmbedder is an Embedder backed by an OpenAI-compatible /embeddings
// endpoint (vLLM, ollama, DashScope, OpenAI) through llm/openai's Client
// (Client.Embed), the same stack as chat completions: the openai-go SDK
// with llm/openai's error typing, time and size bounds. It is safe for
// concurrent use.
//
// Each request is made once: there are no retries. A failure is reported
// with llm/openai's error types, so one classification serves chat and
// embeddings:
//
//   - an *openai.UnavailableError (matching llm.ErrUnavailable) with
//     Attempts 1 around the cause, when the endpoint could not be reached
//     or failed transiently: a refused or dropped connection (an
//     *openai.TransportError), HTTP 408, 409, 429 or 5xx (an
//     *openai.APIError; not a 429 for an exhausted quota, a refusal or a
//     context-length error, which no retry mends), or a request that ran
//     past RequestTimeout (openai.ErrTimeout). The caller decides whether
//     to wait the outage out or retry.
//   - an *openai.APIError for any other error status, or an error object in
//     a 200 body (InBody).
//   - openai.ErrResponseTooLarge, openai.ErrMalformedResponse (invalid
//     JSON, a missing or duplicate index, a vector of the wrong dimension,
//     a non-finite value).
//   - the context's error when the caller's context ends the call.
//
// Empty texts are not sent (servers reject them); they get zero vectors.
type OpenAIEmbedder struct {
	cfg    OpenAIEmbedderConfig
	client *openai.Client
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// NewOpenAIEmbedder returns an embedder for cfg. It does not contact the
// server.
func NewOpenAIEmbedder(cfg OpenAIEmbedderConfig) (*OpenAIEmbedder, error) {
	if cfg.Model == "" {
		return nil, errors.New("experience: OpenAIEmbedderConfig.Model is required")
	}
	if cfg.Dimension <= 0 || cfg.Dimension > MaxDimension {
		return nil, fmt.Errorf("experience: OpenAIEmbedderConfig.Dimension %d is not in [1, %d]", cfg.Dimension, MaxDimension)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultEmbedBatchSize
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultEmbedRequestTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultEmbedMaxResponseBytes
	}
	client, err := openai.New(openai.Config{
		BaseURL:          cfg.BaseURL,
		APIKey:           cfg.APIKey,
		Model:            cfg.Model,
		RequestTimeout:   cfg.RequestTimeout, // negative: none
		CallTimeout:      -1,                 // one attempt: RequestTimeout bounds it
		MaxRetries:       -1,
		MaxResponseBytes: cfg.MaxResponseBytes,
		HTTPClient:       cfg.HTTPClient,
	})
	if err != nil {
		return nil, fmt.Errorf("experience: %w", err)
	}
	return &OpenAIEmbedder{cfg: cfg, client: client}, nil
}

// Name returns the configured model name.
func (e *OpenAIEmbedder) Name() string { return e.cfg.Model }

// Dimension returns the configured dimension.
func (e *OpenAIEmbedder) Dimension() int { return e.cfg.Dimension }

// Embed embeds texts in batches of Config.BatchSize, in order. See the
// type's comment for the errors.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var idx []int // positions of the non-empty texts
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, e.cfg.Dimension)
			continue
		}
		idx = append(idx, i)
	}
	opts := openai.EmbedOptions{Dimension: e.cfg.Dimension, SendDimension: e.cfg.SendDimension}
	for start := 0; start < len(idx); start += e.cfg.BatchSize {
		batchIdx := idx[start:min(start+e.cfg.BatchSize, len(idx))]
		batch := make([]string, len(batchIdx))
		for j, i := range batchIdx {
			batch[j] = texts[i]
		}
		vecs, err := e.client.Embed(ctx, batch, opts)
		if err != nil {
			return nil, err
		}
		for j, i := range batchIdx {
			out[i] = vecs[j]
		}
	}
	return out, nil
}
