package cmd

import (
	"errors"

	"github.com/papers-cli/papers/embed"
)

// embedHint attaches a hint naming the fix to an embedding server's error.
func embedHint(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, embed.ErrNoAPIKey):
		return withHint(err, "export OPENAI_API_KEY, or set OPENAI_BASE_URL to a local server (Ollama, vLLM, llama.cpp, LM Studio)")
	case errors.Is(err, embed.ErrAuth):
		return withHint(err, "set OPENAI_API_KEY to a valid key for OPENAI_BASE_URL (the key is read from the environment only)")
	case errors.Is(err, embed.ErrQuota):
		return withHint(err, "add credit to the account, or use a local embedder: --embedder ollama:nomic-embed-text or --embedder local")
	case errors.Is(err, embed.ErrUnreachable):
		return withHint(err, "check OPENAI_BASE_URL (or OLLAMA_HOST for ollama:, and that `ollama serve` is running)")
	case errors.Is(err, embed.ErrTimeout):
		return withHint(err, "check the server is up and not overloaded, or allow it longer with PAPERS_EMBED_TIMEOUT (e.g. 5m)")
	case errors.Is(err, embed.ErrBadReply):
		return withHint(err, "the server or model is broken: try another model or version, or check OPENAI_BASE_URL is an embeddings endpoint")
	case errors.Is(err, embed.ErrBadRequest):
		return withHint(err, "check the model name (for Ollama: `ollama pull MODEL`) and --dimensions")
	}
	return err
}

// searchEmbedHint is embedHint for a search, which can go on without the
// embedder: the hint says so.
func searchEmbedHint(err error) error {
	err = embedHint(err)
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return withHint(err, "%s; or search without the embedder: --mode bm25", h.Hint())
	}
	return err
}
