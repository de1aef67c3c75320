package envservice_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

// guessEnv is a tiny environment: guess the number named by the task id.
type guessEnv struct{}

func (guessEnv) TaskIDs(_ context.Context, split string, _ map[string]any) ([]string, error) {
	if split == "train" {
		return []string{"3", "7"}, nil
	}
	return []string{"5"}, nil
}

func (guessEnv) New(_ context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	return &guess{secret: taskID}, nil
}

type guess struct {
	secret string
	solved bool
}

func (g *guess) InitState(context.Context, map[string]any) (envclient.InitState, error) {
	return envclient.InitState{State: []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "Answer with a digit."},
		{Role: agentevolver.RoleUser, Content: "Guess my number."},
	}}, nil
}

func (g *guess) Step(_ context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	g.solved = strings.TrimSpace(action.Content) == g.secret
	reply := "wrong"
	if g.solved {
		reply = "right"
	}
	return envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: reply}},
		IsTerminated: g.solved,
	}, nil
}

func (g *guess) Evaluate(context.Context, map[string]any) (float64, error) {
	if g.solved {
		return 1, nil
	}
	return 0, nil
}

func (g *guess) Info(context.Context, map[string]any) (any, error) { return "no tools", nil }

func (g *guess) Close() error { return nil }

// Serve an environment over the env-service protocol and play one episode
// with plain HTTP requests, as the Python trainer client does: it names its
// own instance ids and sends no token, so the server must trust client ids
// (by default it would mint its own).
func ExampleServer() {
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register("guess", guessEnv{}); err != nil {
		panic(err)
	}
	defer m.Close()
	ts := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: "guess", TrustClientIDs: true}))
	defer ts.Close()

	post := func(path, body string) {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.StatusCode, string(out))
	}
	post("//get_env_profile", `{"env_type":"guess","params":{"split":"train"}}`)
	post("/create", `{"env_type":"guess","task_id":"7","instance_id":"demo"}`)
	post("/step", `{"instance_id":"demo","messages":{"role":"assistant","content":"7"}}`)
	post("/evaluate", `{"instance_id":"demo","params":{"sparse":true}}`)
	post("/release", `{"instance_id":"demo"}`)
	post("/step", `{"instance_id":"demo","messages":{"role":"assistant","content":"7"}}`)
	// Output:
	// 200 {"success":true,"data":["3","7"]}
	// 200 {"success":true,"data":{"state":[{"role":"system","content":"Answer with a digit."},{"role":"user","content":"Guess my number."}],"info":{"instance_id":"demo","task_id":"7"}}}
	// 200 {"success":true,"data":{"state":[{"role":"user","content":"right"}],"reward":0,"is_terminated":true,"info":{}}}
	// 200 {"success":true,"data":1}
	// 200 {"success":true,"data":null}
	// 400 {"detail":"Instance demo not found!"}
}

// Serve an environment on a socket behind a token and reach it with
// envclient: a client without the token is refused, one with it plays an
// episode on the instance id the server chose.
func ExampleServer_Serve() {
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register("guess", guessEnv{}); err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	const token = "example-token-0123456789abcdef" // use a random one: openssl rand -hex 32
	srv := envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: "guess", Token: token})
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }() // Serve shuts m down when ctx ends
	base := "http://" + ln.Addr().String()

	stranger, err := envclient.New(envclient.Config{BaseURL: base, EnvType: "guess"})
	if err != nil {
		panic(err)
	}
	_, err = stranger.Create(ctx, "guess", "7", "", nil)
	fmt.Println("without the token:", errors.Is(err, envclient.ErrUnauthorized))

	client, err := envclient.New(envclient.Config{BaseURL: base, EnvType: "guess", Token: token})
	if err != nil {
		panic(err)
	}
	init, err := client.Create(ctx, "guess", "7", "", nil)
	if err != nil {
		panic(err)
	}
	id := init.InstanceID() // minted by the server
	res, err := client.Step(ctx, id, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "7"}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State[0].Content, res.IsTerminated)
	released, _ := client.Release(ctx, id)
	fmt.Println("released:", released)
	stop()
	fmt.Println("serve:", <-served)
	// Output:
	// without the token: true
	// right true
	// released: true
	// serve: <nil>
}

// A Manager is an envclient.Env in process: a trainer can use registered Go
// environments without HTTP.
func ExampleManager() {
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register("guess", guessEnv{}); err != nil {
		panic(err)
	}
	defer m.Close()
	var env envclient.Env = m

	ctx := context.Background()
	init, err := env.Create(ctx, "guess", "3", "", nil)
	if err != nil {
		panic(err)
	}
	id := init.InstanceID()
	for _, g := range []string{"1", "3"} {
		res, err := env.Step(ctx, id, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: g}, nil)
		if err != nil {
			panic(err)
		}
		fmt.Println(g, res.State[0].Content, res.IsTerminated)
	}
	score, _ := env.Evaluate(ctx, id, nil)
	released, _ := env.Release(ctx, id)
	fmt.Println(score, released, m.Stats().Live)
	// Output:
	// 1 wrong false
	// 3 right true
	// 1 true 0
}
