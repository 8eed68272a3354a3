package ask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/internal/retry"
)

// LLM is the language model ask needs: one chat completion at a time.
// Implementations must be safe for concurrent use (quality mode calls it from
// several goroutines).
type LLM interface {
	// Complete sends the conversation and returns the reply. When w is not
	// nil the reply's text is also written to w, as it arrives when the
	// implementation streams. Errors are *LLMError values classified by the
	// sentinels below (errors.Is), or the context's error.
	Complete(ctx context.Context, req Request, w io.Writer) (*Completion, error)
	// Model names the model answering, e.g. "gpt-4o-mini".
	Model() string
}

// Message is one chat message; Role is "system", "user" or "assistant".
type Message struct {
	Role    string
	Content string
}

// Request is one chat completion request.
type Request struct {
	Messages []Message
	// MaxTokens bounds the reply; 0 leaves it to the server.
	MaxTokens int
	// Temperature 0 asks for the most deterministic reply the server gives
	// (see OpenAI.Complete for how 0 is sent).
	Temperature float32
}

// Completion is a model's reply.
type Completion struct {
	Text         string
	FinishReason string // "stop", "length", ...; "" when the server gave none
	Usage        Usage
}

// Usage counts the tokens of one or more completions.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func (u *Usage) add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
}

// Errors a caller can act on. Model errors are *LLMError values that match
// one of these with errors.Is; cancellation returns the context's error.
var (
	// ErrNoAPIKey: OpenAI was chosen (or implied) but OPENAI_API_KEY is not
	// set. The alternative is a local server: --llm ollama:MODEL.
	ErrNoAPIKey = errors.New("no API key for OpenAI: OPENAI_API_KEY is not set")
	// ErrUnauthorized: the server rejected the key (HTTP 401 or 403).
	ErrUnauthorized = errors.New("the model server rejected the API key")
	// ErrModelNotFound: the server does not know the model (LLMError.Model).
	ErrModelNotFound = errors.New("model not found")
	// ErrContextTooLong: the prompt does not fit the model's context. Answer
	// shrinks the passages and retries before returning it.
	ErrContextTooLong = errors.New("the prompt is longer than the model's context window")
	// ErrUnreachable: no connection to the server (LLMError.URL).
	ErrUnreachable = errors.New("cannot reach the model server")
	// ErrRateLimited: HTTP 429 after every retry.
	ErrRateLimited = errors.New("the model server is rate limiting requests")
	// ErrQuota: the account has no quota or credit left (429 insufficient_quota).
	ErrQuota = errors.New("the model account has no quota left")
	// ErrServer: HTTP 5xx after every retry.
	ErrServer = errors.New("the model server failed")
	// ErrTimeout: the server accepted the connection but sent no response
	// headers in time (see LLMConfig); not retried.
	ErrTimeout = errors.New("the model server did not answer in time")
	// ErrStreamBroken: the connection broke while the reply was streaming;
	// text already shown is not repeated, so nothing is retried.
	ErrStreamBroken = errors.New("the model's reply was cut off")
	// ErrBadRequest: any other refusal of the request (LLMError.Message says why).
	ErrBadRequest = errors.New("the model server refused the request")
)

// LLMError is a classified error from the model server. It never contains
// the API key.
type LLMError struct {
	Kind    error  // one of the Err* sentinels above
	Status  int    // HTTP status; 0 when there was no response
	Model   string // the model asked for
	URL     string // the server's base URL, without credentials
	Message string // the server's own message, if any (trimmed)
	Err     error  // the underlying error
}

