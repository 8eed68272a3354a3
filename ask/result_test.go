package ask

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestReadResult: the JSON papers ask writes reads back, with the cited
// papers each once in citation order; other documents are ErrNotAnAnswer.
func TestReadResult(t *testing.T) {
	res := &Result{Question: "", Answer: "a [1] b [2] c [3]", Citations: []Citation{{N: 1, ID: "p2"}, {N: 2, ID: "p1"}, {N: 3, ID: "p2"}}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadResult(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer != res.Answer || !slices.Equal(got.CitedPapers(), []string{"p2", "p1"}) {
		t.Errorf("read %+v, cited %v", got, got.CitedPapers())
	}
	for _, doc := range []string{"", "not json", `{"citations":[{"id":"p1"}]}`, `[1]`} {
		if _, err := ReadResult(strings.NewReader(doc)); !errors.Is(err, ErrNotAnAnswer) {
			t.Errorf("ReadResult(%q) = %v, want ErrNotAnAnswer", doc, err)
		}
	}
}
