// Package cost counts what language-model calls use and cost, and keeps
// them under a cap. A Meter wraps the model a session hands out (Wrap):
// before each call it estimates the call's cost from its prompt and its
// output limit and refuses the call (ErrOverBudget, nothing sent) when
// that estimate would take the spending past the cap; after the call it
// adds the tokens the server reported, priced from a table the user can
// set (Prices). Multi-call commands (digest, review) stop at the first
// refusal and keep what the calls before it made.
package cost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/papers-cli/papers/llm"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	In  float64 `json:"in"`
	Out float64 `json:"out"`
}

// Prices maps models to prices. A model is looked up by its name, then by
// the longest name in the table its name starts with (gpt-4o-mini-2024-07-18
// is priced as gpt-4o-mini).
type Prices map[string]Price

// DefaultPrices are OpenAI's published list prices (USD per million
// tokens, standard tier) of the models papers is most often run with, as
// of 2025; models served on this machine (Ollama, llama.cpp) cost nothing.
// Set your own with a prices file or PAPERS_PRICES: providers change them.
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o-mini":            {In: 0.15, Out: 0.60},
		"gpt-4o":                 {In: 2.50, Out: 10.00},
		"gpt-4.1":                {In: 2.00, Out: 8.00},
		"gpt-4.1-mini":           {In: 0.40, Out: 1.60},
		"gpt-4.1-nano":           {In: 0.10, Out: 0.40},
		"o3-mini":                {In: 1.10, Out: 4.40},
		"o4-mini":                {In: 1.10, Out: 4.40},
		"text-embedding-3-small": {In: 0.02},
		"text-embedding-3-large": {In: 0.13},
	}
}

// Lookup returns the price of model.
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best := ""
	for name := range p {
		if strings.HasPrefix(model, name) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return p[best], true
}

// Merge returns p with the prices of q added (q's win).
func (p Prices) Merge(q Prices) Prices {
	out := Prices{}
	for k, v := range p {
		out[k] = v
	}
	for k, v := range q {
		out[k] = v
	}
	return out
}

// ParsePrices reads prices as PAPERS_PRICES gives them: MODEL=IN/OUT,
// comma-separated, in dollars per million tokens, e.g.
// "gpt-4o-mini=0.15/0.60,my-model=1/2" (OUT may be left out: 0).
func ParsePrices(s string) (Prices, error) {
	out := Prices{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, v, ok := strings.Cut(f, "=")
		in, outS, _ := strings.Cut(v, "/")
		pin, err1 := strconv.ParseFloat(strings.TrimSpace(in), 64)
		pout, err2 := 0.0, error(nil)
		if outS != "" {
			pout, err2 = strconv.ParseFloat(strings.TrimSpace(outS), 64)
		}
		name = strings.TrimSpace(name)
		if !ok || name == "" || err1 != nil || err2 != nil || pin < 0 || pout < 0 || math.IsInf(pin+pout, 0) || math.IsNaN(pin+pout) {
			return nil, fmt.Errorf("invalid price %q: want MODEL=IN/OUT in dollars per million tokens, e.g. gpt-4o-mini=0.15/0.60", f)
		}
		out[name] = Price{In: pin, Out: pout}
	}
	return out, nil
}

// ReadPrices reads a prices file: a JSON object of models to
// {"in": IN, "out": OUT}, dollars per million tokens.
func ReadPrices(r io.Reader) (Prices, error) {
	var p Prices
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf(`want {"MODEL": {"in": IN, "out": OUT}} in dollars per million tokens: %w`, err)
	}
	for name, pr := range p {
		if pr.In < 0 || pr.Out < 0 {
			return nil, fmt.Errorf("model %s: a price below 0", name)
		}
	}
	return p, nil
}

