package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		wantErr error
		warning string // substring; empty means none
	}{
		{"served", 200, `{"object":"list","data":[{"id":"a"},{"id":"m"}]}`, nil, ""},
		{"not listed", 200, `{"data":[{"id":"a"},{"id":"b"}]}`, nil, `model "m" is not among the models`},
		{"many listed", 200, `{"data":[{"id":"1"},{"id":"2"},{"id":"3"},{"id":"4"},{"id":"5"},{"id":"6"},{"id":"7"},{"id":"8"},{"id":"9"}]}`, nil, "(1, 2, 3, 4, 5, 6, 7, 8 and 1 more)"},
		{"no route", 404, `{"detail":"Not Found"}`, nil, ""},
		{"unreadable list", 200, `<html>hello</html>`, nil, ""},
		{"empty list", 200, `{"data":[]}`, nil, ""},
		{"server error", 500, `oops`, nil, ""},
		{"bad key", 401, `{"error":{"message":"Incorrect API key provided"}}`, errUnauthorized, ""},
		{"forbidden", 403, "no\x1b[2J", errUnauthorized, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var auth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/models" {
					http.NotFound(w, r)
					return
				}
				auth = r.Header.Get("Authorization")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			warning, err := checkEndpoint(context.Background(), srv.Client(), srv.URL+"/v1/", "sk-test", "m")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "\x1b") {
				t.Errorf("control character in error %q", err)
			}
			if (tc.warning == "") != (warning == "") || !strings.Contains(warning, tc.warning) {
				t.Errorf("warning %q, want %q", warning, tc.warning)
			}
			if auth != "Bearer sk-test" {
				t.Errorf("Authorization %q", auth)
			}
		})
	}
}

func TestCheckEndpointCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := checkEndpoint(ctx, srv.Client(), srv.URL, "", "m"); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
