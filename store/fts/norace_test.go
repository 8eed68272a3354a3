//go:build !race

package fts

// RaceEnabled is set when the tests run under the race detector.
const RaceEnabled = false
