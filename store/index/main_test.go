package index

import (
	"testing"

	"github.com/papers-cli/papers/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Main(m) }

// RaceEnabled is set when the tests run under the race detector: the
// heavier tests then use part of their data.
const RaceEnabled = testmain.Race
