package mcp

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func shrink(t testing.TB, in string) string {
	t.Helper()
	out, err := readShrunkLine(bufio.NewReaderSize(strings.NewReader(in), 16), maxFrameBytes)
	if err != nil && err.Error() != "EOF" {
		t.Fatal(err)
	}
	return string(out)
}

func TestShrinkCutsLongStrings(t *testing.T) {
	long := strings.Repeat("é\\\"\\u00e9x", maxStringBytes/4) // escapes and multi-byte characters across the cut
	img := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1, 2, 3, 4, 5}, maxStringBytes))
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": map[string]any{
		"content": []any{
			map[string]any{"type": "text", "text": long},
			map[string]any{"type": "image", "data": img, "mimeType": "image/png"},
		},
		"structuredContent": map[string]any{"a": []any{"short", long}},
	}})
	out := shrink(t, string(msg)+"\n")
	if len(out) > 4*maxStringBytes {
		t.Fatalf("%d bytes kept of %d", len(out), len(msg))
	}
	var got struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
				Data []byte `json:"data"`
			} `json:"content"`
			Structured struct {
				A []string `json:"a"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON any more: %v", err)
	}
	text := got.Result.Content[0].Text
	if got.ID != 7 || got.Result.Content[0].Type != "text" || !utf8.ValidString(text) ||
		!strings.HasPrefix(long, strings.Split(text, "…")[0]) || !strings.Contains(text, "[truncated by the environment: ") {
		t.Fatalf("text cut wrongly: %.60q … %q", text, text[len(text)-60:])
	}
	// Decoded, the kept text is about maxStringBytes of JSON.
	if len(text) < maxStringBytes/2 || len(text) > maxStringBytes+100 {
		t.Errorf("kept %d bytes of text", len(text))
	}
	if data := got.Result.Content[1].Data; len(data) == 0 || !bytes.HasPrefix(bytes.Repeat([]byte{1, 2, 3, 4, 5}, maxStringBytes), data) {
		t.Errorf("image data cut wrongly: %d bytes", len(data))
	}
	if a := got.Result.Structured.A; len(a) != 2 || a[0] != "short" || !strings.Contains(a[1], "[truncated") {
		t.Errorf("structured content: %.80q", a)
	}
	// A message of short strings passes unchanged.
	small := `{"jsonrpc":"2.0","id":"x","result":{"tools":[{"name":"a\"b","description":"dé\\u00e9"}]}}` + "\n"
	if got := shrink(t, small); got != small {
		t.Errorf("changed a small message: %q", got)
	}
	// The message budget: many long strings keep minStringBytes each
	// once it is spent.
	var parts []string
	for range 12 {
		parts = append(parts, `"`+strings.Repeat("y", maxStringBytes+10)+`"`)
	}
	out = shrink(t, "["+strings.Join(parts, ",")+"]")
	var arr []string
	if err := json.Unmarshal([]byte(out), &arr); err != nil || len(arr) != 12 {
		t.Fatalf("array: %v", err)
	}
	if len(out) > maxMessageStringBytes+12*(minStringBytes+100) {
		t.Errorf("budget not applied: %d bytes", len(out))
	}
	// Oversized lines still end the connection.
	if _, err := readShrunkLine(bufio.NewReader(strings.NewReader(strings.Repeat("z", 100)+"\n")), 50); err == nil {
		t.Error("no error for a line over the limit")
	}
}

// FuzzShrink: a valid JSON text stays valid JSON with the same shape.
func FuzzShrink(f *testing.F) {
	f.Add(`{"a":"b","data":"AAAA","c":[1,"\u00e9",{"d":null}]}`, 3)
	f.Add(`["\\\"\u20ac", "é€😀"]`, 1)
	f.Fuzz(func(t *testing.T, in string, reps int) {
		if !json.Valid([]byte(in)) || strings.Contains(in, "\n") {
			return
		}
		// Make the strings long enough to be cut.
		big := "[" + strings.Repeat(in+",", max(1, min(reps, 8))) + `"` + strings.Repeat("w", maxStringBytes+1) + `"]`
		out := shrink(t, big+"\n")
		if !json.Valid([]byte(strings.TrimSpace(out))) {
			t.Fatalf("invalid output for %q", in)
		}
	})
}
