package cmd

import (
	"fmt"
	"strings"

	"github.com/papers-cli/papers/embed"
)

// newEmbedder builds the embedder named by --embedder.
func newEmbedder(spec string) (embed.Embedder, error) {
	switch s := strings.TrimSpace(spec); s {
	case "", "local":
		return embed.NewLocal(), nil
	default:
		return nil, withHint(withExit(fmt.Errorf("unknown embedder %q", s), ExitUsage), "use --embedder local")
	}
}
