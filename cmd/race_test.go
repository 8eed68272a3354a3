//go:build race

package cmd

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = true
