package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/papers-cli/papers/ask"
)

// modelFlags are the flags of the commands that ask a language model: the
// model and the bounds of its replies. They resolve, with OPENAI_API_KEY,
// OPENAI_BASE_URL and OLLAMA_HOST, to an ask.LLMConfig.
type modelFlags struct {
	llm              string
	firstToken, idle time.Duration
}

func (m *modelFlags) add(f *pflag.FlagSet) {
	f.StringVar(&m.llm, "llm", "", "model: openai:MODEL, ollama:MODEL or MODEL on OPENAI_BASE_URL (default: "+ask.DefaultOpenAIModel+" when OPENAI_API_KEY is set, else extractive)")
	f.DurationVar(&m.firstToken, "first-token-timeout", ask.DefaultFirstTokenTimeout, "give up when the model sends no text for this long after a request (a reply that is not streamed must come whole within it); 0: no limit")
	f.DurationVar(&m.idle, "idle-timeout", ask.DefaultIdleTimeout, "give up when a streamed reply pauses this long between two pieces; 0: no limit")
}

// config is the model configuration of the flags and the environment.
func (m *modelFlags) config(noStream bool) (ask.LLMConfig, error) {
	if m.firstToken < 0 || m.idle < 0 {
		return ask.LLMConfig{}, usageError("--first-token-timeout and --idle-timeout must not be negative")
	}
	return ask.LLMConfig{
		Spec:              m.llm,
		APIKey:            os.Getenv("OPENAI_API_KEY"),
		BaseURL:           os.Getenv("OPENAI_BASE_URL"),
		OllamaHost:        os.Getenv("OLLAMA_HOST"),
		NoStream:          noStream,
		FirstTokenTimeout: noLimit(m.firstToken),
		IdleTimeout:       noLimit(m.idle),
	}, nil
}

// noLimit maps the flags' 0 (no limit) to LLMConfig's negative.
func noLimit(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// embedTimeout reads PAPERS_EMBED_TIMEOUT, the bound of one request to an
// embedding server (0: the embedder's default).
func embedTimeout() (time.Duration, error) {
	v, ok := os.LookupEnv("PAPERS_EMBED_TIMEOUT")
	if !ok || v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid PAPERS_EMBED_TIMEOUT=%q: want a duration such as 90s or 2m", v)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}
