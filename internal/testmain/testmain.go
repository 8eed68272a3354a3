// Package testmain holds what the test binaries' TestMain functions share.
package testmain

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target the test binaries run at
// (GOGC=400), unless GOGC is set in the environment. Under the race
// detector much of a collection's cost is the detector's bookkeeping of
// freed memory; collecting a quarter as often took 5-8% off the CPU of the
// heaviest packages' tests (store 38.2 -> 35.3 s, ingest/pdf 25.4 -> 24.0
// s; BENCHMARKS.md, "Test suite time") for at most twice their peak
// memory (store 502 -> 786 MB).
const GCPercent = 400

// GC sets the garbage collector's target to GCPercent unless GOGC is set.
// A TestMain calls it first.
func GC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}

// Full is set by PAPERS_FULL_TESTS=1: the race detector's run then checks
// the whole data it otherwise takes a slice of (a run without -race always
// checks it whole).
var Full = os.Getenv("PAPERS_FULL_TESTS") == "1"

// Main is the TestMain of a package that needs nothing else: GC, then the
// tests, exiting with their status.
func Main(m interface{ Run() int }) {
	GC()
	os.Exit(m.Run())
}
