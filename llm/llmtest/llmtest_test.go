package llmtest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
)

func TestServerWithTheRealAdapter(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Options{Reply: "GRPO drops the critic [1].", Key: "k"})
	for _, noStream := range []bool{false, true} {
		o, err := llm.NewOpenAI(llm.LLMConfig{Spec: "openai:m", APIKey: "k", BaseURL: srv.BaseURL(), NoStream: noStream})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		c, err := o.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "What is GRPO?"}}}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != "GRPO drops the critic [1]." || c.Usage.CompletionTokens != 5 || c.FinishReason != "stop" {
			t.Errorf("no-stream %v: wrote %q, completion %+v", noStream, out.String(), c)
		}
	}
	o, _ := llm.NewOpenAI(llm.LLMConfig{Spec: "openai:m", APIKey: "wrong", BaseURL: srv.BaseURL()})
	if _, err := o.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}}, nil); !errors.Is(err, llm.ErrUnauthorized) {
		t.Errorf("wrong key: %v", err)
	}
}
