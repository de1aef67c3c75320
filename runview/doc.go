// Package runview serves a local web page over training runs: their
// metric curves, the validation curves of several runs or of an
// experiment's arms side by side, and every episode the run recorded
// (runlog/episodelog) with its conversation and token view, filterable by
// task, outcome and failure cause. `agentevolver view RUN_DIR...` runs it.
//
// The server reads only below the directories it was given, through
// os.Root, so no request path, symbolic link or ".." reaches a file
// outside them. A directory may be a run (it holds metrics.jsonl or
// episodes.jsonl) or hold runs below it, as an experiment's output does
// (NAME/ARM/seed-N/). Runs are looked for again on every listing, so runs
// that start while the page is open appear.
//
// Runs are read while they are written: a final line without its newline
// is left for a later read, a malformed metrics line is skipped and
// counted, and the episode index grows by the lines added since the last
// request (a file that shrank, as a resumed run's does, is indexed
// afresh).
//
// Like arena/web's page, every request must name the server in its Host
// header (internal/hostcheck: the guard against DNS rebinding) and only
// GET and HEAD are served; the page's scripts and styles are embedded and
// a Content-Security-Policy admits nothing else.
package runview
