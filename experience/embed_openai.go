package experience

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

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
// endpoint (vLLM, ollama, DashScope, OpenAI) through
// github.com/openai/openai-go/v3. It is safe for concurrent use.
//
// Each request is made once: there are no retries. A failure is reported
// with llm/openai's error types, so one classification serves chat and
// embeddings:
//
//   - an *openai.UnavailableError (matching llm.ErrUnavailable) with
//     Attempts 1 around the cause, when the endpoint could not be reached
//     or failed transiently: a refused or dropped connection (an
//     *openai.TransportError), HTTP 408, 409, 429 or 5xx (an
//     *openai.APIError), or a request that ran past RequestTimeout
//     (openai.ErrTimeout). The caller decides whether to wait the outage
//     out or retry.
//   - an *openai.APIError for any other error status, or an error object in
//     a 200 body (InBody).
//   - openai.ErrResponseTooLarge, openai.ErrMalformedResponse (invalid
//     JSON, a missing or duplicate index, a vector of the wrong dimension,
//     a non-finite value).
//   - the context's error when the caller's context ends the call.
//
// Empty texts are not sent (servers reject them); they get zero vectors.
type OpenAIEmbedder struct {
	cfg OpenAIEmbedderConfig
	sdk oai.Client
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
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &OpenAIEmbedder{cfg: cfg, sdk: oai.NewClient(opts...)}, nil
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
	for start := 0; start < len(idx); start += e.cfg.BatchSize {
		batchIdx := idx[start:min(start+e.cfg.BatchSize, len(idx))]
		batch := make([]string, len(batchIdx))
		for j, i := range batchIdx {
			batch[j] = texts[i]
		}
		vecs, err := e.request(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range batchIdx {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

// errEmbedTimeout is the cancellation cause of a request that ran past
// Config.RequestTimeout.
var errEmbedTimeout = errors.New("experience: embeddings request timeout")

// request makes one embeddings request for texts, all non-empty.
func (e *OpenAIEmbedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	reqCtx := ctx
	if e.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeoutCause(ctx, e.cfg.RequestTimeout, errEmbedTimeout)
		defer cancel()
	}
	params := oai.EmbeddingNewParams{
		Model:          e.cfg.Model,
		Input:          oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: oai.EmbeddingNewParamsEncodingFormatFloat,
	}
	if e.cfg.SendDimension {
		params.Dimensions = oai.Int(int64(e.cfg.Dimension))
	}
	var body []byte
	mw := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return embedMiddleware(req, next, e.cfg.MaxResponseBytes)
	}
	_, err := e.sdk.Embeddings.New(reqCtx, params, option.WithMiddleware(mw), option.WithResponseBodyInto(&body))
	if err == nil {
		var vecs [][]float32
		if vecs, err = decodeEmbeddings(body, len(texts), e.cfg.Dimension); err == nil {
			return vecs, nil
		}
	}
	return nil, e.classify(ctx, reqCtx, err)
}

// classify types the error of one request (see OpenAIEmbedder).
func (e *OpenAIEmbedder) classify(ctx, reqCtx context.Context, err error) error {
	var apiErr *openai.APIError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("experience: embeddings: %w", ctx.Err())
	case errors.Is(context.Cause(reqCtx), errEmbedTimeout):
		return &openai.UnavailableError{Attempts: 1,
			Err: fmt.Errorf("%w: embeddings request ran past %s (%v)", openai.ErrTimeout, e.cfg.RequestTimeout, err)}
	case errors.As(err, &apiErr):
		if transientStatus(apiErr.StatusCode) {
			return &openai.UnavailableError{Attempts: 1, Err: apiErr}
		}
		return err
	case errors.Is(err, openai.ErrResponseTooLarge), errors.Is(err, openai.ErrMalformedResponse):
		return err
	case isTransportFailure(err):
		return &openai.UnavailableError{Attempts: 1, Err: &openai.TransportError{Err: err}}
	}
	return fmt.Errorf("experience: embeddings: %w", err)
}

// transientStatus reports an HTTP status worth retrying later: 408, 409,
// 429 and 5xx, as llm/openai retries.
func transientStatus(s int) bool {
	return s == http.StatusRequestTimeout || s == http.StatusConflict ||
		s == http.StatusTooManyRequests || s >= 500
}

// isTransportFailure reports a failure below HTTP: a refused, reset or
// broken connection, a connection dropped mid-response, a failed dial or a
// network timeout.
func isTransportFailure(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var opErr *net.OpError
	var netErr net.Error
	return errors.As(err, &opErr) || (errors.As(err, &netErr) && netErr.Timeout())
}

// maxErrorBodyBytes bounds how much of an error response is read.
const maxErrorBodyBytes = 64 << 10

// embedMiddleware turns an error status into an *openai.APIError (the SDK
// would read the body without a bound) and bounds a successful body.
func embedMiddleware(req *http.Request, next option.MiddlewareNext, maxBody int64) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBodyBytes))
		_ = res.Body.Close()
		apiErr := parseAPIError(body)
		apiErr.StatusCode = res.StatusCode
		apiErr.RequestID = res.Header.Get("X-Request-Id")
		return nil, apiErr
	}
	res.Body = &boundedBody{ReadCloser: res.Body, remaining: maxBody, tooLarge: openai.ErrResponseTooLarge}
	return res, nil
}

