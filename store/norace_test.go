//go:build !race

package store

// RaceEnabled is set when the tests run under the race detector.
const RaceEnabled = false
