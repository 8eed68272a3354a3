package asktest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/ask/asktest"
)

func TestServerWithTheRealAdapter(t *testing.T) {
	srv := asktest.NewServer(t, asktest.Options{Reply: "GRPO drops the critic [1].", Key: "k"})
	for _, noStream := range []bool{false, true} {
		o, err := ask.NewOpenAI(ask.LLMConfig{Spec: "openai:m", APIKey: "k", BaseURL: srv.BaseURL(), NoStream: noStream})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		c, err := o.Complete(t.Context(), ask.Request{Messages: []ask.Message{{Role: "user", Content: "What is GRPO?"}}}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != "GRPO drops the critic [1]." || c.Usage.CompletionTokens != 5 || c.FinishReason != "stop" {
			t.Errorf("no-stream %v: wrote %q, completion %+v", noStream, out.String(), c)
		}
	}
	o, _ := ask.NewOpenAI(ask.LLMConfig{Spec: "openai:m", APIKey: "wrong", BaseURL: srv.BaseURL()})
	if _, err := o.Complete(t.Context(), ask.Request{Messages: []ask.Message{{Role: "user", Content: "q"}}}, nil); !errors.Is(err, ask.ErrUnauthorized) {
		t.Errorf("wrong key: %v", err)
	}
}
