package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file adapts the official MCP Go SDK (github.com/modelcontextprotocol/go-sdk)
// to the environment: the transports of the three kinds of Server, the
// session's tool list and calls, and the rendering of results.

// protocolVersion is the MCP protocol version the client asks for. It is
// set, rather than left to the SDK, so that the client runs the classic
// initialize handshake that every server of that generation understands.
const protocolVersion = "2025-06-18"

// maxFrameBytes bounds one JSON-RPC message read from a server (a line of
// a stdio or Dial stream, a line of an event stream or a whole
// application/json body).
const maxFrameBytes = 16 << 20

// maxTools bounds the tools listed from one server, maxToolPages the pages
// of tools/list.
const (
	maxTools     = 512
	maxToolPages = 64
)

// MaxDescriptionBytes bounds the description of a tool as the
// environment keeps it (Tools, Info, the OpenAI tools and the system
// prompt, which every episode's context starts with); a longer one is cut
// on a character boundary and ends with "…". The descriptions of common
// servers are well under 1 KiB; 4 KiB leaves room for the verbose ones
// while a server that describes a tool in megabytes cannot fill the
// policy's context window.
const MaxDescriptionBytes = 4 << 10

// MaxSchemaBytes bounds the JSON input schema of a tool as the
// environment keeps it (the system prompt shows it compacted, the OpenAI
// tools pass it on). A longer schema is reduced to what the environment
// checks (boundSchema): the top-level properties with their types, the
// required ones and additionalProperties; if even that is longer, to
// {"type": "object"}, which checks nothing and lets the server judge the
// arguments. The schemas of common servers are well under 2 KiB.
const MaxSchemaBytes = 16 << 10

// pingTimeout bounds the ping that tells a server that answers a call
// wrongly from one that is gone.
const pingTimeout = 5 * time.Second

// newClient returns the SDK client every session of an Env is made with.
// It declares no capabilities (no roots: a filesystem server keeps the
// directories it was started with).
func newClient(log *slog.Logger) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "agentevolver-mcp-env", Version: "1"},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}, Logger: log})
}

// session is one initialised MCP client session.
type session struct {
	cs     *sdk.ClientSession
	server serverInfo
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// recordingTransport keeps the connection its transport made, so that
// closing the instance can break it at once: the SDK's ClientSession.Close
// waits for calls in flight.
type recordingTransport struct {
	sdk.Transport
	conn sdk.Connection
}

func (t *recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.conn = c
	return c, err
}

// close closes the connection, if there is one.
func (t *recordingTransport) close() error {
	if t.conn == nil {
		return nil
	}
	return t.conn.Close()
}

// streamTransport is the SDK transport over a server's byte stream
// (newline-delimited JSON-RPC): r the server's output, w its input.
// Closing the connection closes rc and w.
func streamTransport(r io.Reader, rc io.Closer, w io.WriteCloser) *sdk.IOTransport {
	return &sdk.IOTransport{Reader: &lineFilter{r: bufio.NewReaderSize(r, 64<<10), c: rc}, Writer: w,
		MaxLineLength: maxFrameBytes}
}

// httpTransport is the SDK's streamable-HTTP transport on srv.URL, with
// srv.Headers added to every request and every response read through the
// shrinker (shrinkingTransport). The client sends only POSTs (no
// standalone event stream: the environment needs nothing the server would
// send unasked) and ends the session with a DELETE on close.
func httpTransport(srv Server) *sdk.StreamableClientTransport {
	client := &http.Client{}
	if srv.HTTPClient != nil {
		c := *srv.HTTPClient
		client = &c
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if len(srv.Headers) > 0 {
		base = headerTransport{base: base, headers: srv.Headers}
	}
	client.Transport = shrinkingTransport{base: base}
	return &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client, DisableStandaloneSSE: true}
}

// headerTransport sets headers on every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// nopWriteCloser is a writer whose Close does nothing (the stream is closed
// through the reader's side).
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// lineFilter passes on the lines of r that are JSON-RPC messages (or
// batches) and drops the rest: stray output that servers must not write
// and some do, which would otherwise break the SDK's connection. Lines are
// bounded by maxFrameBytes, and their long strings are cut as they are
// read (readShrunkLine), so that what is buffered stays small.
type lineFilter struct {
	r       *bufio.Reader
	c       io.Closer
	pending []byte
	err     error
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		var line []byte
		line, f.err = readShrunkLine(f.r, maxFrameBytes)
		if line = bytes.TrimSpace(line); isMessage(line) {
			f.pending = append(line, '\n')
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *lineFilter) Close() error { return f.c.Close() }

// isMessage reports whether line is a JSON-RPC message or batch.
func isMessage(line []byte) bool {
	switch {
	case len(line) == 0:
		return false
	case line[0] == '[':
		return json.Valid(line)
	default:
		_, err := jsonrpc.DecodeMessage(line)
		return err == nil
	}
}

// readLine reads one line of at most limit bytes; at the end of r it
// returns the last, unterminated line, if any, with io.EOF.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > limit {
			return nil, fmt.Errorf("server message longer than %d bytes", limit)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, err
	}
}

