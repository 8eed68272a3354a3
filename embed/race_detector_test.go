package embed

import "github.com/papers-cli/papers/internal/testmain"

// raceEnabled is set when the tests run under the race detector, which
// makes embedding SciFact's 5,183 abstracts some tenfold dearer.
const raceEnabled = testmain.Race

// fullTests (PAPERS_FULL_TESTS=1) makes the race detector's run rank the
// whole of SciFact too.
var fullTests = testmain.Full
