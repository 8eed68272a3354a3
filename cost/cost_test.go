package cost

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
)

func TestPrices(t *testing.T) {
	p, err := ParsePrices("gpt-4o-mini=0.15/0.60, my-model=1 ,local=0/0")
	if err != nil {
		t.Fatal(err)
	}
	if p["gpt-4o-mini"] != (Price{0.15, 0.60}) || p["my-model"] != (Price{1, 0}) || p["local"] != (Price{}) {
		t.Errorf("parsed %v", p)
	}
	for _, bad := range []string{"gpt-4o", "=1/2", "m=x/1", "m=1/-2", "m=NaN"} {
		if _, err := ParsePrices(bad); err == nil || !strings.Contains(err.Error(), "MODEL=IN/OUT") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	all := DefaultPrices().Merge(p)
	if pr, ok := all.Lookup("gpt-4o-mini-2024-07-18"); !ok || pr.In != 0.15 {
		t.Errorf("a dated model is priced as its name: %v %v", pr, ok)
	}
	if pr, ok := all.Lookup("gpt-4o-2024-08-06"); !ok || pr.In != 2.5 {
		t.Errorf("gpt-4o-2024-08-06: %v %v (the longest prefix wins)", pr, ok)
	}
	if _, ok := all.Lookup("llama3.1"); ok {
		t.Error("an unknown model has a price")
	}
	f, err := ReadPrices(strings.NewReader(`{"m": {"in": 3, "out": 15}}`))
	if err != nil || f["m"] != (Price{3, 15}) {
		t.Errorf("file: %v %v", f, err)
	}
	if _, err := ReadPrices(strings.NewReader(`{"m": {"input": 3}}`)); err == nil {
		t.Error("a file with an unknown field is taken")
	}
}

// TestMeterRefusesBeforeSending: a call whose estimate would pass the cap
// is refused before anything is sent; the calls before it are kept and
// counted with the tokens the server reported.
func TestMeterRefusesBeforeSending(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Options{Reply: "An answer [1]."})
	model, err := llm.ResolveLLM(llm.LLMConfig{Spec: "gpt-4o-mini", BaseURL: srv.BaseURL(), APIKey: "sk-test", NoStream: true})
	if err != nil {
		t.Fatal(err)
	}
	// 1,000 characters in and 100 tokens out: ~$0.00011 at most a call
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: strings.Repeat("word ", 200)}}, MaxTokens: 100}
	m := NewMeter(nil, 0.0003, false)
	w := m.Wrap(model)
	calls := 0
	for ; calls < 10; calls++ {
		if _, err := w.Complete(context.Background(), req, io.Discard); err != nil {
			if !errors.Is(err, ErrOverBudget) {
				t.Fatal(err)
			}
			break
		}
	}
	if calls == 0 || calls == 10 || srv.Requests() != calls {
		t.Fatalf("%d calls went through, the server got %d: want some, then a refusal with nothing sent", calls, srv.Requests())
	}
	u := m.Usage()
	if u.Calls != calls || u.PromptTokens == 0 || u.CostUSD == nil || *u.CostUSD > 0.0003 || u.Models[0] != "gpt-4o-mini" {
		t.Errorf("usage %+v after %d calls", u, calls)
	}
	if s := u.String(); !strings.Contains(s, "gpt-4o-mini") || !strings.Contains(s, "about $") || !strings.Contains(s, "cap $0.0003") {
		t.Errorf("usage line %q", s)
	}
}

func TestMeterUnpricedAndFree(t *testing.T) {
	m := NewMeter(Prices{}, 1, false)
	_, err := m.Reserve("llama3.1", 100, 100)
	var be *BudgetError
	if !errors.Is(err, ErrOverBudget) || !strings.Contains(err.Error(), "has no price") || !errors.As(err, &be) ||
		!strings.Contains(be.Hint(), "PAPERS_PRICES='llama3.1=IN/OUT'") || !strings.Contains(be.ToolHint(), `mode "extractive"`) {
		t.Errorf("an unpriced model under a cap: %v", err)
	}
	m = NewMeter(Prices{}, 0, false)
	est, err := m.Reserve("llama3.1", 100, 100)
	if err != nil {
		t.Fatal(err)
	}
	m.Done("llama3.1", est, 100, 20)
	if u := m.Usage(); u.CostUSD != nil || !strings.Contains(u.String(), "cost unknown") {
		t.Errorf("an unpriced model without a cap: %+v", u)
	}
	m = NewMeter(Prices{}, 0.000001, true) // a model on this machine
	if _, err := m.Reserve("llama3.1", 1e6, 1e6); err != nil {
		t.Errorf("a local model under a cap: %v", err)
	}
	m = NewMeter(Prices{"llama3.1": {In: 1}}, 0.000001, true) // priced by the user all the same
	if _, err := m.Reserve("llama3.1", 1e6, 1e6); !errors.Is(err, ErrOverBudget) {
		t.Errorf("a local model the user priced, under a cap: %v", err)
	}
}

// TestMeterConcurrentCallsStayUnderTheCap: calls in flight hold their
// estimates, so calls made at once cannot pass the cap together.
func TestMeterConcurrentCallsStayUnderTheCap(t *testing.T) {
	m := NewMeter(Prices{"m": {In: 1, Out: 1}}, 0.001, false) // 1,000 tokens
	var wg sync.WaitGroup
	var mu sync.Mutex
	let := 0
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			est, err := m.Reserve("m", 50, 50)
			if err == nil {
				mu.Lock()
				let++
				mu.Unlock()
				m.Done("m", est, 50, 50)
			}
		}()
	}
	wg.Wait()
	if u := m.Usage(); let > 10 || *u.CostUSD > 0.001 {
		t.Errorf("%d calls of 100 tokens let through a cap of 1,000: cost %v", let, *u.CostUSD)
	}
}