// parseAPIError reads the common error shapes: {"error": {"message",
// "type", "code"}}, {"error": "text"}, {"message", "type", "code"} (vLLM,
// DashScope native), {"detail": ...} (FastAPI); anything else is kept as
// the message. It never fails.
func parseAPIError(body []byte) *openai.APIError {
	e := &openai.APIError{}
	body = bytes.TrimSpace(body)
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top == nil {
		e.Message = clip(string(body), maxMessageBytes)
		return e
	}
	fields := top
	if raw, ok := top["error"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil && inner != nil {
			fields = inner
		} else {
			e.Message = clip(rawText(raw), maxMessageBytes)
			return e
		}
	}
	e.Message = clip(rawText(fields["message"]), maxMessageBytes)
	e.Type = clip(rawText(fields["type"]), 256)
	e.Code = clip(rawText(fields["code"]), 256)
	if e.Message == "" {
		e.Message = clip(rawText(top["detail"]), maxMessageBytes)
	}
	return e
}

// rawText renders a JSON value as text: a string as itself, null as "",
// anything else as its JSON.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// maxMessageBytes bounds a server message kept in an error.
const maxMessageBytes = 2048

// clip cuts s to at most n bytes on a UTF-8 boundary, and makes it valid
// UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// boundedBody fails with tooLarge once more than remaining bytes have been
// read, instead of silently truncating like io.LimitReader.
type boundedBody struct {
	io.ReadCloser
	remaining int64
	tooLarge  error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.remaining < 0 {
		return 0, b.tooLarge
	}
	if int64(len(p)) > b.remaining+1 {
		p = p[:b.remaining+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.remaining -= int64(n)
	if b.remaining < 0 {
		return n + int(b.remaining), fmt.Errorf("%w: over the limit", b.tooLarge)
	}
	return n, err
}

// decodeEmbeddings parses an /embeddings response body for want texts of
// dimension dim. The body is untrusted: everything is checked. An
// embedding may be a list of numbers or, should a server ignore
// encoding_format, base64 of little-endian float32s.
func decodeEmbeddings(body []byte, want, dim int) ([][]float32, error) {
	var resp struct {
		Data []struct {
			Embedding json.RawMessage `json:"embedding"`
			Index     *int            `json:"index"`
		} `json:"data"`
		Error  json.RawMessage `json:"error"`
		Object string          `json:"object"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("%w: embeddings: %v", openai.ErrMalformedResponse, err)
	}
	if resp.Data == nil && (len(resp.Error) > 0 && string(resp.Error) != "null" || resp.Object == "error") {
		apiErr := parseAPIError(body)
		apiErr.InBody = true
		if n, err := strconv.Atoi(apiErr.Code); err == nil && n >= 400 && n <= 599 {
			apiErr.StatusCode = n
		}
		return nil, apiErr
	}
	if len(resp.Data) != want {
		return nil, fmt.Errorf("%w: embeddings: %d vectors for %d inputs", openai.ErrMalformedResponse, len(resp.Data), want)
	}
	out := make([][]float32, want)
	for j, d := range resp.Data {
		i := j
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= want || out[i] != nil {
			return nil, fmt.Errorf("%w: embeddings: bad or repeated index %d", openai.ErrMalformedResponse, i)
		}
		v, err := decodeEmbedding(d.Embedding, dim)
		if err != nil {
			return nil, fmt.Errorf("%w: embeddings: input %d: %v", openai.ErrMalformedResponse, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// decodeEmbedding parses one embedding, a JSON list of numbers or a base64
// string, of dimension dim with finite values.
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
		if len(b) != 4*dim {
			return nil, fmt.Errorf("dimension %d, want %d", len(b)/4, dim)
		}
		v = make([]float32, dim)
		for k := range v {
			v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
		}
	} else {
		var f []float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, err
		}
		if len(f) != dim {
			return nil, fmt.Errorf("dimension %d, want %d", len(f), dim)
		}
		v = make([]float32, dim)
		for k, x := range f {
			v[k] = float32(x)
		}
	}
	for k, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("value %d is not finite", k)
		}
	}
	return v, nil
}
