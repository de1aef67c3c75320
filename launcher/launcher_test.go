//go:build unix

package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver/internal/proctest"
)

// helperVar makes the test binary a small service instead of running
// tests (see TestMain).
const helperVar = "LAUNCHER_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperVar) {
	case "":
		os.Exit(proctest.Main(m))
	case "http":
		// An HTTP service that answers /healthz, after a short start-up.
		time.Sleep(200 * time.Millisecond)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Printf("serving on http://%s/\n", ln.Addr())
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
		fmt.Println(http.Serve(ln, mux))
		os.Exit(1)
	}
}

// newLauncher returns a launcher on a fresh directory that polls fast.
func newLauncher(t *testing.T) *Launcher {
	t.Helper()
	return &Launcher{Dir: t.TempDir(), Host: "testhost", Poll: 20 * time.Millisecond, StopGrace: time.Second}
}

// shellService runs script with sh.
func shellService(name, script, readyLine string) Service {
	return Service{Name: name, Command: []string{"/bin/sh", "-c", script}, Ready: Ready{Line: readyLine, Timeout: 10 * time.Second}}
}

// stopAll stops every service of l at the end of a test.
func stopAll(t *testing.T, l *Launcher) {
	t.Cleanup(func() {
		if _, err := l.Stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(data)
		return !strings.HasPrefix(s[strings.LastIndexByte(s, ')')+1:], " Z")
	}
	return syscall.Kill(pid, 0) == nil
}

// waitDead waits up to 5 s for pid to end.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
	}
}

func TestStartReadyLineStatusStop(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("echo", "echo starting; sleep 0.2; echo 'Ready: serving on http://127.0.0.1:1234/ now'; exec sleep 30", "serving on")
	insts, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 {
		t.Fatalf("%d instances", len(insts))
	}
	in := insts[0]
	if in.Reused || in.PID <= 1 || in.PGID != in.PID || in.URL != "http://127.0.0.1:1234/" {
		t.Errorf("instance %+v: want a new leader of its group with the ready line's URL", in.Record)
	}
	if pgid, err := syscall.Getpgid(in.PID); err != nil || pgid != in.PID {
		t.Errorf("pgid %d (%v), want the service's own group %d", pgid, err, in.PID)
	}
	if !regexp.MustCompile(`/echo\.[0-9a-f]{8}\.testhost\.log$`).MatchString(in.Log) {
		t.Errorf("log %s, want <dir>/echo.<hash>.testhost.log", in.Log)
	}
	rec, err := readRecord(strings.TrimSuffix(in.Log, ".log") + ".json")
	if err != nil || rec.PID != in.PID || rec.URL != in.URL || rec.Command[2] != s.Command[2] {
		t.Fatalf("record %+v (%v)", rec, err)
	}
	sts, err := l.Status(context.Background())
	if err != nil || len(sts) != 1 || !sts[0].Alive || sts[0].Name != "echo" {
		t.Fatalf("status %+v (%v)", sts, err)
	}
	stopped, err := l.Stop(context.Background(), "echo")
	if err != nil || len(stopped) != 1 || !stopped[0].WasRunning || stopped[0].Killed {
		t.Fatalf("stop %+v (%v)", stopped, err)
	}
	waitDead(t, in.PID)
	if sts, _ := l.Status(context.Background()); len(sts) != 0 {
		t.Errorf("status after stop: %+v", sts)
	}
	if _, err := os.Stat(in.Log); err != nil {
		t.Errorf("the log went with the service: %v", err)
	}
}

func TestStartReadyURL(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The URL is only known from the log: wait for the line, then probe a
	// URL that 404s until... no: probe a fixed URL after the line.
	s := Service{Name: "web", Command: []string{exe}, Env: []string{helperVar + "=http"},
		Ready: Ready{Line: "serving on", Timeout: 10 * time.Second}}
	insts, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	url := insts[0].URL
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL %q", url)
	}
	// A second service waits on that URL's health route.
	s2 := shellService("waiter", "exec sleep 30", "")
	s2.Ready.URL = url + "healthz"
	insts2, err := l.Start(context.Background(), []Service{s2})
	if err != nil || insts2[0].URL != url {
		t.Fatalf("ready URL: %+v (%v)", insts2, err)
	}
	// And one on a URL that never answers is not ready.
	s3 := shellService("never", "exec sleep 30", "")
	s3.Ready = Ready{URL: url + "missing", Timeout: 300 * time.Millisecond}
	_, err = l.Start(context.Background(), []Service{s3})
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), url+"missing") {
		t.Errorf("404 URL: %v, want ErrNotReady naming it", err)
	}
}

