package openaicompat

import (
	"bytes"
	"encoding/json"

	"github.com/papers-cli/papers/internal/netlog"
)

// purposeOf names the requests of a service in the network ledger.
func purposeOf(s Service) string {
	switch s {
	case Chat:
		return "model"
	case Embeddings:
		return "embeddings"
	}
	return s.Server()
}

// ReadTokens reads the usage an OpenAI-compatible server reports at the
// end of a reply: the "usage" object of a chat completion or an embedding
// reply, or of the last event of a stream (stream_options.include_usage),
// and the model named by the reply. It is the netlog.TokenReader of every
// client of this package.
func ReadTokens(head, tail []byte) (netlog.Tokens, bool) {
	var t netlog.Tokens
	found := false
	for _, b := range [][]byte{tail, head} {
		var u struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		}
		if !found && lastValue(b, `"usage"`, &u) {
			t.In, t.Out, found = u.Prompt, u.Completion, true
		}
		if t.Model == "" {
			var m string
			if lastValue(b, `"model"`, &m) {
				t.Model = m
			}
		}
	}
	return t, found
}

// lastValue decodes into v the JSON value after the last occurrence of key
// (a quoted name) in b that holds a value of v's kind (not null).
func lastValue(b []byte, key string, v any) bool {
	for end := len(b); end > 0; {
		i := bytes.LastIndex(b[:end], []byte(key))
		if i < 0 {
			return false
		}
		end = i
		rest := bytes.TrimLeft(b[i+len(key):], " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if bytes.HasPrefix(rest, []byte("null")) {
			continue
		}
		if json.NewDecoder(bytes.NewReader(rest)).Decode(v) == nil {
			return true
		}
	}
	return false
}
