// Package textgame is Colossal Cave Adventure as a training environment:
// the real game, open-adventure's advent (Debian package open-adventure,
// version 1.12 here), driven over a pseudo-terminal, one process per
// episode. An agent plays by sending one command line per turn ("in",
// "take lamp", "unlock grate") and reads what the game prints back.
//
// # Tasks
//
// Each split holds a few tasks, ids "advent-<split>-NNNN": a game start (a
// seed, TaskInfo.Seed, drawn from Config.Seed, the split and the index)
// and a goal, either a milestone (a place to reach) or a score target
// (points to gain over the starting score):
//
//	advent-train-0000  milestone  enter the building                 1 command
//	advent-train-0001  milestone  find the grate                      3
//	advent-train-0002  milestone  get below the grate (keys)          8
//	advent-train-0003  milestone  reach the debris room (lamp)       12
//	advent-train-0004  score 25   get deep into the cave             16
//	advent-val-0000    milestone  reach the bird chamber             14
//	advent-val-0001    score 27   deep cave and a treasure           17
//	advent-test-0000   milestone  reach the Hall of Mists            16
//	advent-test-0001   milestone  reach the nugget-of-gold room      17
//
// The splits share the game's map: they differ in goal and seed, not in
// world, so held-out scores measure a policy on new goals in a known cave.
//
// # Episodes
//
// Env.New starts advent on a new pseudo-terminal (TERM=dumb, a private
// temporary directory as working and home directory), answers "no" to the
// offer of instructions (which would cost 5 points) and sends "seed N".
// The initial state is a system prompt and a user message with the goal
// and the game's description of the road.
//
// Step sanitises the action (SanitizeAction: trimmed, one line, at most
// MaxActionBytes, no control characters), writes it, and reads the game's
// output until the game prompts again ("> " after a blank line) or
// Config.ReadTimeout passes. The observation is that output without the
// echo of the command, with escape sequences and control characters
// removed, bounded to Config.MaxObservationBytes. A command the game does
// not understand is answered by the game itself ("Sorry, I don't know the
// word ..."). A malformed action gets an "error: ..." observation, and
// save, suspend, pause, resume, restart, restore, seed and waste an
// observation saying they are not allowed; neither reaches the game. The
// game's yes/no questions (a hint offer, reincarnation, "really quit?")
// are answered by the agent's next command.
//
// The episode terminates when the goal is reached, when the game ends
// (death without reincarnation, or quit and yes: the observation then
// holds the final score) or after Config.MaxCommands steps.
//
// # Rewards
//
// A milestone task scores 1 once the game's output has described the
// milestone's place (its long description, or its short "You're in ..."
// line on a later visit), else 0; dense and sparse are the same. A score
// task scores gain/target clipped to [0, 1], where gain is the game's
// score minus its starting score (32: ten points for each of three unused
// lives and two for "rounding off"); with params["sparse"] == true it is 1
// when gain >= target and 0 otherwise. Getting deep into the cave (the
// Hall of Mists) is worth 25 points, seeing a treasure 2, bringing it to
// the building more; each death costs 10 and taking a hint its price. The
// terminating step's reward is the score (sparse per the step's
// params["sparse"], else the create params); earlier rewards are 0.
//
// The score is the game's own. It is not asked for by typing "score" into
// the live game, which would cost a turn there (the lamp's battery, the
// turn-counted hint offers and the 350-turn penalty all count turns) and
// could land in the middle of a yes/no question. Instead, after each step
// of a score task, the episode's commands are replayed on a separate,
// short-lived advent process whose input is a pipe, and the score the game
// prints at the end of its input is parsed ("You scored N out of a
// possible 430"); a game left at a yes/no question is answered "no" first.
// TestReplayMatchesLiveGame checks that the replay answers every command
// exactly as the live game did.
//
// # Randomness and reproducibility
//
// advent seeds its random generator from the clock at start. Dwarves
// (their knives hit or miss), the pirate, falling into a pit in the dark
// and a few messages depend on it; the world near the entrance does not.
// The game has a debugging command "seed N" that resets the generator,
// draws the random magic word of the endgame (Z'ZZZ) anew from it, and
// costs no turn; the log a game writes with -l starts with such a line,
// which is how its logs replay. Every episode sends "seed N" right after
// declining the instructions, before the agent's first command; nothing
// drawn from the clock-seeded generator survives it (the first moves near
// the entrance draw no random number). So the same task, the same binary
// and the same commands give the same transcript, byte for byte; different seeds
// give different dwarf encounters in the deep cave (TestReproducible
// checks both, with an episode in which a dwarf's knife kills the player
// at the same step every time). Agents may not send "seed" or "waste"
// themselves. What is not guaranteed: the same transcript from another
// version of open-adventure (a different release may draw random numbers
// in another order), or anything about a game driven by other means
// than this package.
//
// # Processes
//
// Each instance owns one advent process, a session and process group
// leader on its own pseudo-terminal. Close kills the process group with
// SIGKILL, closes the terminal, reaps the process and removes its
// directory; so does any failure (a timeout, a write error, a cancelled
// context, a panic in Step), and a runtime cleanup kills the game of an
// Instance dropped without Close. Score replays run in their own process
// group under a deadline and are killed when it passes or ctx ends. A game
// that crashes, is killed, exits without a final score or does not prompt
// within Config.ReadTimeout is an environment failure: Step (or New)
// returns an error matching ErrGame, never an observation, and the
// instance refuses further calls.
//
// # Capabilities
//
// Env implements envservice.Environment and the optional capabilities
// ProfileProvider (Env.Profile: the places, the items near the entrance and
// the common verbs), Expert (Env.Demonstrate: a fixed list of commands that
// reaches each task's goal from its seeded start, checked against the real
// game by the tests), CorpusProvider (Env.Corpus: the system prompt, the
// first messages and the expert's walks with the game's answers, captured
// from the real game) and TaskMetadataProvider (Env.TaskMetadata: a
// difficulty from the expert's length). It offers no StepOracle,
// TaskSynthesizer or RandomExplorer.
//
// Tests need the game; without it they skip with a message naming the
// package open-adventure, and New returns an error matching ErrNoBinary.
package textgame
