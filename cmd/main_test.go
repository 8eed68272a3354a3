package cmd

import (
	"testing"

	"github.com/papers-cli/papers/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Main(m) }

// fullTests (PAPERS_FULL_TESTS=1) makes the race detector's run check the
// whole data of the tests that check a slice of it under -race (TestEval).
var fullTests = testmain.Full
