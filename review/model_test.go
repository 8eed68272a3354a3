package review

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
)

// A model fills the cells through the real OpenAI-compatible client and a
// fake server at the wire. Its quotes are checked against the paper: a
// quote the paper holds (written with other spacing) is shown with its
// page; a planted quote the paper does not hold is never shown as a quote,
// and the cell says so; a reply that is not the JSON asked for, or that
// says the paper does not state it, is no answer.
func TestModelCellsQuotesChecked(t *testing.T) {
	lib := testLibrary(t)
	var mu sync.Mutex
	var users []string
	srv := llmtest.NewServer(t, llmtest.Options{Respond: func(system, user string) string {
		mu.Lock()
		users = append(users, user)
		mu.Unlock()
		switch {
		case !strings.Contains(system, "literature-review table"):
			return "wrong prompt"
		case strings.Contains(user, "Question: What method does the paper propose?"):
			return "```json\n" + `{"stated": true, "answer": "Toolformer, a model that teaches itself to call APIs", ` +
				`"quote": "We introduce Toolformer, a model trained to decide which APIs to call,\n when to call them, what arguments to pass", "passage": 1}` + "\n```"
		case strings.Contains(user, "Question: Which benchmarks are used for evaluation?"):
			return `{"stated": true, "answer": "every benchmark, at 99.9%", "quote": "Toolformer reaches 99.9% accuracy on every benchmark while using no tools at all.", "passage": 2}`
		case strings.Contains(user, "Question: What are the limitations?"):
			return `{"stated": false, "answer": "", "quote": "", "passage": 0}`
		case strings.Contains(user, "Question: Which base models are trained?"):
			return `The base model is GPT-J.`
		}
		return `{"stated": true, "answer": "GPT-J", "quote": "", "passage": 1}`
	}})
	model, err := llm.NewOpenAI(llm.LLMConfig{Spec: "openai:test-model", APIKey: "sk-test", BaseURL: srv.BaseURL(), NoStream: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Retriever: retriever(t, lib), LLM: model}
	cols := append(append([]Column(nil), testColumns...),
		Column{Name: "Models", Question: "Which base models are trained?"},
		Column{Name: "Size", Question: "How large is the model?"})
	tb, err := Build(context.Background(), lib, m, papersOf(t, lib, "2302.04761"), cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != len(cols) {
		t.Errorf("%d requests for %d cells", srv.Requests(), len(cols))
	}
	if !strings.Contains(tb.Answerer, "test-model") || tb.Usage.PromptTokens == 0 {
		t.Errorf("answerer %q, usage %+v", tb.Answerer, tb.Usage)
	}
	got := tb.Rows[0].Cells
	method := got[0]
	if !method.Stated || method.Page != 1 || method.Section != "Abstract" || method.Note != "" ||
		!strings.HasPrefix(method.Quote, "We introduce Toolformer, a model trained to decide which APIs to call") {
		t.Errorf("verbatim quote: %+v", method)
	}
	planted := got[1]
	if planted.Quote != "" || planted.Note != NoteQuoteNotFound || !planted.Stated {
		t.Errorf("planted quote: %+v", planted)
	}
	if got[2].Stated || got[2].Answer != "" || got[2].Note != "" {
		t.Errorf("not stated: %+v", got[2])
	}
	if got[3].Stated || got[3].Note != NoteUnreadable {
		t.Errorf("unreadable reply: %+v", got[3])
	}
	if !got[4].Stated || got[4].Quote != "" || got[4].Note != NoteNoQuote {
		t.Errorf("no quote: %+v", got[4])
	}
	for _, u := range users {
		if !strings.Contains(u, "The paper: Toolformer") || !strings.Contains(u, `source="abstract"`) {
			t.Errorf("the prompt lacks the paper's title or abstract:\n%.600s", u)
		}
		if strings.Contains(u, "PaSa") || strings.Contains(u, "ECHO") {
			t.Errorf("the prompt holds another paper's passages:\n%.600s", u)
		}
	}
	// the planted quote appears in no rendering either
	var md, csvOut, grid strings.Builder
	WriteMarkdown(&md, tb)
	WriteCSV(&csvOut, tb)
	WriteTable(&grid, tb, 100)
	for name, out := range map[string]string{"markdown": md.String(), "csv": csvOut.String(), "table": grid.String()} {
		if strings.Contains(out, "while using no tools") {
			t.Errorf("%s shows the planted quote:\n%s", name, out)
		}
	}

	// a server that fails stops the review with its error, and the
	// cells done are kept
	bad := llmtest.NewServer(t, llmtest.Options{Status: 401, Body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`})
	badLLM, err := llm.NewOpenAI(llm.LLMConfig{Spec: "openai:test-model", APIKey: "sk-bad", BaseURL: bad.BaseURL(), NoStream: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), lib, &Model{Retriever: retriever(t, lib), LLM: badLLM}, papersOf(t, lib, "topic-001"), cols, Options{})
	if !errors.Is(err, llm.ErrUnauthorized) {
		t.Errorf("a server refusing the key: %v, want ErrUnauthorized", err)
	}
	if err != nil && strings.Contains(err.Error(), "sk-bad") {
		t.Errorf("the error shows the key: %v", err)
	}
}

func TestParseReply(t *testing.T) {
	cases := []struct {
		text   string
		ok     bool
		stated bool
	}{
		{`{"stated": true, "answer": "a", "quote": "q", "passage": 1}`, true, true},
		{"Here it is:\n```json\n{\"stated\": \"yes\", \"answer\": \"a\"}\n```", true, true},
		{`{"stated": false}`, true, false},
		{`{"answer": "a"}`, false, false},
		{`no JSON at all`, false, false},
		{`{"stated": true, "answer": `, false, false},
	}
	for _, c := range cases {
		r, ok := parseReply(c.text)
		if ok != c.ok || ok && stated(r.Stated) != c.stated {
			t.Errorf("parseReply(%q) = %+v, %v", c.text, r, ok)
		}
	}
}
