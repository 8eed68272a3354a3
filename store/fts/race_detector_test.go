package fts

import "github.com/papers-cli/papers/internal/testmain"

// RaceEnabled is set when the tests run under the race detector, which
// slows SQLite (C translated to Go) about tenfold: the tests that compare
// against FTS5 then use part of the collection.
const RaceEnabled = testmain.Race
