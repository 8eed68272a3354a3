package cmd

import (
	"os"

	"github.com/papers-cli/papers/embed"
)

// newEmbedder builds the embedder named by --embedder ("local",
// "openai:MODEL", "ollama:MODEL"), configured from OPENAI_BASE_URL,
// OPENAI_API_KEY and OLLAMA_HOST; its warnings go to stderr.
func newEmbedder(spec string) (embed.Embedder, error) {
	e, err := embed.Parse(spec, embedOptions(0, os.Stderr))
	if err != nil {
		return nil, withHint(withExit(err, ExitUsage), "use --embedder local, openai:MODEL or ollama:MODEL")
	}
	return e, nil
}
