//go:build race

package trainer_test

// raceDetector reports a build with the race detector, which makes the
// longest training tests several times slower.
const raceDetector = true
