package topic

import (
	"os"
	"testing"

	"github.com/papers-cli/papers/internal/testmain"
)

func TestMain(m *testing.M) {
	testmain.GC()
	os.Exit(m.Run())
}
