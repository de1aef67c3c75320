// Package launcher starts the companion services of a training run
// (environment services, the experience service, the arena's page, the
// run viewer) beside it, as the original AgentEvolver's launcher.py does,
// and keeps track of them.
//
// A configuration's launch section ([Config], YAML key "launch" of
// trainer.Config) names the companions; [Config.Services] resolves them
// into [Service]s: a command, its directory and variables, and how to
// tell it is ready (a line in its log, an answering URL). A [Launcher]
// then:
//
//  1. Starts each service detached, the leader of a new session and
//     process group, with stdout and stderr in
//     <dir>/<name>.<hash>.<host>.log, where hash identifies the command,
//     directory, variables and configuration (8 hex digits, as the
//     original's). Its pid, process group, command and a random token
//     (in the variable AGENTEVOLVER_COMPANION of the service's
//     environment) go to a [Record] in <name>.<hash>.<host>.json.
//  2. Reuses a service whose record names a live process group that
//     carries its token: one instance per name and hash, even with two
//     launchers at once (a file lock per service). A record of a dead
//     service is replaced, its log kept as .log.prev; a live instance of
//     the same name with another hash is an [ErrConflict], never a second
//     service on the same port.
//  3. Waits for all of them to be ready, each within its timeout, and
//     names the service and its log, with the log's last lines, when one
//     exits during start-up ([ErrExited]) or is not ready in time
//     ([ErrNotReady], after which it is stopped). [Launcher.Watch]
//     reports a service that exits later.
//  4. Lists them ([Launcher.Status]) and stops them ([Launcher.Stop]):
//     SIGTERM to the process group, SIGKILL after a grace period.
//
// Unlike the original's --kill, which kills every python and ray process
// of the user, Stop signals only process groups it recorded, and only
// while a process of the group carries the service's token, so a pid
// reused by an unrelated program is left alone. On Linux the token is
// read from /proc; on other Unix systems the group leader is recognised
// by its start time (ps), and the children of a leader that has exited
// are not signalled. Other systems are not supported ([ErrUnsupported]).
//
// Package launcher/dotenv reads the .env file the original's launcher
// loads first.
package launcher
