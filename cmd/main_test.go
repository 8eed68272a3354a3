package cmd

import (
	"os"
	"testing"

	"github.com/papers-cli/papers/internal/testmain"
)

func TestMain(m *testing.M) {
	// No test reaches Crossref (local PDFs are looked up there): a test
	// that needs it starts a fake.
	if os.Getenv("PAPERS_CROSSREF_API_URL") == "" { // a process a test starts with its own keeps it
		os.Setenv("PAPERS_CROSSREF_API_URL", "http://127.0.0.1:1")
	}
	testmain.Main(m)
}

// fullTests (PAPERS_FULL_TESTS=1) makes the race detector's run check the
// whole data of the tests that check a slice of it under -race (TestEval).
var fullTests = testmain.Full
