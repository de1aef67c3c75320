package envservice

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// do sends one request straight to the handler.
func do(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.URL.Path = path
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("response %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

func TestProtocol(t *testing.T) {
	const (
		notNull   = `{"detail":[{"loc":["body","%s"],"msg":"none is not an allowed value","type":"type_error.none.not_allowed"}]}`
		notDict   = `{"detail":[{"loc":["body","%s"],"msg":"value is not a valid dict","type":"type_error.dict"}]}`
		bodyDict  = `{"detail":[{"loc":["body"],"msg":"value is not a valid dict","type":"type_error.dict"}]}`
		echoHello = `{"success":true,"data":{"state":[{"role":"user","content":"echo 1: HELLO"}],"reward":0,"is_terminated":false,"info":{}}}`
	)
	sprintf := func(format, field string) string { return strings.Replace(format, "%s", field, 1) }
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		cfg        ServerConfig
		wantStatus int
		want       string // exact JSON, or "OK" for healthz
		contains   string // substring of the body, when the text varies
	}{
		{name: "healthz", method: "GET", path: "/healthz", wantStatus: 200, want: "OK"},
		{name: "healthz post", method: "POST", path: "/healthz", wantStatus: 405, want: `{"detail":"Method Not Allowed"}`},
		{name: "get on post route", method: "GET", path: "/create", wantStatus: 405, want: `{"detail":"Method Not Allowed"}`},
		{name: "unknown route", method: "POST", path: "/nope", wantStatus: 404, want: `{"detail":"Not Found"}`},
		{name: "root", method: "GET", path: "/", wantStatus: 404, want: `{"detail":"Not Found"}`},

		{name: "task ids", path: "/get_env_profile", body: `{"env_type":"test"}`, wantStatus: 200,
			want: `{"success":true,"data":["t1","t2","t3"]}`},
		{name: "task ids double slash", path: "//get_env_profile", body: `{"env_type":"test"}`, wantStatus: 200,
			want: `{"success":true,"data":["t1","t2","t3"]}`},
		{name: "many slashes and trailing", path: "///get_env_profile/", body: `{"env_type":"test"}`, wantStatus: 200,
			want: `{"success":true,"data":["t1","t2","t3"]}`},
		{name: "task ids val split", path: "/get_env_profile", body: `{"env_type":"test","params":{"split":"val"}}`, wantStatus: 200,
			want: `{"success":true,"data":["v1"]}`},
		{name: "task ids null split", path: "/get_env_profile", body: `{"env_type":"test","params":{"split":null}}`, wantStatus: 200,
			want: `{"success":true,"data":["t1","t2","t3"]}`},
		{name: "task ids params forwarded", path: "/get_env_profile", body: `{"env_type":"test","params":{"prefix":"p-"}}`, wantStatus: 200,
			want: `{"success":true,"data":["p-t1","p-t2","p-t3"]}`},
		{name: "task ids default env type", path: "/get_env_profile", body: `{}`, cfg: ServerConfig{DefaultEnvType: "test"}, wantStatus: 200,
			want: `{"success":true,"data":["t1","t2","t3"]}`},
		{name: "task ids empty body", path: "/get_env_profile", body: ``, cfg: ServerConfig{DefaultEnvType: "test"}, wantStatus: 200,
			want: `{"success":true,"data":["t1","t2","t3"]}`},
		{name: "task ids reference default env type", path: "/get_env_profile", body: `{}`, wantStatus: 400,
			want: `{"detail":"unknown env_type \"appworld\" (registered: test)"}`},
		{name: "task ids null env type", path: "/get_env_profile", body: `{"env_type":null}`, wantStatus: 400,
			want: `{"detail":"env_type is required"}`},
		{name: "task ids unknown env", path: "/get_env_profile", body: `{"env_type":"nope"}`, wantStatus: 400,
			want: `{"detail":"unknown env_type \"nope\" (registered: test)"}`},
		{name: "task ids split not string", path: "/get_env_profile", body: `{"env_type":"test","params":{"split":3}}`, wantStatus: 400,
			want: `{"detail":"params.split must be a string, got float64"}`},
		{name: "task ids unknown split", path: "/get_env_profile", body: `{"env_type":"test","params":{"split":"x"}}`, wantStatus: 400,
			contains: `no split \"x\"`},
		{name: "task ids env failure", path: "/get_env_profile", body: `{"env_type":"test","params":{"fail":true}}`, wantStatus: 500,
			want: `{"detail":"environment error: envservice: list tasks of test: task list unavailable"}`},

		{name: "create", path: "/create", body: `{"env_type":"test","task_id":"t2","instance_id":"new"}`, wantStatus: 200,
			want: `{"success":true,"data":{"state":[{"role":"system","content":"You are tested."},{"role":"user","content":"Solve t2"}],"info":{"instance_id":"new","task_id":"t2"}}}`},
		{name: "create trailing slash", path: "/create/", body: `{"env_type":"test","task_id":"t2","instance_id":"new"}`, wantStatus: 200,
			contains: `"instance_id":"new"`},
		{name: "create generated id", path: "/create", body: `{"env_type":"test","task_id":"t2"}`, wantStatus: 200,
			contains: `"instance_id":"exp_`},
		{name: "create no task", path: "/create", body: `{"env_type":"test"}`, wantStatus: 400, want: `{"detail":"task_id is required"}`},
		{name: "create empty task", path: "/create", body: `{"env_type":"test","task_id":""}`, wantStatus: 400, want: `{"detail":"task_id is required"}`},
		{name: "create null env type", path: "/create", body: `{"env_type":null,"task_id":"t1"}`, wantStatus: 400, want: `{"detail":"env_type is required"}`},
		{name: "create unknown env", path: "/create", body: `{"env_type":"nope","task_id":"t1"}`, wantStatus: 400,
			want: `{"detail":"unknown env_type \"nope\" (registered: test)"}`},
		{name: "create id in use", path: "/create", body: `{"env_type":"test","task_id":"t1","instance_id":"i1"}`, wantStatus: 400,
			want: `{"detail":"instance_id \"i1\" is already in use"}`},
		{name: "create env failure", path: "/create", body: `{"env_type":"test","task_id":"fail-new"}`, wantStatus: 500,
			contains: `"detail":"environment error: envservice: create test instance exp_`},
		{name: "create panics", path: "/create", body: `{"env_type":"test","task_id":"panic-new"}`, wantStatus: 500,
			want: `{"detail":"environment error: create panicked: constructor exploded"}`},

		{name: "step", path: "/step", body: `{"instance_id":"i1","messages":{"role":"assistant","content":"hello"}}`, wantStatus: 200, want: echoHello},
		{name: "step content parts", path: "/step", body: `{"instance_id":"i1","messages":{"role":"assistant","content":[{"type":"text","text":"hel"},{"type":"text","text":"lo"}]}}`,
			wantStatus: 200, want: echoHello},
		{name: "step no id", path: "/step", body: `{"messages":{}}`, wantStatus: 400, want: `{"detail":"instance_id is required"}`},
		{name: "step null id", path: "/step", body: `{"instance_id":null}`, wantStatus: 400, want: `{"detail":"instance_id is required"}`},
		{name: "step unknown", path: "/step", body: `{"instance_id":"nope","messages":{"content":"x"}}`, wantStatus: 400,
			want: `{"detail":"Instance nope not found!"}`},
		{name: "step null messages", path: "/step", body: `{"instance_id":"i1","messages":null}`, wantStatus: 422, want: sprintf(notNull, "messages")},
		{name: "step null params", path: "/step", body: `{"instance_id":"i1","params":null}`, wantStatus: 422, want: sprintf(notNull, "params")},
		{name: "step both null", path: "/step", body: `{"instance_id":"i1","messages":null,"params":null}`, wantStatus: 422,
			want: `{"detail":[{"loc":["body","messages"],"msg":"none is not an allowed value","type":"type_error.none.not_allowed"},{"loc":["body","params"],"msg":"none is not an allowed value","type":"type_error.none.not_allowed"}]}`},
		{name: "step messages list", path: "/step", body: `{"instance_id":"i1","messages":[]}`, wantStatus: 422, want: sprintf(notDict, "messages")},
		{name: "step params string", path: "/step", body: `{"instance_id":"i1","params":"x"}`, wantStatus: 422, want: sprintf(notDict, "params")},
		{name: "step id not string", path: "/step", body: `{"instance_id":7}`, wantStatus: 422,
			want: `{"detail":[{"loc":["body","instance_id"],"msg":"str type expected","type":"type_error.str"}]}`},
		{name: "body is a list", path: "/step", body: `[]`, wantStatus: 422, want: bodyDict},
		{name: "body is a string", path: "/step", body: `"x"`, wantStatus: 422, want: bodyDict},
		{name: "body is null", path: "/step", body: `null`, wantStatus: 422,
			want: `{"detail":[{"loc":["body"],"msg":"field required","type":"value_error.missing"}]}`},
		{name: "malformed json", path: "/step", body: `{"instance_id":`, wantStatus: 400, contains: `"detail":"malformed JSON body: `},
		{name: "trailing garbage", path: "/step", body: `{} x`, wantStatus: 400, contains: `"detail":"malformed JSON body: `},
		{name: "step bad message", path: "/step", body: `{"instance_id":"i1","messages":{"content":5}}`, wantStatus: 400,
			contains: `"detail":"messages is not a chat message: `},
		{name: "step rejected action", path: "/step", body: `{"instance_id":"i1","messages":{"content":"bad"}}`, wantStatus: 400,
			contains: `cannot parse action`},
		{name: "step env failure", path: "/step", body: `{"instance_id":"i1","messages":{"content":"fail"}}`, wantStatus: 500,
			want: `{"detail":"environment error: envservice: step on instance i1: step failed"}`},
		{name: "step panics", path: "/step", body: `{"instance_id":"i1","messages":{"content":"panic"}}`, wantStatus: 500,
			want: `{"detail":"environment error: step panicked: step exploded"}`},
		{name: "step unencodable result", path: "/step", body: `{"instance_id":"i1","messages":{"content":"chan"}}`, wantStatus: 500,
			want: `{"detail":"environment returned a result that cannot be encoded as JSON"}`},

		{name: "evaluate", path: "/evaluate", body: `{"instance_id":"i1"}`, wantStatus: 200, want: `{"success":true,"data":0}`},
		{name: "evaluate sparse", path: "/evaluate", body: `{"instance_id":"i1","params":{"sparse":true}}`, wantStatus: 200, want: `{"success":true,"data":0}`},
		{name: "evaluate no id", path: "/evaluate", body: `{}`, wantStatus: 400, want: `{"detail":"instance_id is required"}`},
		{name: "evaluate unknown", path: "/evaluate", body: `{"instance_id":"nope"}`, wantStatus: 400, want: `{"detail":"Instance nope not found!"}`},

		{name: "get info", path: "/get_info", body: `{"instance_id":"i1","messages":{},"params":{}}`, wantStatus: 200,
			want: `{"success":true,"data":{"steps":0,"tools":["echo"]}}`},
		{name: "get info no id", path: "/get_info", body: `{}`, wantStatus: 400, want: `{"detail":"instance_id is required"}`},
		{name: "get info unknown", path: "/get_info", body: `{"instance_id":"nope"}`, wantStatus: 400, want: `{"detail":"Instance nope not found!"}`},

		{name: "release", path: "/release", body: `{"instance_id":"i1"}`, wantStatus: 200, want: `{"success":true,"data":null}`},
		{name: "release unknown", path: "/release", body: `{"instance_id":"nope"}`, wantStatus: 200, want: `{"success":false,"data":null}`},
		{name: "release no id", path: "/release", body: `{"env_type":"test"}`, wantStatus: 400, want: `{"detail":"instance_id is required"}`},
		{name: "release close error", path: "/release", body: `{"instance_id":"cf"}`, wantStatus: 200, want: `{"success":true,"data":null}`},

		{name: "unknown keys ignored", path: "/evaluate", body: `{"instance_id":"i1","extra":[1,2]}`, wantStatus: 200, want: `{"success":true,"data":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestManager(t, ManagerConfig{})
			mustCreate(t, m, "t1", "i1")
			mustCreate(t, m, "close-fails", "cf")
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			// The table is the reference protocol, whose clients choose
			// their instance ids; minted ids have tests of their own.
			cfg := tt.cfg
			cfg.TrustClientIDs = true
			w := do(NewServer(m, cfg), method, tt.path, tt.body)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", w.Code, tt.wantStatus, w.Body)
			}
			body := w.Body.Bytes()
			switch {
			case tt.want == "OK":
				if string(body) != "OK" || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
					t.Fatalf("body %q (%s), want plain OK", body, w.Header().Get("Content-Type"))
				}
				return
			case tt.want != "" && !jsonEqual(t, body, tt.want):
				t.Fatalf("body %s\nwant %s", body, tt.want)
			case tt.contains != "" && !bytes.Contains(body, []byte(tt.contains)):
				t.Fatalf("body %s does not contain %s", body, tt.contains)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if w.Code == 405 && w.Header().Get("Allow") == "" {
				t.Fatal("405 without an Allow header")
			}
			if bytes.Contains(body, []byte("goroutine ")) || bytes.Contains(body, []byte(".go:")) {
				t.Fatalf("body leaks a stack trace: %s", body)
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	mustCreate(t, m, "t1", "i1")
	h := NewServer(m, ServerConfig{MaxBodyBytes: 64})
	small := `{"instance_id":"i1"}`
	big := `{"instance_id":"i1","messages":{"content":"` + strings.Repeat("x", 100) + `"}}`
	const want = `{"detail":"request body larger than 64 bytes"}`

	if w := do(h, "POST", "/evaluate", small); w.Code != 200 {
		t.Fatalf("small body: %d %s", w.Code, w.Body)
	}
	// With a Content-Length the request is refused before reading.
	if w := do(h, "POST", "/step", big); w.Code != 413 || !jsonEqual(t, w.Body.Bytes(), want) {
		t.Fatalf("big body: %d %s", w.Code, w.Body)
	}
	// Without one (chunked) the limit stops the read.
	r := httptest.NewRequest("POST", "/step", io.MultiReader(strings.NewReader(big)))
	r.Header.Set("Content-Type", "application/json")
	r.ContentLength = -1
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 413 || !jsonEqual(t, w.Body.Bytes(), want) {
		t.Fatalf("chunked big body: %d %s", w.Code, w.Body)
	}
	// The default limit is 1 MiB.
	h = NewServer(m, ServerConfig{})
	huge := `{"instance_id":"i1","messages":{"content":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}}`
	if w := do(h, "POST", "/step", huge); w.Code != 413 {
		t.Fatalf("1 MiB body: %d", w.Code)
	}
}

func TestTooManyInstancesHTTP(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{MaxInstances: 1})
	h := NewServer(m, ServerConfig{})
	if w := do(h, "POST", "/create", `{"env_type":"test","task_id":"t1"}`); w.Code != 200 {
		t.Fatalf("first create: %d %s", w.Code, w.Body)
	}
	w := do(h, "POST", "/create", `{"env_type":"test","task_id":"t1"}`)
	if w.Code != http.StatusTooManyRequests || !jsonEqual(t, w.Body.Bytes(), `{"detail":"too many instances (limit 1)"}`) {
		t.Fatalf("second create: %d %s", w.Code, w.Body)
	}
}

func TestClosedManagerHTTP(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	_ = m.Close()
	w := do(NewServer(m, ServerConfig{}), "POST", "/create", `{"env_type":"test","task_id":"t1"}`)
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("create on closed manager: %d %s", w.Code, w.Body)
	}
}

// TestRealServer drives an episode through a real HTTP stack as the Python
// trainer client does, in the Python-compatible configuration (client ids
// trusted), including its double-slash path, which must not be redirected.
func TestRealServer(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	ts := httptest.NewServer(NewServer(m, ServerConfig{TrustClientIDs: true}))
	defer ts.Close()
	client := ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	post := func(path, body string) (int, string) {
		t.Helper()
		resp, err := client.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	steps := []struct{ path, body, want string }{
		{"//get_env_profile", `{"env_type":"test","task_id":null,"instance_id":null,"messages":{},"params":{"split":"train"}}`,
			`{"success":true,"data":["t1","t2","t3"]}`},
		{"/create", `{"env_type":"test","task_id":"t1","instance_id":"r1","messages":{},"params":{}}`,
			`{"success":true,"data":{"state":[{"role":"system","content":"You are tested."},{"role":"user","content":"Solve t1"}],"info":{"instance_id":"r1","task_id":"t1"}}}`},
		{"/step", `{"env_type":"test","instance_id":"r1","messages":{"role":"assistant","content":"done"},"params":{}}`,
			`{"success":true,"data":{"state":[{"role":"user","content":"echo 1: DONE"}],"reward":1,"is_terminated":true,"info":{}}}`},
		{"/evaluate", `{"instance_id":"r1","params":{"sparse":true}}`, `{"success":true,"data":1}`},
		{"/get_info", `{"instance_id":"r1"}`, `{"success":true,"data":{"steps":1,"tools":["echo"]}}`},
		{"/release", `{"instance_id":"r1"}`, `{"success":true,"data":null}`},
		{"/release", `{"instance_id":"r1"}`, `{"success":false,"data":null}`},
	}
	for _, s := range steps {
		code, body := post(s.path, s.body)
		if code != 200 || !jsonEqual(t, []byte(body), s.want) {
			t.Fatalf("%s: %d %s\nwant %s", s.path, code, body, s.want)
		}
	}
	resp, err := client.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "OK" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, b)
	}
}

// TestGracefulShutdown cancels Serve while a step is in flight: the step
// finishes, then every instance is released and Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- NewServer(m, ServerConfig{ShutdownTimeout: 10 * time.Second, TrustClientIDs: true}).Serve(ctx, ln)
	}()

	for _, id := range []string{"a", "b", "c"} {
		resp, err := http.Post(base+"/create", "application/json",
			strings.NewReader(`{"env_type":"test","task_id":"t1","instance_id":"`+id+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("create %s: %d", id, resp.StatusCode)
		}
	}
	type result struct {
		code int
		body string
		err  error
	}
	inflight := make(chan result, 1)
	go func() {
		resp, err := http.Post(base+"/step", "application/json",
			strings.NewReader(`{"instance_id":"a","messages":{"content":"block"}}`))
		if err != nil {
			inflight <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		inflight <- result{code: resp.StatusCode, body: string(b)}
	}()
	<-env.entered
	cancel()
	// Wait until the listener is closed, so the shutdown is under way while
	// the step is still running.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("listener still open after cancel")
		}
		time.Sleep(time.Millisecond)
	}
	if st := m.Stats(); st.Live != 3 {
		t.Fatalf("instances released before the in-flight request finished: %+v", st)
	}
	env.unblock()
	r := <-inflight
	if r.err != nil || r.code != 200 || !strings.Contains(r.body, "BLOCK") {
		t.Fatalf("in-flight step: %d %q %v", r.code, r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if st := m.Stats(); st != (Stats{Created: 3, Released: 3}) {
		t.Fatalf("stats after shutdown = %+v", st)
	}
	if got := env.closed.Load(); got != 3 {
		t.Fatalf("closed %d instances, want 3", got)
	}
}

func TestServeErrors(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	err := NewServer(m, ServerConfig{}).ListenAndServe(context.Background(), "256.0.0.1:bad")
	if err == nil || !strings.HasPrefix(err.Error(), "envservice: ") {
		t.Fatalf("ListenAndServe on a bad address = %v", err)
	}

	// A listener that fails makes Serve return its error, after releasing
	// the instances.
	m2, env := newTestManager(t, ManagerConfig{})
	mustCreate(t, m2, "t1", "a")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := NewServer(m2, ServerConfig{}).Serve(context.Background(), ln); err == nil {
		t.Fatal("Serve on a closed listener returned nil")
	}
	if st := m2.Stats(); st.Live != 0 || env.closed.Load() != 1 {
		t.Fatalf("instances not released: %+v", st)
	}
}

func TestCleanPath(t *testing.T) {
	tests := map[string]string{
		"/create":           "/create",
		"//get_env_profile": "/get_env_profile",
		"///a//b///":        "/a/b",
		"/":                 "/",
		"//":                "/",
		"":                  "",
		"/step/":            "/step",
	}
	for in, want := range tests {
		if got := cleanPath(in); got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}
