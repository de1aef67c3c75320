// Package envtest checks that an environment keeps the contract of
// envservice.Environment and envservice.Instance, in the spirit of
// testing/fstest: one function, TestEnv, that every environment runs on
// itself, the built-in ones and users' own alike, so that the contract
// lives in one place.
//
// A test of an environment package calls Run, which runs each check as a
// subtest so that a failure names the property it broke:
//
//	func TestConformance(t *testing.T) {
//		env, err := mytool.New(mytool.Config{})
//		if err != nil {
//			t.Fatal(err)
//		}
//		envtest.Run(t, env, envtest.Options{Deterministic: true})
//	}
//
// TestEnv runs the same checks outside a test and returns every failure it
// found, joined with errors.Join, or nil.
//
// # Checks
//
// Each check is named (the subtest's name under Run, the prefix of its
// failures under TestEnv) and every failure names the task and the call:
//
//   - TaskIDs: each split of Options.Splits lists tasks, none empty or
//     listed twice, the same list on a second call; an unknown split is an
//     error matching envclient.ErrBadRequest (or an empty list); a
//     cancelled context gives an error wrapping context.Canceled (or the
//     list).
//   - New: New of an unknown task id (plain, 64 KiB long, invalid UTF-8,
//     a path, a NUL byte) fails with an error matching
//     envclient.ErrBadRequest and no instance (a nil pointer of the
//     instance's type counts as none: a Manager ignores whatever comes with
//     an error); a cancelled context gives an error wrapping
//     context.Canceled (or an instance); create params of the wrong type do
//     not panic. Everywhere, New must not return a nil instance without an
//     error.
//   - Expert (when the environment is an envservice.Expert): each played
//     task's demonstration is a non-empty list of assistant messages.
//   - Episode: Options.Tasks tasks of each split are played on a fresh
//     instance, each through New, InitState, Info, Evaluate, the episode's
//     actions (Options.Actions, else the expert's demonstration, else one
//     arbitrary text), Evaluate dense and sparse, a Step after the end and
//     Close. The initial state is a system and a user message (see
//     Options.LooseInitState); every message has a known role; every
//     result is JSON-serialisable as the env service sends it; rewards are
//     finite; scores lie in [0, 1] and sparse ones are 0 or 1; a step after
//     the episode ended is an error or terminated again; the expert's
//     demonstration ends the episode on its last action, not before, and
//     scores 1 dense and sparse.
//   - BadInput: empty, blank, 1 MiB, invalid UTF-8 and control-character
//     contents, garbage and truncated JSON calls, garbage structured tool
//     calls, unexpected roles and params of the wrong type, each sent to
//     a fresh instance: none may panic or hang; each is an error or an
//     observation.
//   - Close: New then Close without InitState succeeds; after Close, a
//     second Close, Step, Evaluate and Info do not panic or hang (errors
//     are expected, and allowed).
//   - Concurrency: Options.Concurrency episodes run at once, each on its
//     own instance, two or more on the same task, while TaskIDs is called
//     alongside; none may fail, and with Options.Deterministic each must
//     observe, reward and score exactly as its sequential episode did. Run
//     it under the race detector.
//   - Profile, Corpus, TaskMetadata, StepOracle, TaskSynthesizer,
//     RandomExplorer, ProcessBacked: for each optional capability of
//     envservice the environment implements, the parts of its contract that
//     envservice documents; skipped when it is not implemented. Profile:
//     at least one entity, all named, JSON-serialisable. Corpus: documents
//     for the first split, the same on a second call. TaskMetadata: each
//     played task described, difficulty 0 or more, the same twice.
//     StepOracle: one verdict per action, every step of the expert's
//     demonstration GOOD, a malformed action BAD and not an error, an
//     unknown task an error. TaskSynthesizer: the task synthesised from
//     each episode is deterministic and self-describing (New, Expert,
//     TaskMetadata and StepOracle accept its id), its instance shows its
//     Query, the episode's actions score 1 on it when they end the episode,
//     Evaluator is env and OpenQuery is set; no actions achieve nothing
//     (envservice.ErrNothingAchieved); an unknown seed is an error.
//     RandomExplorer: a walk of random actions is accepted and never ends
//     the episode, the same history and seed give the same action, an
//     unknown task and a history that ended the episode are errors.
//     ProcessBacked: the same answer every time.
//
// A panic in environment code is a failure, never a crash of the test
// binary: the suite recovers it and reports where it happened. A call that
// does not return within Options.Timeout (plus half of it) is a failure too;
// the suite stops using that instance and goes on, and after three such
// calls it calls the environment no more, reporting how many calls it did
// not make.
//
// # What the contract allows
//
// The suite holds an environment to what the env service and the trainer
// rely on, and no more:
//
//   - Errors. A request the environment rejects (an unknown split or task)
//     must match envclient.ErrBadRequest: the env service then answers 400
//     rather than 500, and agentflow does not retry a create that cannot
//     succeed. A bad action may be answered either way: with an observation
//     (what the built-in environments do, so that the episode goes on) or
//     an error (the trainer then counts the episode as failed).
//   - Close. An envservice.Manager closes each instance once and never
//     calls it afterwards, so a second Close may return an error and calls
//     after Close may return errors or harmless results; they must not
//     panic, since code outside a Manager (tests, an environment's own
//     Corpus) holds instances too.
//   - Calls on one instance are never made concurrently: the Manager
//     serialises them, and so does the suite.
//   - Scores. Evaluate returns a finite score in [0, 1] (the Manager refuses
//     NaN and infinities; every built-in environment scores in [0, 1]), 0
//     or 1 when params["sparse"] is true, and it may be called at any time,
//     before the first step included.
//   - The context of a call ends when the call returns (the env service
//     passes the request's): an instance must not depend on New's context
//     after New returns. The suite gives each call a context of its own.
package envtest
