//go:build race

package ask

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = true
