package topic

import (
	"testing"

	"github.com/papers-cli/papers/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Main(m) }
