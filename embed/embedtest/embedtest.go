// Package embedtest speaks the wire protocol of an OpenAI-compatible
// embeddings server (POST /v1/embeddings) for tests: it reads a request's
// inputs and writes a reply of vectors, so that a test's httptest handler
// decides only what each input gets (a vector, a bad one, a wait).
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
)

// Inputs reads the texts of an embeddings request. It fails for a request
// that is not POST /v1/embeddings or whose body is not such a request (a
// killed client's body is cut short: the error wraps io.ErrUnexpectedEOF).
func Inputs(r *http.Request) ([]string, error) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		return nil, fmt.Errorf("%s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return nil, fmt.Errorf("embedding request: %w", err)
	}
	return req.Input, nil
}

// Reply writes vecs, one per input in order, as the server's list of
// embeddings for model. A nil or empty vector is written as [] (which a
// client must refuse).
func Reply(w http.ResponseWriter, model string, vecs [][]float32) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		if v == nil {
			v = []float32{}
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: v}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": model})
}

// Hash4 is a 4-dimension vector of text, the same for the same text and
// never zero: the bytes of its FNV-1a hash.
func Hash4(text string) []float32 {
	h := fnv.New32a()
	io.WriteString(h, text)
	v := h.Sum32()
	return []float32{float32(v & 0xff), float32(v >> 8 & 0xff), float32(v >> 16 & 0xff), float32(v>>24) + 1}
}
