package runview

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/org/agentevolver/internal/hostcheck"
	"github.com/org/agentevolver/runlog/episodelog"
)

//go:embed static
var static embed.FS

// Config configures a Server. Dirs is required.
type Config struct {
	// Dirs are the run directories, or directories with runs below them,
	// the viewer may read; nothing outside them is served.
	Dirs []string
	// AllowedHosts are names, besides the server's own, a request's Host
	// header may carry (hostcheck.Check): the machine's name when the
	// server listens beyond loopback, a reverse proxy's name.
	AllowedHosts []string
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
}

// Server is the viewer's http.Handler. Make one with New and Close it when
// done; it is safe for concurrent use.
type Server struct {
	cfg   Config
	roots []root
	mux   *http.ServeMux
	log   *slog.Logger
	index indexes
}

// New opens the directories of cfg.Dirs. A directory that does not exist
// or is not a directory is an error naming it.
func New(cfg Config) (*Server, error) {
	if len(cfg.Dirs) == 0 {
		return nil, errors.New("runview: no run directory given")
	}
	s := &Server{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, d := range cfg.Dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("runview: %s: %w", d, err)
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("runview: run directory %s: %w", d, err)
		}
		s.roots = append(s.roots, root{dir: abs, r: r})
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		s.Close()
		return nil, err
	}
	m := http.NewServeMux()
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(sub)))
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(sub, "index.html")
		if err != nil {
			http.Error(w, "page missing", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(b)
	})
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.HandleFunc("GET /api/runs", s.handleRuns)
	m.HandleFunc("GET /api/metrics", s.handleMetrics)
	m.HandleFunc("GET /api/episodes", s.handleEpisodes)
	m.HandleFunc("GET /api/episode", s.handleEpisode)
	s.mux = m
	return s, nil
}

// Close releases the directories.
func (s *Server) Close() error {
	for _, r := range s.roots {
		_ = r.r.Close()
	}
	s.roots = nil
	return nil
}

// ServeHTTP serves the page and its API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	if err := hostcheck.Check(r, s.cfg.AllowedHosts); err != nil {
		writeError(w, http.StatusForbidden, fmt.Errorf("%w (allow it with agentevolver view --allow-host)", err))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, errors.New("runview: the viewer only reads"))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Runs lists the runs below the directories, as GET /api/runs does.
func (s *Server) Runs() []Run { return discover(s.roots) }

func (s *Server) handleRuns(w http.ResponseWriter, _ *http.Request) {
	runs := s.Runs()
	if runs == nil {
		runs = []Run{}
	}
	writeJSON(w, http.StatusOK, runs)
}

// runFS resolves the run query parameter to its directory.
func (s *Server) runFS(r *http.Request) (string, fs.FS, *os.Root, string, error) {
	id := r.URL.Query().Get("run")
	i, p, err := parseID(id, len(s.roots))
	if err != nil {
		return "", nil, nil, "", err
	}
	rt := s.roots[i].r
	info, err := rt.Stat(p)
	if err != nil || !info.IsDir() {
		return "", nil, nil, "", fmt.Errorf("%w: %q", errNoRun, clip(id))
	}
	return id, rt.FS(), rt, p, nil
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	_, fsys, _, p, err := s.runFS(r)
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	m, err := readMetrics(fsys, path.Join(p, MetricsFile))
	if err != nil {
		s.log.Warn("runview: metrics", "run", r.URL.Query().Get("run"), "err", err)
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// openEpisodes opens a run's episode log and brings its index up to date.
func (s *Server) openEpisodes(r *http.Request) (*os.File, *index, []EpisodeSummary, int, int, error) {
	id, _, rt, p, err := s.runFS(r)
	if err != nil {
		return nil, nil, nil, 0, http.StatusNotFound, err
	}
	f, err := rt.Open(path.Join(p, EpisodesFile))
	if err != nil {
		if isNotExist(err) {
			return nil, nil, nil, 0, http.StatusOK, nil
		}
		return nil, nil, nil, 0, http.StatusInternalServerError, fmt.Errorf("runview: %w", err)
	}
	ix := s.index.get(id)
	items, skipped, err := ix.refresh(f)
	if err != nil {
		f.Close()
		return nil, nil, nil, 0, http.StatusInternalServerError, err
	}
	return f, ix, items, skipped, http.StatusOK, nil
}

func (s *Server) handleEpisodes(w http.ResponseWriter, r *http.Request) {
	f, _, items, skipped, code, err := s.openEpisodes(r)
	if err != nil {
		writeError(w, code, err)
		return
	}
	if f != nil {
		f.Close()
	}
	q := r.URL.Query()
	flt := Filter{Phase: q.Get("phase"), Task: q.Get("task"), Outcome: q.Get("outcome"), Cause: q.Get("cause")}
	if v := q.Get("step"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("runview: step %q is not a number", clip(v)))
			return
		}
		flt.Step, flt.HasStep = n, true
	}
	switch flt.Outcome {
	case "", "success", "failure", "failed":
	default:
		writeError(w, http.StatusBadRequest, fmt.Errorf("runview: outcome %q: want success, failure or failed", clip(flt.Outcome)))
		return
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > 1000 {
		limit = 200
	}
	writeJSON(w, http.StatusOK, listEpisodes(items, skipped, flt, max(offset, 0), limit))
}

func (s *Server) handleEpisode(w http.ResponseWriter, r *http.Request) {
	at, err := strconv.ParseInt(r.URL.Query().Get("at"), 10, 64)
	if err != nil || at < 0 {
		writeError(w, http.StatusBadRequest, errors.New("runview: at must be an episode's offset"))
		return
	}
	f, ix, _, _, code, err := s.openEpisodes(r)
	if err != nil {
		writeError(w, code, err)
		return
	}
	if f == nil || !ix.has(at) {
		if f != nil {
			f.Close()
		}
		writeError(w, http.StatusNotFound, fmt.Errorf("runview: no episode at %d", at))
		return
	}
	defer f.Close()
	ep, err := episodelog.ReadAt(f, at)
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	writeJSON(w, http.StatusOK, ep)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}
