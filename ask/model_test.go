package ask

import (
	"testing"
	"time"

	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
)

const testKey = llmtest.Key

// newTestLLM is the real OpenAI adapter pointed at a fake server at url.
func newTestLLM(t *testing.T, url string, mod func(*llm.LLMConfig)) *llm.OpenAI {
	t.Helper()
	cfg := llm.LLMConfig{Spec: "openai:test-model", APIKey: testKey, BaseURL: url, MaxRetryWait: 20 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	o, err := llm.NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