// LoadPrices reads the prices file at path; a file that does not exist
// holds no prices.
func LoadPrices(path string) (Prices, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Prices{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ReadPrices(f)
	if err != nil {
		return nil, fmt.Errorf("prices file %s: %w", path, err)
	}
	return p, nil
}

// ErrOverBudget is matched (errors.Is) by the error of a call the Meter
// refused: its estimate would take the spending past the cap.
var ErrOverBudget = errors.New("over the cost cap")

// BudgetError is the error of a refused call.
type BudgetError struct {
	Model    string
	Estimate float64 // the call's estimated cost, dollars
	Spent    float64 // what the calls before it cost (and those in flight may)
	Max      float64 // the cap
	Unpriced bool    // the model has no price: its cost cannot be bounded
}

func (e *BudgetError) Error() string {
	if e.Unpriced {
		return fmt.Sprintf("%s: model %s has no price, so its cost cannot be kept under the cap of $%s", ErrOverBudget, e.Model, Dollars(e.Max))
	}
	return fmt.Sprintf("%s: a call to %s estimated at $%s after $%s spent would pass the cap of $%s",
		ErrOverBudget, e.Model, Dollars(e.Estimate), Dollars(e.Spent), Dollars(e.Max))
}

// Is matches ErrOverBudget.
func (e *BudgetError) Is(target error) bool { return target == ErrOverBudget }

// Hint names the fix.
func (e *BudgetError) Hint() string {
	if e.Unpriced {
		return fmt.Sprintf("give it a price: PAPERS_PRICES='%s=IN/OUT' (dollars per million tokens), or a prices file; or drop --max-cost", e.Model)
	}
	return "raise --max-cost (PAPERS_MAX_COST), or answer without a model (--extractive)"
}

// ToolHint is Hint for an assistant calling papers' MCP tools.
func (e *BudgetError) ToolHint() string {
	if e.Unpriced {
		return "the user gives the model a price (PAPERS_PRICES) or drops --max-cost in papers mcp's configuration; ask with mode \"extractive\" costs nothing"
	}
	return "call ask with mode \"extractive\" (digest with extractive true), which costs nothing; the user raises --max-cost in papers mcp's configuration"
}

// Usage is what the calls of a meter used: the "usage" of the --json
// outputs. CostUSD is nil when a model used has no price, or no call was
// made.
type Usage struct {
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Calls            int      `json:"calls,omitempty"`
	Models           []string `json:"models,omitempty"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
	MaxCostUSD       float64  `json:"max_cost_usd,omitempty"`
}

// String is the usage as papers reports it on stderr.
func (u Usage) String() string {
	s := fmt.Sprintf("%s: %d tokens in, %d out in %d call", strings.Join(u.Models, ", "), u.PromptTokens, u.CompletionTokens, u.Calls)
	if u.Calls != 1 {
		s += "s"
	}
	if u.CostUSD != nil {
		s += ", about $" + Dollars(*u.CostUSD)
	} else {
		s += ", cost unknown (no price for the model: set PAPERS_PRICES)"
	}
	if u.MaxCostUSD > 0 {
		s += " (cap $" + Dollars(u.MaxCostUSD) + ")"
	}
	return s
}

// Dollars formats an amount with the digits that matter: 0.0003, 1.25.
func Dollars(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x < 0.01: // two significant digits, never an exponent
		return strconv.FormatFloat(x, 'f', int(-math.Floor(math.Log10(x)))+1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// Meter counts the tokens and cost of model calls and refuses those that
// would pass its cap. Safe for concurrent use.
type Meter struct {
	prices Prices  // the user's
	max    float64 // 0: no cap
	free   bool    // the server runs on this machine: what the user did not price costs nothing

	mu       sync.Mutex
	spent    float64 // priced calls ended
	reserved float64 // estimates of calls in flight
	unpriced bool
	u        Usage
}

// NewMeter returns a meter refusing calls that would take the cost past
// max dollars (max <= 0: no cap). A model is priced by the user's prices,
// else, when local (its server runs on this machine), at nothing, else by
// DefaultPrices.
func NewMeter(prices Prices, max float64, local bool) *Meter {
	return &Meter{prices: prices, max: max, free: local}
}

// OutputGuess is the output a call with no limit is assumed to produce
// (tokens), for its estimate.
const OutputGuess = 1000

// Estimate is the pre-flight estimate of a request's tokens: its messages'
// characters at 3 a token (English prose runs nearer 4: this errs high),
// plus 4 a message, and its output limit (OutputGuess when it has none).
func Estimate(req llm.Request) (in, out int) {
	for _, m := range req.Messages {
		in += (len(m.Content)+2)/3 + 4
	}
	out = req.MaxTokens
	if out <= 0 {
		out = OutputGuess
	}
	return in, out
}

func (m *Meter) price(model string) (Price, bool) {
	if p, ok := m.prices.Lookup(model); ok {
		return p, true
	}
	if m.free {
		return Price{}, true
	}
	return DefaultPrices().Lookup(model)
}

// Reserve is the pre-flight check of a call of model: it refuses the call
// with a *BudgetError when its estimate (in and out tokens) would take
// what was spent and what is in flight past the cap, and otherwise holds
// the estimate until Done.
func (m *Meter) Reserve(model string, in, out int) (float64, error) {
	p, ok := m.price(model)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok {
		if m.max > 0 {
			return 0, &BudgetError{Model: model, Max: m.max, Unpriced: true}
		}
		return 0, nil
	}
	est := (float64(in)*p.In + float64(out)*p.Out) / 1e6
	if m.max > 0 && m.spent+m.reserved+est > m.max {
		return 0, &BudgetError{Model: model, Estimate: est, Spent: m.spent + m.reserved, Max: m.max}
	}
	m.reserved += est
	return est, nil
}

// Done ends a call Reserve let through: est is released and the tokens
// the server reported are counted and priced.
func (m *Meter) Done(model string, est float64, in, out int) {
	p, ok := m.price(model)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reserved -= est
	m.u.Calls++
	m.u.PromptTokens += in
	m.u.CompletionTokens += out
	if !contains(m.u.Models, model) {
		m.u.Models = append(m.u.Models, model)
		sort.Strings(m.u.Models)
	}
	if !ok {
		m.unpriced = true
		return
	}
	m.spent += (float64(in)*p.In + float64(out)*p.Out) / 1e6
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Usage returns what the calls so far used; with no call, the zero Usage
// (its JSON has the two token counts only).
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.u.Calls == 0 {
		return Usage{}
	}
	u := m.u
	u.Models = append([]string(nil), m.u.Models...)
	if !m.unpriced {
		c := math.Round(m.spent*1e6) / 1e6
		u.CostUSD = &c
	}
	u.MaxCostUSD = m.max
	return u
}

// Wrap returns model with every call checked and counted by m.
func (m *Meter) Wrap(model llm.LLM) llm.LLM {
	if model == nil {
		return nil
	}
	return &metered{LLM: model, m: m}
}

type metered struct {
	llm.LLM
	m *Meter
}

func (w *metered) Complete(ctx context.Context, req llm.Request, out io.Writer) (*llm.Completion, error) {
	in, o := Estimate(req)
	est, err := w.m.Reserve(w.Model(), in, o)
	if err != nil {
		return nil, err
	}
	c, err := w.LLM.Complete(ctx, req, out)
	var tin, tout int
	if c != nil {
		tin, tout = c.Usage.PromptTokens, c.Usage.CompletionTokens
	}
	if tin == 0 && tout == 0 && err == nil {
		tin = in // the server reported no usage: count the estimate of the prompt
		if c != nil {
			tout = (len(c.Text) + 2) / 3
		}
	}
	w.m.Done(w.Model(), est, tin, tout)
	return c, err
}
