package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Bounds of the endpoint check.
const (
	probeTimeout  = 10 * time.Second
	maxProbeBytes = 1 << 20
	maxModelIDs   = 10000
	maxListed     = 8 // model names quoted in a warning
)

// errUnreachable reports a model endpoint that cannot be contacted.
var errUnreachable = errors.New("cannot reach the model endpoint")

// errUnauthorized reports a model endpoint that refused the API key.
var errUnauthorized = errors.New("the model endpoint refused the request")

// checkEndpoint asks the endpoint for its models (GET {base}/models), so
// that an unreachable server or a refused key is reported at once, with a
// clear message, instead of after every episode's retries. Servers without
// the route, or with an answer it cannot read, pass. When the list can be
// read and lacks model, the returned warning says so: proxies may serve
// aliases that they do not list, so it is not an error.
func checkEndpoint(parent context.Context, client *http.Client, baseURL, apiKey, model string) (warning string, err error) {
	ctx, cancel := context.WithTimeout(parent, probeTimeout)
	defer cancel()
	url := strings.TrimRight(baseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("%w at %s: %v", errUnreachable, baseURL, err)
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		if err := parent.Err(); err != nil {
			return "", err // cancelled by the caller
		}
		return "", fmt.Errorf("%w at %s (is the server running, and is the URL right?): %w", errUnreachable, baseURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBytes))
	if err != nil {
		return "", fmt.Errorf("%w at %s: reading the answer: %w", errUnreachable, baseURL, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return "", fmt.Errorf("%w at %s: HTTP %d %s (check --api-key)", errUnauthorized, baseURL, resp.StatusCode, snippet(body))
	case resp.StatusCode != http.StatusOK:
		return "", nil // no model list here; the chat requests will tell
	}
	ids, ok := parseModelList(body)
	if !ok || len(ids) == 0 || slices.Contains(ids, model) {
		return "", nil
	}
	var listed []string
	for _, id := range ids[:min(len(ids), maxListed)] {
		listed = append(listed, sanitize(id))
	}
	more := ""
	if len(ids) > len(listed) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(listed))
	}
	return fmt.Sprintf("model %q is not among the models %s serves (%s%s); requests may fail", model, baseURL, strings.Join(listed, ", "), more), nil
}

// parseModelList reads the ids of an OpenAI model list,
// {"data": [{"id": "..."}, ...]}. ok is false for anything else.
func parseModelList(body []byte) (ids []string, ok bool) {
	if len(body) > maxProbeBytes {
		return nil, false
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil || len(list.Data) > maxModelIDs {
		return nil, false
	}
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, true
}

// snippet is the start of an error body, on one line.
func snippet(body []byte) string {
	s := strings.Join(strings.Fields(sanitize(string(body))), " ")
	return clipText(s, 200)
}
