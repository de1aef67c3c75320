// Package models ships the policies the SDK starts from, embedded in the
// module so that they need no download: the toolworld base policy
// (ToolworldBase), a small Qwen2-family transformer pretrained by package
// pretrain, whose card (README.md in its directory) says how it was made
// and what it does on worlds it never saw, and its twin
// ToolworldBaseReserved, pretrained without a fifth of all instructions,
// which the experiments then train on; and ToolworldBaseValues, which
// copies values from its prompt and so acts in worlds whose people, titles
// and files it never saw (toolworld.Config.ValuesOnly); and
// ToolworldBaseDrift, which takes API names from worked examples in its
// prompt where a world renamed its APIs (toolworld.Config.Drift).
//
// A configuration names a shipped policy as model.path
// "builtin:toolworld-base"; Resolve turns that into a directory on disk
// (written once under the user's cache directory and checked against the
// embedded files' digest on every use), which model.Load and
// tokenizer.Load read like any Hugging Face directory.
package models
