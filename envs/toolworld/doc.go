// Package toolworld is a deterministic multi-turn tool-use environment in
// the spirit of AppWorld: an agent completes a user's task by calling the
// APIs of four small stateful apps, one call per turn, and is scored on the
// final state of the apps.
//
// # Apps
//
//   - contacts: find name=NAME, add name=NAME phone=PHONE, list
//   - calendar: list day=DAY, add title=TEXT day=DAY with=NAME, cancel id=N
//   - files:    read name=FILE, write name=FILE text=TEXT, delete name=FILE, list
//   - bank:     balance, pay to=NAME amount=N (only to contacts)
//   - task:     finish [answer=TEXT] ends the episode (AppWorld's
//     apis.supervisor.complete_task)
//
// # Action syntax
//
// Each assistant message carries exactly one call. The primary syntax is a
// fenced tool block holding one command line of key=value arguments;
// values with spaces are double-quoted (with \" \\ \n \t \` escapes):
//
//	```tool
//	files.write name=notes.txt text="buy milk"
//	```
//
// OpenAI-style calls are accepted too: a JSON object
// {"name": "files.write", "arguments": {"name": "notes.txt", "text": "buy milk"}}
// in the content (bare, fenced or in <tool_call> tags), or the structured
// Message.ToolCalls field; function names may use "_" for "."
// (files_write). See ParseAction for the precedence. An action larger than
// MaxActionBytes, with no call, with several calls, with an unknown app,
// API or argument, or with a bad value gets an observation starting with
// "error:" that says what was wrong and how to fix it; the episode goes on.
//
// Observations are short plain text, such as "Ann 555-0142",
// "2: lunch with Bob" or "paid Bob 25, balance 175".
//
// # Tasks
//
// Tasks are generated from Config.Seed into disjoint train, val and test
// splits (ids like tw-train-0042; 500/100/100 by default), at three
// levels, cycling 1, 2, 3 by index: level 1 needs one call (a question
// also needs its answer in task.finish), level 2 two or three independent
// calls, level 3 chained calls where a later call needs a value read by an
// earlier one (the amount in a bill file, an event id, a phone number).
// Names, amounts, days, files and texts vary from task to task. The same
// seed gives the same tasks, observations and scores.
//
// # Scoring
//
// Evaluate compares the current state of the apps with the state the
// expert solution reaches from the same start. Every state entry the
// solution changes is one check (a new contact, a payment, a cancelled
// event, a file's text); a question adds a check that task.finish got the
// right answer (case, spacing, quotes and phone punctuation are ignored);
// any other change (a wrong payment, an extra file) adds one failed check.
// With params["sparse"] == true the score is 1 when no check failed, else
// 0; otherwise it is passed/(passed+failed). A step's reward is that score
// when the step terminates the episode and 0 before.
//
// # Expert and judge
//
// Env.Solve returns the expert's action sequence of any task, in the tool
// block syntax, for warm-start demonstrations. Instance.Expected names the
// expert's next action from the current state, and Env.JudgeSteps labels
// each step of an episode as useful or not: an oracle step judge.
//
// # Capabilities
//
// Env implements every optional capability of package envservice:
// ProfileProvider (Env.Profile), Expert (Env.Demonstrate, which is
// Env.Solve), CorpusProvider (Env.Corpus: the system prompt, instructions
// and expert episodes of a split, to learn a tokenizer from) and
// TaskMetadataProvider (Env.TaskMetadata: the task's level as its
// difficulty), StepOracle (Env.JudgeSteps), TaskSynthesizer
// (Env.SynthesizeTask, below) and RandomExplorer (Env.RandomAction: a
// random call that succeeds in the episode's current state, never
// task.finish). Config.MaxLevel restricts TaskIDs to the easier levels
// without changing the generated tasks.
//
// # Hindsight tasks
//
// Env.SynthesizeTask turns what an episode's actions achieved on a task's
// world into a new task whose goal is exactly that: self-questioning that
// needs no LLM, with rewards the environment verifies. A walk of
// Env.RandomAction actions on tw-train-0000 that added a contact, cancelled
// an event, paid Uma and looked up Ivy's number becomes
//
//	Add contact Hana with phone 555-6053. Cancel my Fri gym with Nia. Pay Uma 65 dollars. What is Ivy's phone number?
//
// with an expert solution made of the walk's own effective calls (and the
// calendar.list that shows the event's id). The task's id,
//
//	hs1:tw-train-0000:contacts.add,Hana,555-6053;calendar.cancel,1;bank.pay,Uma,65;contacts.find,Ivy
//
// names the seed task and those calls, so the task needs nothing but its
// id to be rebuilt: New, Task, Solve, Demonstrate, JudgeSteps and
// TaskMetadata accept it, in this process or in another one reached over
// the env-service protocol, and Evaluate scores it by the rules above. Ids
// are untrusted input: one is accepted only in exactly the form
// SynthesizeTask writes (at most MaxHindsightIDBytes, every call valid and
// needed), else the error matches ErrBadHindsightID. A hindsight task is
// of its seed's split, and TaskIDs never lists it.
//
// # Varied worlds
//
// Config.Worlds gives the environment many worlds that behave alike but
// look different: each world, drawn from Config.WorldSeed, names its apps,
// APIs and arguments with its own synonyms (wallet.send payee=NAME
// dollars=N for bank.pay to=NAME amount=N), describes them in its own
// words, lists them in its own order in its system prompt and has its own
// people, event titles, file texts and file names. Task i of a split lives
// in world i mod Worlds (TaskInfo.World); instructions are worded as in the
// classic world, so a policy solves a task only by reading the tools its
// prompt lists. Solve, Expected, RandomAction, hindsight ground truths,
// observations, error hints and Info speak the task's world's names; task
// ids, hindsight ids, checks and scores do not depend on them. TaskInfo.Family
// names a task's goal kinds, so that tasks solved alike can be found (worked
// examples for pretraining, package pretrain).
//
// Config.Compact selects a system prompt of under 300 bytes (under 400
// with any instruction) for small policies trained from scratch; level-1
// tasks take one short call and task.finish.
package toolworld