// connectSession runs the MCP handshake on t.
func connectSession(ctx context.Context, client *sdk.Client, t sdk.Transport) (*session, error) {
	cs, err := client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s := &session{cs: cs}
	if res := cs.InitializeResult(); res != nil && res.ServerInfo != nil {
		s.server = serverInfo{Name: res.ServerInfo.Name, Version: res.ServerInfo.Version}
	}
	return s, nil
}

// Tool is one tool a server offers, as tools/list describes it.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON schema of the tool's arguments.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

func (s *session) listTools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	params := &sdk.ListToolsParams{}
	for range maxToolPages {
		res, err := s.cs.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range res.Tools {
			var schema json.RawMessage
			if t.InputSchema != nil {
				if schema, err = json.Marshal(t.InputSchema); err != nil {
					return nil, fmt.Errorf("tools/list: the schema of %s: %w", t.Name, err)
				}
			}
			tools = append(tools, Tool{Name: t.Name, Description: clip(t.Description, MaxDescriptionBytes),
				InputSchema: boundSchema(schema, MaxSchemaBytes)})
		}
		if len(tools) > maxTools {
			return nil, fmt.Errorf("tools/list: more than %d tools", maxTools)
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		params.Cursor = res.NextCursor
	}
	return nil, errors.New("tools/list: too many pages")
}

func (s *session) callTool(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	return s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
}

// answers reports whether the server answers a ping within d (an error
// answer counts).
func (s *session) answers(ctx context.Context, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := s.cs.Ping(ctx, nil)
	var rerr *jsonrpc.Error
	return err == nil || errors.As(err, &rerr)
}

// broken reports an error that says the connection is gone.
func broken(err error) bool {
	for _, target := range []error{sdk.ErrConnectionClosed, sdk.ErrSessionMissing, io.EOF, io.ErrUnexpectedEOF, os.ErrClosed} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// errorResult is a tool error result carrying "error: msg".
func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "error: " + msg}}}
}

// resultText renders a result for the agent: its content parts (text,
// embedded text resources, placeholders for images and links), or its
// structured content as compact JSON when it has no content parts. The SDK
// servers send both, the text being the JSON of the structured content.
func resultText(r *sdk.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.EmbeddedResource:
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "":
				parts = append(parts, c.Resource.Text)
			default:
				parts = append(parts, "[resource "+c.Resource.URI+"]")
			}
		case *sdk.ResourceLink:
			parts = append(parts, "[resource "+c.URI+"]")
		case *sdk.ImageContent:
			parts = append(parts, "[image "+c.MIMEType+"]")
		case *sdk.AudioContent:
			parts = append(parts, "[audio "+c.MIMEType+"]")
		case nil:
		default:
			var wire struct {
				Type     string `json:"type"`
				MimeType string `json:"mimeType"`
			}
			if data, err := json.Marshal(c); err == nil {
				_ = json.Unmarshal(data, &wire)
			}
			parts = append(parts, "["+wire.Type+" "+wire.MimeType+"]")
		}
	}
	if len(parts) == 0 {
		return resultStructured(r)
	}
	return strings.Join(parts, "\n")
}

// resultStructured returns the structured content as compact JSON, or "".
// The SDK decodes it, so object keys come sorted.
func resultStructured(r *sdk.CallToolResult) string {
	if r.StructuredContent == nil {
		return ""
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(r.StructuredContent) != nil {
		return ""
	}
	s := strings.TrimSpace(b.String())
	if s == "null" {
		return ""
	}
	return s
}
