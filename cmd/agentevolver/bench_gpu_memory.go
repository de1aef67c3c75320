package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memoryProbe reads the memory a run holds now, in bytes.
type memoryProbe interface {
	source() string
	read() (int64, error)
}

// memoryProbeFor picks the probe for a backend: nvidia-smi for XLA on
// CUDA, the Go heap for everything that runs on the host.
func memoryProbeFor(backend string) memoryProbe {
	if strings.HasPrefix(backend, "xla:") && strings.Contains(backend, "cuda") {
		return nvidiaSMIProbe{pid: os.Getpid()}
	}
	return goHeapProbe{}
}

// goHeapProbe reads the Go heap's live objects (runtime/metrics), where
// the pure-Go backends keep every tensor.
type goHeapProbe struct{}

func (goHeapProbe) source() string {
	return "go-heap (runtime/metrics /memory/classes/heap/objects:bytes)"
}

func (goHeapProbe) read() (int64, error) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, errors.New("runtime/metrics: no heap objects metric")
	}
	return int64(s[0].Value.Uint64()), nil
}

// settle collects garbage, so that the baseline is the live heap.
func (goHeapProbe) settle() { runtime.GC() }

// nvidiaSMIProbe reads this process's GPU memory from nvidia-smi, falling
// back to the whole GPU's used memory when the process list is not
// visible (some container runtimes hide it). With XLA's allocator told not
// to preallocate, the process holds about what its BFC allocator has
// grown to: the peak of live buffers rounded up to its regions, plus the
// CUDA context.
type nvidiaSMIProbe struct{ pid int }

func (p nvidiaSMIProbe) source() string {
	return "nvidia-smi (this process's used_memory, else the GPU's memory.used; XLA client preallocate=false)"
}

func (p nvidiaSMIProbe) read() (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits").Output()
	if err == nil {
		if mib, ok := parseSMIApps(string(out), p.pid); ok {
			return mib << 20, nil
		}
	}
	out, err = exec.CommandContext(ctx, "nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return 0, fmt.Errorf("nvidia-smi: %w", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	mib, err := strconv.ParseInt(strings.TrimSpace(first), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("nvidia-smi memory.used %q: %w", first, err)
	}
	return mib << 20, nil
}

// parseSMIApps finds pid's used MiB in nvidia-smi's "pid, used_memory"
// CSV lines.
func parseSMIApps(out string, pid int) (int64, bool) {
	for line := range strings.SplitSeq(out, "\n") {
		a, b, ok := strings.Cut(line, ",")
		if !ok {
			continue
		}
		if p, err := strconv.Atoi(strings.TrimSpace(a)); err != nil || p != pid {
			continue
		}
		mib, err := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if err != nil || mib < 0 {
			return 0, false
		}
		return mib, true
	}
	return 0, false
}

// memorySampler polls a probe in the background and keeps the largest
// reading.
type memorySampler struct {
	probe    memoryProbe
	baseline int64
	done     chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	peak     int64
	err      error
}

// startMemorySampler reads the baseline, then polls every interval until
// stop.
func startMemorySampler(p memoryProbe, interval time.Duration) *memorySampler {
	s := &memorySampler{probe: p, done: make(chan struct{})}
	if st, ok := p.(interface{ settle() }); ok {
		st.settle()
	}
	s.baseline, s.err = p.read()
	s.peak = s.baseline
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

// sample takes one reading.
func (s *memorySampler) sample() {
	v, err := s.probe.read()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.peak = max(s.peak, v)
}

// peakNow takes a reading and returns the peak so far.
func (s *memorySampler) peakNow() int64 {
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// stop ends the polling and returns the peak and the first read error.
func (s *memorySampler) stop() (int64, error) {
	select {
	case <-s.done:
	default:
		s.sample()
		close(s.done)
	}
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.err
}
