// Package track fans a run's metrics out to trackers: the run's JSON-lines
// metrics log, the console and TensorBoard event files are built in, and a
// caller adds their own (an experiment service's client, say) by
// implementing [Tracker], a single method.
//
// A [Tracker] receives every metrics record of a run, in step order, from
// one goroutine at a time. Trackers that buffer implement [Syncer]; those
// that own files implement io.Closer. [Multi] fans one record out to many
// trackers and forwards Sync and Close to those that have them.
//
// A *runlog.MetricsWriter is a Tracker as it is, so the run's metrics.jsonl
// keeps its format byte for byte whatever else is tracked.
//
// The names a configuration lists (trainer.logger in the trainer's YAML,
// as in the reference's veRL configuration) are [NameJSONL], [NameConsole]
// and [NameTensorBoard]; [CheckNames] refuses the reference's other
// backends (wandb, mlflow, swanlab, clearml, vemlp_wandb) with a message
// that says how to plug one in.
//
// [TensorBoard] writes TensorBoard's event files itself: TFRecord framing
// (length, masked CRC-32C of the length, payload, masked CRC-32C of the
// payload) around Event protocol buffers, encoded with
// google.golang.org/protobuf/encoding/protowire. No Go module on the proxy
// writes them without TensorFlow's C library or a copy of TensorFlow's
// generated protos, and the subset needed here (a file version, scalar
// summaries, a session-start marker) is three small messages. The files
// are checked in the tests by [ReadEvents] and by an independent reader:
// Google's Python protobuf runtime decoding with protoc-compiled messages
// and crcmod's CRC-32C (testdata/tbcheck.py).
package track
