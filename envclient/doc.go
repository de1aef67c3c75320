// Package envclient defines Env, the environment contract of the SDK, and
// Client, an Env that speaks the env-service HTTP protocol of the Python
// AgentEvolver (env_service/env_service.py) and of package envservice.
//
// # Protocol
//
// Every route but GET /healthz is a POST of one JSON body with five fields,
// all always present:
//
//	{"env_type": "...", "task_id": "..." | null, "instance_id": "..." | null,
//	 "messages": {...}, "params": {...}}
//
// Step sends the action, {"role": "assistant", "content": ...}, as messages;
// the other routes send {}. A success is {"success": bool, "data": ...};
// errors are 400 or 500 with {"detail": "text"} (a 500's detail is a Python
// traceback), 422 with FastAPI's {"detail": [{"loc": [...], "msg": ...}]}
// and 429 when the service is at its instance limit. The routes are
// /get_env_profile (TaskIDs), /create, /step, /evaluate, /get_info (Info),
// /release and /healthz (Health).
//
// # Errors
//
// HTTP errors are *StatusError and transport failures *TransportError; both
// unwrap to a sentinel for errors.Is: ErrInstanceNotFound (400 "Instance
// <id> not found!"), ErrUnauthorized (401 or 403: the token is missing or
// wrong), ErrBadRequest (other 4xx), ErrTooManyInstances (429),
// ErrUnavailable (connection failures, timeouts, 408, 502, 503, 504 that
// outlast the retries), ErrServer (500 and other statuses). A body that
// cannot be decoded, or one larger than Config.MaxResponseBytes, is
// ErrBadResponse. When ctx ends, calls return promptly with an error that
// wraps ctx.Err(); an attempt's own timeout does not count as
// context.DeadlineExceeded.
//
// # Timeouts and retries
//
// Each attempt has its own timeout drawn from [Timeout, Timeout +
// TimeoutJitter) (by default 200–350 s, the Python standalone client's
// 150 + U(50, 200) s). Transient failures are retried up to MaxRetries times
// (default 2) after an exponential backoff with equal jitter; a Retry-After
// header is honoured up to BackoffMax. Which failures are retried depends on
// whether the request may have reached the server:
//
//   - never sent (connection refused, unknown host, a connection that failed
//     before the request was written), 408 and 429: retried on every route,
//     since the server did nothing. 429 is retried because instances free up
//     as other episodes end; when retries run out the error is still
//     ErrTooManyInstances.
//   - possibly processed (attempt timeout, connection reset after sending, a
//     broken response, 502, 503, 504): retried for TaskIDs, Evaluate, Info,
//     Release and Health, which are safe to repeat, but not for Create and
//     Step unless Config.RetryNonIdempotent is set: a repeated step acts
//     twice, a repeated create leaks an instance. Such an error has
//     TransportError.MayHaveReachedServer set (or a 5xx StatusError).
//   - anything else (400, 401, 403, 422, 500, malformed bodies, a server
//     certificate that is not trusted, a server that does not speak TLS):
//     never retried.
//
// The Python trainer client makes one attempt with a 300 s timeout and
// retries whole episodes one level up; the standalone client tries three
// times whatever the failure. This client sits between them and, unless
// told otherwise, never repeats an action the environment may already have
// taken.
//
// # Authentication, TLS and instance ids
//
// A Go env service may require a bearer token (envservice.ServerConfig.Token,
// "agentevolver serve-env --token"): set Config.Token and every request
// carries it. A missing or wrong token is ErrUnauthorized, reported at once
// with a hint to pass the token. For an https BaseURL with a self-signed
// certificate, Config.CAFile (or Config.TLSConfig) names the certificate to
// trust.
//
// Such a service mints the id of an instance created by a caller it does not
// trust (one without the token, unless it runs with TrustClientIDs), whatever
// instance_id the create named, and reports it in the answer's
// info.instance_id. Create returns it in InitState.Info["instance_id"]
// (InitState.InstanceID), and callers must use that id from then on; the
// agent flow does. The Python trainer client, which keeps using the uuid it
// chose, needs a server that trusts client ids.
//
// # Fallback
//
// With Config.Fallback, a call that still fails after its retries returns
// the Python standalone client's placeholder instead of an error, and logs
// a warning: TaskIDs an empty list; Create the state
// [system "create query failed, this is a empty task.", user "create failed,
// this is a empty task,please close this task."] with info {"instance_id":
// <id or "">, "task_id": <id or "">}; Step the state [assistant "Step failed
// (timeout or exception),please retry"], reward 0, not terminated, info
// {"instance_id": <id>, "task_id": ""}; Evaluate 0; Info null; Release
// false. A cancelled ctx and ErrUnauthorized are still errors. The option
// is off by default because a placeholder is indistinguishable from data to
// the trainer.
//
// # Deviations from the reference
//
// The Python trainer client builds the /get_env_profile URL with a double
// slash ([BUG/QUIRK] §1.3); this client never does. Ids left empty are sent
// as null, as the Python client sends None.
//
// Retries are a small loop of its own rather than
// github.com/hashicorp/go-retryablehttp: the retry decision needs to know,
// per route, whether a failed request may have been processed; the
// per-attempt timeout must cover reading the body and be drawn with jitter;
// the jitter source must be injectable; and exhausted retries must surface
// as the typed errors above.
package envclient
