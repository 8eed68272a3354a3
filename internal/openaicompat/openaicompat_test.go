package openaicompat

import (
	"regexp"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/netlog"
)

func TestNormaliseBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:11434":             "http://localhost:11434/v1",
		"http://localhost:11434/v1/":         "http://localhost:11434/v1",
		"https://api.openai.com/v1":          "https://api.openai.com/v1",
		"http://h:8080/v1/embeddings":        "http://h:8080/v1",
		"http://h:8080/v1/chat/completions":  "http://h:8080/v1",
		"https://proxy.example/openai":       "https://proxy.example/openai/v1",
		"https://gw.example/api/v1beta/?x=1": "https://gw.example/api/v1beta",
		" http://user:pw@host:1234/v2 ":      "http://user:pw@host:1234/v2",
	} {
		got, err := NormaliseBaseURL(in, "test server")
		if err != nil || got != want {
			t.Errorf("NormaliseBaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"localhost:11434", "ftp://h/v1", "http://"} {
		if _, err := NormaliseBaseURL(bad, "test server"); err == nil || !strings.Contains(err.Error(), "invalid test server URL") {
			t.Errorf("NormaliseBaseURL(%q) error = %v", bad, err)
		}
	}
}

func TestRedaction(t *testing.T) {
	if got := RedactURL("http://user:secret@host:1/v1?key=abc"); strings.Contains(got, "secret") || strings.Contains(got, "abc") {
		t.Errorf("RedactURL leaked: %q", got)
	}
	if got := RedactKey("Incorrect API key provided: sk-proj-abcdef123456. Find yours"); strings.Contains(got, "abcdef") {
		t.Errorf("RedactKey leaked: %q", got)
	}
	if got := RedactKey("nothing to hide"); got != "nothing to hide" {
		t.Errorf("RedactKey changed a clean message: %q", got)
	}
}

func TestReadTokens(t *testing.T) {
	cases := []struct {
		name       string
		head, tail string
		want       netlog.Tokens
		ok         bool
	}{
		{"chat completion", `{"id":"x","model":"gpt-4o-mini-2024-07-18","choices":[`,
			`"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"completion_tokens":95,"total_tokens":907},"system_fingerprint":"fp"}`,
			netlog.Tokens{Model: "gpt-4o-mini-2024-07-18", In: 812, Out: 95}, true},
		{"stream with include_usage", `data: {"model":"llama3.1","choices":[{"delta":{"content":"a"}}],"usage":null}`,
			"data: {\"model\":\"llama3.1\",\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n" +
				"data: {\"model\":\"llama3.1\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":7}}\n\ndata: [DONE]\n\n",
			netlog.Tokens{Model: "llama3.1", In: 40, Out: 7}, true},
		{"embeddings", `{"object":"list","data":[{"embedding":[0.1,`,
			`0.2]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`,
			netlog.Tokens{Model: "text-embedding-3-small", In: 8}, true},
		{"no usage", `{"error":{"message":"bad"}}`, `{"error":{"message":"bad"}}`, netlog.Tokens{}, false},
		{"stream without usage", `data: {"model":"m","usage":null}`, "data: {\"usage\":null}\n\ndata: [DONE]\n\n", netlog.Tokens{Model: "m"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ReadTokens([]byte(c.head), []byte(c.tail))
			if got != c.want || ok != c.ok {
				t.Errorf("got %+v %v, want %+v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestToolHintsNameArguments: every hint an assistant reads names the
// tools' arguments, never the command line's flags it cannot pass.
func TestToolHintsNameArguments(t *testing.T) {
	flag := regexp.MustCompile(`(^|[\s(])--(extractive|k|mode|embedder|dimensions|first-token-timeout|idle-timeout)\b`)
	for _, svc := range []Service{Chat, Embeddings} {
		for k := Kind(1); k < 40; k++ {
			e := &Error{Kind: k, Service: svc, URL: "http://localhost:11434/v1", Status: 404}
			cli, tool := e.Hint(), e.ToolHint()
			if cli != "" && tool == "" {
				t.Errorf("%v %v: a hint for the command line (%q), none for an assistant", svc, k, cli)
			}
			if m := flag.FindString(tool); m != "" && !strings.Contains(tool, "papers reindex") {
				t.Errorf("%v %v: the tool hint %q names the flag %q", svc, k, tool, m)
			}
		}
	}
	if h := (&Error{Kind: Unreachable, Service: Chat}).ToolHint(); !strings.Contains(h, `mode "extractive"`) {
		t.Errorf("an unreachable model: %q", h)
	}
	if h := (&Error{Kind: Unreachable, Service: Embeddings}).ToolHint(); !strings.Contains(h, `mode "bm25"`) {
		t.Errorf("an unreachable embedder: %q", h)
	}
}
