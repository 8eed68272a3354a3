package main

import "github.com/papers-cli/papers/internal/testmain"

// raceDetector is set when the tests run under the race detector, which
// makes every child process of the kill tests (this binary, SQLite
// translated to Go included) about tenfold slower.
const raceDetector = testmain.Race