func (e *LLMError) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	switch {
	case errors.Is(e.Kind, ErrModelNotFound):
		fmt.Fprintf(&b, ": %q at %s", e.Model, e.URL)
	case errors.Is(e.Kind, ErrUnreachable):
		fmt.Fprintf(&b, " at %s", e.URL)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	} else if e.Err != nil && !errors.Is(e.Kind, ErrModelNotFound) {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Is matches the error's Kind.
func (e *LLMError) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying error.
func (e *LLMError) Unwrap() error { return e.Err }

// DefaultOpenAIModel is used when OPENAI_API_KEY is set and no model was chosen.
const DefaultOpenAIModel = "gpt-4o-mini"

// DefaultOllamaURL is Ollama's OpenAI-compatible endpoint on this machine.
const DefaultOllamaURL = "http://localhost:11434/v1"

const openaiURL = "https://api.openai.com/v1"

// LLMConfig chooses and configures a model. The cmd layer fills it from
// --llm / PAPERS_LLM, OPENAI_API_KEY, OPENAI_BASE_URL and OLLAMA_HOST.
type LLMConfig struct {
	// Spec is "openai:MODEL", "ollama:MODEL", a bare "MODEL" (the
	// OpenAI-compatible server at BaseURL) or "" (OpenAI's default model
	// when APIKey is set, else no model).
	Spec string
	// APIKey is OPENAI_API_KEY; required only for api.openai.com.
	APIKey string
	// BaseURL is OPENAI_BASE_URL (default https://api.openai.com/v1); it is
	// normalised to end in /v1 when it names no API version.
	BaseURL string
	// OllamaHost is OLLAMA_HOST, used by "ollama:" (default localhost:11434).
	OllamaHost string
	// NoStream asks for the whole reply at once instead of streaming it.
	NoStream bool
	// HTTPClient overrides the HTTP client (its Transport is wrapped to read
	// Retry-After); nil uses one with dial, TLS and header timeouts.
	HTTPClient *http.Client
	// MaxRetries bounds retries of 429 and 5xx answers (default 3; -1 for none).
	MaxRetries int
	// MaxRetryWait caps one wait between retries (default 30s), whatever
	// Retry-After says.
	MaxRetryWait time.Duration
}

// ResolveLLM returns the model cfg chooses, or nil (and no error) when none
// is configured, which means extractive answers.
func ResolveLLM(cfg LLMConfig) (LLM, error) {
	if cfg.Spec == "" && cfg.APIKey == "" {
		return nil, nil
	}
	o, err := NewOpenAI(cfg)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// OpenAI is the LLM of any OpenAI-compatible chat completions server (OpenAI,
// Ollama, vLLM, llama.cpp, LM Studio) through go-openai. It is safe for
// concurrent use.
type OpenAI struct {
	client       *openai.Client
	model        string
	baseURL      string // for messages: no credentials
	key          string // only to scrub from what the server says
	openAI       bool   // the server is api.openai.com
	stream       bool
	maxRetries   int
	maxRetryWait time.Duration
	noTemp       atomic.Bool // the model refused an explicit temperature
}

var _ LLM = (*OpenAI)(nil)

// NewOpenAI builds the adapter cfg describes. It fails with ErrNoAPIKey when
// the server is api.openai.com and there is no key, and with a plain error
// for a malformed Spec or BaseURL. It makes no request.
func NewOpenAI(cfg LLMConfig) (*OpenAI, error) {
	provider, model, ok := strings.Cut(cfg.Spec, ":")
	if !ok {
		provider, model = "", cfg.Spec
	}
	// "llama3.1:8b" is an Ollama model name, not a provider.
	if ok && provider != "openai" && provider != "ollama" {
		provider, model = "", cfg.Spec
	}
	base := cfg.BaseURL
	key := cfg.APIKey
	switch provider {
	case "ollama":
		base = DefaultOllamaURL
		if h := cfg.OllamaHost; h != "" {
			if !strings.Contains(h, "://") {
				h = "http://" + h
			}
			base = h
		}
		// Never send an OpenAI key to Ollama: it ignores keys, and
		// OLLAMA_HOST may be another machine.
		key = "ollama"
	case "openai", "":
		if base == "" {
			base = openaiURL
		}
	}
	if model == "" {
		if provider == "ollama" {
			return nil, fmt.Errorf("--llm ollama: needs a model name, e.g. ollama:llama3.1")
		}
		model = DefaultOpenAIModel
	}
	base, err := openaicompat.NormaliseBaseURL(base, "model server")
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	isOpenAI := u.Hostname() == "api.openai.com"
	if isOpenAI && key == "" {
		return nil, ErrNoAPIKey
	}

	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: openaicompat.DefaultTransport()}
	}
	c := *hc
	base2 := c.Transport
	if base2 == nil {
		base2 = http.DefaultTransport
	}
	c.Transport = retry.Transport{Base: base2}

	oc := openai.DefaultConfig(key)
	oc.BaseURL = base
	oc.HTTPClient = &c

	o := &OpenAI{
		client:       openai.NewClientWithConfig(oc),
		model:        model,
		baseURL:      openaicompat.RedactURL(base),
		key:          key,
		openAI:       isOpenAI,
		stream:       !cfg.NoStream,
		maxRetries:   cfg.MaxRetries,
		maxRetryWait: cfg.MaxRetryWait,
	}
	if o.maxRetries == 0 {
		o.maxRetries = 3
	} else if o.maxRetries < 0 {
		o.maxRetries = 0
	}
	if o.maxRetryWait == 0 {
		o.maxRetryWait = 30 * time.Second
	}
	return o, nil
}