func TestReadyTimeoutNamesLogAndStops(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("slow", "echo warming up; exec sleep 30", "never printed")
	s.Ready.Timeout = 300 * time.Millisecond
	start := time.Now()
	insts, err := l.Start(context.Background(), []Service{s})
	if len(insts) != 0 || !errors.Is(err, ErrNotReady) {
		t.Fatalf("%v, %v: want ErrNotReady", insts, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v for a 300 ms timeout", d)
	}
	var se *ServiceError
	if !errors.As(err, &se) || se.Name != "slow" || !strings.HasSuffix(se.Log, ".log") {
		t.Fatalf("%v: want a ServiceError of slow with its log", err)
	}
	msg := err.Error()
	for _, want := range []string{"companion slow", se.Log, `"never printed"`, "warming up"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if sts, _ := l.Status(context.Background()); len(sts) != 0 {
		t.Errorf("a service that was not ready still runs: %+v", sts)
	}
}

func TestExitDuringStartup(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	insts, err := l.Start(context.Background(), []Service{
		shellService("crash", "echo 'bad config: no such model' >&2; exit 3", "ready"),
		shellService("fine", "echo ready; exec sleep 30", "ready"),
	})
	if !errors.Is(err, ErrExited) {
		t.Fatalf("%v: want ErrExited", err)
	}
	msg := err.Error()
	for _, want := range []string{"companion crash", "exit status 3", "bad config: no such model", "crash."} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "companion fine") || len(insts) != 1 || insts[0].Name != "fine" {
		t.Errorf("the healthy companion: %v, %v", insts, err)
	}
}

func TestReuseRunningInstance(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("svc", "echo ready; exec sleep 30", "ready")
	first, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	// Another launcher on the same directory, as a second command would be.
	l2 := &Launcher{Dir: l.Dir, Host: l.Host, Poll: l.Poll}
	second, err := l2.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	if !second[0].Reused || second[0].PID != first[0].PID || second[0].Log != first[0].Log {
		t.Errorf("second start %+v, want the first instance %d reused", second[0].Record, first[0].PID)
	}
	// Changing the command is another instance, which may not run beside it.
	s.Command[2] = "echo ready; exec sleep 31"
	_, err = l2.Start(context.Background(), []Service{s})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "launch stop svc") {
		t.Errorf("changed command: %v, want ErrConflict saying how to stop the old one", err)
	}
}

func TestConcurrentStartsStartOnce(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("once", "echo ready; exec sleep 30", "ready")
	pids := make([]int, 3)
	var wg sync.WaitGroup
	for i := range pids {
		wg.Go(func() {
			li := &Launcher{Dir: l.Dir, Host: l.Host, Poll: l.Poll}
			insts, err := li.Start(context.Background(), []Service{s})
			if err != nil {
				t.Error(err)
				return
			}
			pids[i] = insts[0].PID
		})
	}
	wg.Wait()
	if pids[0] != pids[1] || pids[1] != pids[2] {
		t.Errorf("three concurrent starts ran %v, want one process", pids)
	}
}

