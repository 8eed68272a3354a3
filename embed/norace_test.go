//go:build !race

package embed

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = false