// Model returns the model's name.
func (o *OpenAI) Model() string { return o.model }

// BaseURL returns the server's base URL without credentials.
func (o *OpenAI) BaseURL() string { return o.baseURL }

// Complete implements LLM. It streams when the adapter streams and w is not
// nil, writing each piece of text to w as it arrives. 429 (except
// insufficient_quota) and 5xx answers and dropped connections are retried
// with backoff, honouring Retry-After, but only while nothing has been
// written to w. Temperature 0 is sent as 1e-6 because go-openai omits a
// zero temperature and servers then use their default (often 0.8-1);
// models that accept only their default are retried without it.
func (o *OpenAI) Complete(ctx context.Context, req Request, w io.Writer) (*Completion, error) {
	shown := false
	for attempt := 0; ; attempt++ {
		actx, hint := retry.WithHint(ctx)
		var c *Completion
		var err error
		if o.stream && w != nil {
			c, err = o.streamOnce(actx, req, w, &shown)
		} else {
			c, err = o.once(actx, req)
			if err == nil && w != nil && c.Text != "" {
				if _, werr := io.WriteString(w, c.Text); werr != nil {
					return c, werr
				}
			}
		}
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return c, context.Cause(ctx)
		}
		le := o.classify(err)
		if !shown && errors.Is(le, ErrBadRequest) && mentionsTemperature(le) && !o.noTemp.Load() {
			o.noTemp.Store(true)
			attempt--
			continue
		}
		if shown || !retryable(le) || attempt >= o.maxRetries {
			if shown && !errors.Is(le, ErrStreamBroken) {
				le = &LLMError{Kind: ErrStreamBroken, Status: le.Status, Model: o.model, URL: o.baseURL, Message: le.Message, Err: le.Err}
			}
			return c, le
		}
		if err := retry.Sleep(ctx, retry.Backoff(attempt, 500*time.Millisecond, o.maxRetryWait, hint)); err != nil {
			return nil, err
		}
	}
}

