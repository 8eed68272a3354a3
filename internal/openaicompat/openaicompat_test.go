package openaicompat

import (
	"strings"
	"testing"
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
