// Package openaicompat holds what the embedders and the language-model
// adapter share to talk to OpenAI-compatible servers (OpenAI, Ollama, vLLM,
// llama.cpp, LM Studio): base URL normalisation, the HTTP transport,
// scrubbing of keys and credentials from anything shown to people, and
// the one error model of both (Error: a Kind with a name, which is also
// the sentinel callers match, and the Hint naming the fix, made here so
// that every front end gives the same advice).
package openaicompat

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/papers-cli/papers/internal/lazyre"
)

var versionSegment = lazyre.New(`/v\d+[a-z0-9]*(/|$)`)

// NormaliseBaseURL checks an OpenAI-compatible base URL and makes it end in
// an API version, as go-openai needs: "http://host:11434" and
// "http://host:11434/v1/" become "http://host:11434/v1"; an endpoint pasted
// whole ("…/v1/embeddings", "…/v1/chat/completions") loses the endpoint; a
// path that already holds a version ("/api/v1beta") keeps it. what names
// the server in the error ("embedding server", "model server").
func NormaliseBaseURL(base, what string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("invalid %s URL %q: want http(s)://host[:port][/v1]", what, RedactURL(base))
	}
	p := strings.TrimRight(u.Path, "/")
	for _, endpoint := range []string{"/embeddings", "/chat/completions", "/completions"} {
		p = strings.TrimSuffix(p, endpoint)
	}
	if !versionSegment.MatchString(p) {
		p += "/v1"
	}
	u.Path, u.RawPath = p, ""
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// RedactURL drops credentials and the query from a URL for messages.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.LastIndex(s, "@"); i >= 0 {
			return "..." + s[i:]
		}
		return "(unparsable)"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}

// RedactKey removes from a message the secrets given (the API key sent,
// wherever it appears) and anything else that looks like an API key or a
// bearer token: OpenAI echoes a wrong key partly masked, other servers may
// echo it whole or echo the Authorization header.
func RedactKey(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	f := strings.Fields(s)
	changed := false
	for i, w := range f {
		bearer := i > 0 && strings.EqualFold(strings.Trim(f[i-1], `"':`), "bearer")
		if (bearer || strings.HasPrefix(w, "sk-") || strings.HasPrefix(w, "Bearer")) && len(w) > 8 && w != "[redacted]" {
			f[i] = "[redacted]"
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(f, " ")
}
