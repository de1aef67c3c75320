// Package episodelog records a run's episodes as JSON lines for the run
// viewer (agentevolver view): each episode's task, outcome or failure
// cause, its conversation and, per training sample, the token view of the
// reference's log viewer: every token's id and text and whether it trains
// (its loss mask).
//
// Recording is bounded: [Config] samples a share of the finished episodes
// (deterministically, from the step and the episode's place in it), keeps
// at most a number of them per step and phase, and stops at a size limit.
// Failed episodes are kept whatever the sampling rate: they are few and
// they are what a person looks for.
//
// A [Writer] appends one line per episode with a single write, so a
// crash, or a reader looking while the run goes on, sees at worst a final
// line without its newline; [Scan] and [ReadAt] treat such a line as not
// yet written. [OpenForResume] drops the episodes of steps a resumed run
// will run again.
package episodelog
