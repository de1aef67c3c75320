//go:build race

package main

// raceDetector reports a build with the race detector, under which the
// quick experiment runs take minutes (.ci/run runs them without it).
const raceDetector = true