func (o *OpenAI) request(req Request, stream bool) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{Model: o.model, Stream: stream}
	for _, m := range req.Messages {
		r.Messages = append(r.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if !o.noTemp.Load() {
		r.Temperature = req.Temperature
		if r.Temperature == 0 {
			r.Temperature = 1e-6
		}
	}
	if req.MaxTokens > 0 {
		if o.openAI {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	if stream {
		r.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return r
}

func (o *OpenAI) once(ctx context.Context, req Request) (*Completion, error) {
	resp, err := o.client.CreateChatCompletion(ctx, o.request(req, false))
	if err != nil {
		return nil, err
	}
	c := &Completion{Usage: Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}}
	if len(resp.Choices) > 0 {
		c.Text = resp.Choices[0].Message.Content
		c.FinishReason = string(resp.Choices[0].FinishReason)
	}
	return c, nil
}

func (o *OpenAI) streamOnce(ctx context.Context, req Request, w io.Writer, shown *bool) (*Completion, error) {
	stream, err := o.client.CreateChatCompletionStream(ctx, o.request(req, true))
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	c := &Completion{}
	var text strings.Builder
	events := 0
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if events == 0 {
				// A 200 whose body holds no event at all: a web page or
				// another API at the address, not an empty answer.
				return c, &LLMError{Kind: ErrBadRequest, Model: o.model, URL: o.baseURL,
					Message: "the reply was not an OpenAI-compatible event stream (no data: events): is " + o.baseURL + " the server's /v1 address?"}
			}
			break
		}
		events++
		if err != nil {
			c.Text = text.String()
			if *shown && ctx.Err() == nil {
				return c, &LLMError{Kind: ErrStreamBroken, Model: o.model, URL: o.baseURL, Err: err}
			}
			return c, err
		}
		// The final chunk (stream_options.include_usage) has usage and no choices.
		if resp.Usage != nil {
			c.Usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
		}
		for _, ch := range resp.Choices {
			if ch.Index != 0 {
				continue
			}
			if s := ch.Delta.Content; s != "" {
				text.WriteString(s)
				*shown = true
				if _, err := io.WriteString(w, s); err != nil {
					c.Text = text.String()
					return c, fmt.Errorf("write answer: %w", err)
				}
			}
			if ch.FinishReason != "" {
				c.FinishReason = string(ch.FinishReason)
			}
		}
	}
	c.Text = text.String()
	if c.FinishReason == "" && *shown {
		// The body ended cleanly but the model never said it had finished:
		// a proxy or server cut the reply short.
		return c, &LLMError{Kind: ErrStreamBroken, Model: o.model, URL: o.baseURL, Err: io.ErrUnexpectedEOF}
	}
	return c, nil
}

// classify turns a go-openai or transport error into an *LLMError.
func (o *OpenAI) classify(err error) *LLMError {
	var le *LLMError
	if errors.As(err, &le) {
		return le
	}
	e := &LLMError{Model: o.model, URL: o.baseURL, Err: err}
	var code, typ string
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	// RequestError first: for a body like Ollama's {"error": "..."} go-openai
	// wraps an empty *APIError inside it.
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		e.Message = bodyMessage(reqErr.Body)
		var inner *openai.APIError
		if e.Message == "" && reqErr.Err != nil && !errors.As(reqErr.Err, &inner) {
			e.Message = reqErr.Err.Error()
		}
	case errors.As(err, &apiErr):
		e.Status = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
		code = fmt.Sprint(apiErr.Code)
		typ = apiErr.Type
		if apiErr.Param != nil && *apiErr.Param == "temperature" {
			e.Message = "temperature: " + e.Message
		}
	default:
		var dnsErr *net.DNSError
		var opErr *net.OpError
		if errors.As(err, &dnsErr) || (errors.As(err, &opErr) && opErr.Op == "dial") {
			e.Kind = ErrUnreachable
			return e
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			e.Kind = ErrTimeout
			return e
		}
		// A dropped connection or garbled stream before any text: retryable.
		e.Kind = ErrServer
		return e
	}
	// The server's words are printed: some echo the key or the header.
	e.Message = clip(strings.TrimSpace(openaicompat.RedactKey(e.Message, o.key)), 300)
	msg := strings.ToLower(e.Message)
	switch {
	case code == "context_length_exceeded" || contextTooLong.MatchString(msg):
		e.Kind = ErrContextTooLong
	case code == "insufficient_quota" || typ == "insufficient_quota":
		e.Kind = ErrQuota
	case e.Status == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
	case e.Status == http.StatusUnauthorized || code == "invalid_api_key" ||
		(e.Status == http.StatusForbidden && strings.Contains(msg, "key")):
		e.Kind = ErrUnauthorized
	case code == "model_not_found" || modelNotFound.MatchString(msg):
		e.Kind = ErrModelNotFound
	case e.Status >= 500:
		e.Kind = ErrServer
	default:
		e.Kind = ErrBadRequest
	}
	return e
}

var (
	contextTooLong = regexp.MustCompile(`context length|context window|context size|maximum context|too many tokens|prompt is too long|exceeds? the (available )?context|input is too long|tokens exceed|reduce the length`)
	modelNotFound  = regexp.MustCompile(`model\b.*\b(not found|does not exist|not exist|unknown|no such)|(unknown|no such|invalid) model|model_not_found|pull the model|try pulling`)
)

// bodyMessage extracts a readable message from an error body that go-openai
// could not parse as OpenAI's: Ollama's {"error": "..."}, {"message": ...},
// {"detail": ...} or plain text.
func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		if v.Message != "" {
			return v.Message
		}
		if json.Unmarshal(v.Detail, &s) == nil && s != "" {
			return s
		}
		if len(v.Detail) > 0 {
			return string(v.Detail)
		}
	}
	return strings.Join(strings.Fields(string(body)), " ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func mentionsTemperature(e *LLMError) bool {
	return strings.Contains(strings.ToLower(e.Message), "temperature")
}

func retryable(e *LLMError) bool {
	return errors.Is(e, ErrRateLimited) || errors.Is(e, ErrServer)
}
