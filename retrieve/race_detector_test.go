package retrieve

import "github.com/papers-cli/papers/internal/testmain"

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = testmain.Race
