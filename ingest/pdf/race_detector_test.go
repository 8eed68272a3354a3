package pdf

import "github.com/papers-cli/papers/internal/testmain"

// raceDetector is set when the tests run under the race detector, which
// makes a content walk about ten times slower: the tests then leave out
// the walks that only cost time (the 619 pages of DA-619p, the 262,144
// glyphs of xobject_fanout), which run without it and in the benchmarks.
// Extraction runs in one goroutine per document, so a long file holds no
// data race a short one does not.
const raceDetector = testmain.Race
