package envservice

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler feeds arbitrary methods, paths and bodies to the handler and
// checks that it never panics and always answers with a well-formed reply:
// plain OK from /healthz, otherwise a JSON envelope ({"success", "data"}) or
// a JSON error ({"detail"}), never a stack trace.
func FuzzHandler(f *testing.F) {
	seeds := []struct{ method, path, body string }{
		{"GET", "/healthz", ""},
		{"POST", "//get_env_profile", `{"env_type":"test","params":{"split":"train"}}`},
		{"POST", "/get_env_profile", `{"env_type":"test","params":{"split":3}}`},
		{"POST", "/create", `{"env_type":"test","task_id":"t1","instance_id":"f1"}`},
		{"POST", "/create", `{"env_type":"test","task_id":"panic-new"}`},
		{"POST", "/create", `{"env_type":null,"task_id":""}`},
		{"POST", "/step", `{"instance_id":"i1","messages":{"role":"assistant","content":"hello"}}`},
		{"POST", "/step", `{"instance_id":"i1","messages":{"content":"panic"}}`},
		{"POST", "/step", `{"instance_id":"i1","messages":{"content":"chan"}}`},
		{"POST", "/step", `{"instance_id":"i1","messages":{"content":[{"type":"text","text":"x"}],"tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}}`},
		{"POST", "/step", `{"instance_id":"i1","messages":null,"params":null}`},
		{"POST", "/evaluate", `{"instance_id":"i1","params":{"sparse":true}}`},
		{"POST", "/get_info", `{"instance_id":7}`},
		{"POST", "/release", `{"instance_id":"nope"}`},
		{"POST", "/release", `[1,2,3]`},
		{"POST", "/step", `{"instance_id":`},
		{"PUT", "/create/", `{}`},
		{"POST", "/a//b", `null`},
		{"POST", "/step", "\x00\xff"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, []byte(s.body))
	}
	env := newTestEnv()
	env.noWait = true
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		if !validMethod(method) {
			method = http.MethodPost
		}
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Method = method
		r.URL.Path = path
		// A fresh manager per input keeps inputs independent.
		m := NewManager(ManagerConfig{MaxInstances: 4})
		defer m.Close()
		if err := m.Register("test", env); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Create(t.Context(), "test", "t1", "i1", nil); err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		NewServer(m, ServerConfig{MaxBodyBytes: 4096}).ServeHTTP(w, r)

		out := w.Body.Bytes()
		if w.Code == http.StatusOK && cleanPath(path) == healthPath {
			if string(out) != "OK" {
				t.Fatalf("healthz body %q", out)
			}
			return
		}
		var reply map[string]json.RawMessage
		if err := json.Unmarshal(out, &reply); err != nil {
			t.Fatalf("status %d: body %q is not a JSON object: %v", w.Code, out, err)
		}
		if w.Code == http.StatusOK {
			var success bool
			if err := json.Unmarshal(reply["success"], &success); err != nil {
				t.Fatalf("200 without a boolean success: %s", out)
			}
			if _, ok := reply["data"]; !ok {
				t.Fatalf("200 without data: %s", out)
			}
		} else if _, ok := reply["detail"]; !ok {
			t.Fatalf("status %d without detail: %s", w.Code, out)
		}
		if bytes.Contains(out, []byte("goroutine ")) {
			t.Fatalf("stack trace in reply: %s", out)
		}
	})
}

// validMethod reports whether httptest can carry method (a token).
func validMethod(method string) bool {
	if method == "" {
		return false
	}
	for i := 0; i < len(method); i++ {
		c := method[i]
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`()<>@,;:\"/[]?={}`), c) >= 0 {
			return false
		}
	}
	return true
}

// FuzzBearerToken feeds arbitrary Authorization values to the parser and to
// a token-protected handler: the parser never panics and what it accepts is
// a valid token found in the header that parses back to itself; the handler
// lets a request through exactly when the header carries the right token,
// and otherwise answers a JSON 401 that does not repeat what was sent.
func FuzzBearerToken(f *testing.F) {
	const token = "fuzz-token-0123456789"
	for _, s := range []string{
		"Bearer " + token, "bearer   " + token + " ", "Bearer " + token + "x", "Basic " + token,
		"Bearer", "Bearer ", "Bearer a b", "Bearer \x00", "Bearer é", "", token, "Bearer\t" + token,
	} {
		f.Add(s)
	}
	env := newTestEnv()
	env.noWait = true
	m := NewManager(ManagerConfig{})
	defer m.Close()
	if err := m.Register("test", env); err != nil {
		f.Fatal(err)
	}
	h := NewServer(m, ServerConfig{Token: token})
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := bearerToken(header)
		if ok {
			if !validToken(tok) || !strings.Contains(header, tok) {
				t.Fatalf("bearerToken(%q) = %q, not a valid token from the header", header, tok)
			}
			if again, ok := bearerToken("Bearer " + tok); !ok || again != tok {
				t.Fatalf("token %q does not parse back: %q %v", tok, again, ok)
			}
		} else if tok != "" {
			t.Fatalf("bearerToken(%q) rejected but returned %q", header, tok)
		}
		r := httptest.NewRequest(http.MethodPost, "/get_env_profile", strings.NewReader(`{"env_type":"test"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header["Authorization"] = []string{header}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if wantOK := ok && tok == token; wantOK != (w.Code == http.StatusOK) {
			t.Fatalf("header %q: status %d", header, w.Code)
		}
		if w.Code == http.StatusOK {
			return
		}
		var d detailBody
		if w.Code != http.StatusUnauthorized || json.Unmarshal(w.Body.Bytes(), &d) != nil || d.Detail == "" {
			t.Fatalf("header %q: %d %s, want a 401 with a detail", header, w.Code, w.Body)
		}
		sent := strings.TrimSpace(header)
		if len(sent) > 3 && !strings.Contains(detailNoToken+detailBadToken, sent) && strings.Contains(w.Body.String(), sent) {
			t.Fatalf("the 401 repeats the header: %s", w.Body)
		}
	})
}