func TestStaleRecordReplaced(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("svc", "echo ready; exec sleep 30", "ready")
	first, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	old := first[0]
	// The service dies behind the launcher's back.
	if err := syscall.Kill(-old.PGID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDead(t, old.PID)
	sts, _ := l.Status(context.Background())
	if len(sts) != 1 || sts[0].Alive {
		t.Fatalf("status of a dead service: %+v", sts)
	}
	second, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	if second[0].Reused || second[0].PID == old.PID || second[0].Log != old.Log {
		t.Errorf("restart %+v, want a new process with the same log path", second[0].Record)
	}
	if data, err := os.ReadFile(old.Log + ".prev"); err != nil || !strings.Contains(string(data), "ready") {
		t.Errorf("the dead instance's log was not kept: %q %v", data, err)
	}
}

// A record whose pid and group now belong to an unrelated process (one
// that does not carry the record's token) is stale: it is neither reused
// nor signalled.
func TestStopKillsOnlyRecordedGroups(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	// An unrelated process group the launcher never started.
	stranger := exec.Command("sleep", "30")
	stranger.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stranger.Process.Kill()
		stranger.Wait()
	}()
	pid := stranger.Process.Pid
	// A forged record naming it, as if its pid had been reused.
	s := shellService("svc", "echo ready; exec sleep 30", "ready")
	hash, err := s.hash()
	if err != nil {
		t.Fatal(err)
	}
	rec := Record{Name: "svc", Hash: hash, Host: "testhost", PID: pid, PGID: pid, Command: s.Command,
		Token: "svc." + hash + ".testhost.0011223344556677", Started: time.Now(), Log: "x.log"}
	_, recPath, _ := l.files(rec.base())
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeRecord(recPath, rec); err != nil {
		t.Fatal(err)
	}
	// An instance of another service the launcher did start.
	other, err := l.Start(context.Background(), []Service{shellService("other", "echo ready; exec sleep 30", "ready")})
	if err != nil {
		t.Fatal(err)
	}
	stopped, err := l.Stop(context.Background(), "svc")
	if err != nil || len(stopped) != 1 || stopped[0].WasRunning {
		t.Fatalf("stop svc: %+v (%v), want its record removed as not running", stopped, err)
	}
	if !running(pid) {
		t.Fatal("Stop killed a process group it did not start")
	}
	if !running(other[0].PID) {
		t.Fatal("Stop svc stopped another companion")
	}
	// Start does not reuse the stranger either.
	insts, err := l.Start(context.Background(), []Service{s})
	if err != nil || insts[0].Reused || insts[0].PID == pid {
		t.Fatalf("start over a forged record: %+v (%v)", insts, err)
	}
	if _, err := l.Stop(context.Background(), "nosuch"); !errors.Is(err, ErrUnknown) {
		t.Errorf("stop nosuch: %v, want ErrUnknown", err)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	l := newLauncher(t)
	l.StopGrace = 300 * time.Millisecond
	stopAll(t, l)
	// The shell and its children ignore SIGTERM.
	s := shellService("stubborn", `trap "" TERM; echo ready; sleep 30 & sleep 30; wait`, "ready")
	insts, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stopped, err := l.Stop(context.Background(), "stubborn")
	if err != nil || len(stopped) != 1 || !stopped[0].Killed {
		t.Fatalf("stop: %+v (%v), want SIGKILL after the grace", stopped, err)
	}
	if d := time.Since(start); d < l.StopGrace || d > 5*time.Second {
		t.Errorf("stop took %v with a %v grace", d, l.StopGrace)
	}
	waitDead(t, insts[0].PID)
	if groupExists(insts[0].PGID) {
		// zombies may linger until reaped; the group must hold none alive
		if len(groupMembers(insts[0].Record)) > 0 {
			t.Error("the group's children survived")
		}
	}
}

func TestWatchReportsExit(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	insts, err := l.Start(context.Background(), []Service{
		shellService("brief", "echo ready; sleep 0.3; echo 'lost the database' >&2; exit 2", "ready"),
	})
	if err != nil {
		t.Fatal(err)
	}
	reused, err := (&Launcher{Dir: l.Dir, Host: l.Host, Poll: l.Poll}).Start(context.Background(), []Service{
		shellService("brief", "echo ready; sleep 0.3; echo 'lost the database' >&2; exit 2", "ready"),
	})
	if err != nil || !reused[0].Reused {
		t.Fatalf("reuse: %v %v", reused, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var reports []error
	l.Watch(ctx, append(insts, reused...), func(_ *Instance, err error) {
		mu.Lock()
		reports = append(reports, err)
		mu.Unlock()
	})
	if len(reports) != 2 {
		t.Fatalf("%d reports, want 2 (started and reused): %v", len(reports), reports)
	}
	for _, err := range reports {
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), insts[0].Log) {
			t.Errorf("report %v: want ErrExited with the log", err)
		}
	}
	if !strings.Contains(reports[0].Error()+reports[1].Error(), "exit status 2") {
		t.Errorf("no exit status in %v", reports)
	}
}

func TestStartChecksServices(t *testing.T) {
	l := newLauncher(t)
	for _, tt := range []struct {
		s    Service
		want string
	}{
		{Service{Name: "bad/name", Command: []string{"true"}}, "companion name"},
		{Service{Name: "a", Command: nil}, "no command"},
		{Service{Name: "a", Command: []string{"no-such-program-xyz"}}, "executable file not found"},
		{Service{Name: "a", Command: []string{"true"}, Dir: filepath.Join(t.TempDir(), "missing")}, "not a directory"},
		{Service{Name: "a", Command: []string{"true"}, Ready: Ready{URL: "ftp://x"}}, "not an http(s) URL"},
		{Service{Name: "a", Command: []string{"true"}, Env: []string{"NOEQUALS"}}, "not KEY=VALUE"},
	} {
		_, err := l.Start(context.Background(), []Service{tt.s})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.s, err, tt.want)
		}
	}
}

func TestCorruptRecordMovedAside(t *testing.T) {
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("svc", "echo ready; exec sleep 30", "ready")
	hash, _ := s.hash()
	_, recPath, _ := l.files("svc." + hash + ".testhost")
	os.MkdirAll(l.Dir, 0o755)
	if err := os.WriteFile(recPath, []byte(`{"name": "svc", "pid": "not a number"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Start(context.Background(), []Service{s}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(recPath + ".bad"); err != nil {
		t.Errorf("corrupt record not kept aside: %v", err)
	}
}

// A script that starts the server in the background and exits leaves a
// running service, not an exit: it is ready, and stopping it stops the
// server.
func TestLeaderExitsGroupLivesOn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("without /proc the children of a leader that exited are not recognised")
	}
	l := newLauncher(t)
	stopAll(t, l)
	s := shellService("daemon", "(sleep 0.2; echo ready; exec sleep 30) & exit 0", "ready")
	insts, err := l.Start(context.Background(), []Service{s})
	if err != nil {
		t.Fatalf("%v: the background server was taken for an exit", err)
	}
	members := groupMembers(insts[0].Record)
	if len(members) != 1 || members[0] == insts[0].PID {
		t.Fatalf("group members %v, want the background server alone", members)
	}
	if _, err := l.Stop(context.Background(), "daemon"); err != nil {
		t.Fatal(err)
	}
	waitDead(t, members[0])
}
