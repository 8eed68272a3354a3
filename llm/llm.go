package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/internal/retry"
	"github.com/papers-cli/papers/internal/safetext"
)

// LLM is the language model ask needs: one chat completion at a time.
// Implementations must be safe for concurrent use (quality mode calls it from
// several goroutines).
type LLM interface {
	// Complete sends the conversation and returns the reply. When w is not
	// nil the reply's text is also written to w, as it arrives when the
	// implementation streams. Errors are classified by the Err* sentinels
	// below (errors.Is; the error names its fix, Hint), or the context's error.
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

// Add adds v to u.
func (u *Usage) Add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
}

// Errors a caller can act on: the kinds of *openaicompat.Error, the one
// error model of the model and embedding clients (errors.Is matches them;
// the error's Hint names the fix). Cancellation returns the context's
// error.
var (
	// ErrNoAPIKey: OpenAI was chosen (or implied) but OPENAI_API_KEY is not
	// set. The alternative is a local server: --llm ollama:MODEL.
	ErrNoAPIKey error = openaicompat.NoAPIKey
	// ErrUnauthorized: the server rejected the key (HTTP 401 or 403).
	ErrUnauthorized error = openaicompat.Auth
	// ErrModelNotFound: the server does not know the model.
	ErrModelNotFound error = openaicompat.ModelNotFound
	// ErrContextTooLong: the prompt does not fit the model's context. Answer
	// shrinks the passages and retries before returning it.
	ErrContextTooLong error = openaicompat.ContextTooLong
	// ErrUnreachable: no connection to the server.
	ErrUnreachable error = openaicompat.Unreachable
	// ErrRateLimited: HTTP 429 after every retry.
	ErrRateLimited error = openaicompat.RateLimited
	// ErrQuota: the account has no quota or credit left (429 insufficient_quota).
	ErrQuota error = openaicompat.Quota
	// ErrServer: HTTP 5xx after every retry.
	ErrServer error = openaicompat.Server
	// ErrTimeout: the server sent no response, first text or next piece in
	// time (see LLMConfig); not retried.
	ErrTimeout error = openaicompat.Timeout
	// ErrStreamBroken: the connection broke while the reply was streaming;
	// text already shown is not repeated, so nothing is retried.
	ErrStreamBroken error = openaicompat.StreamBroken
	// ErrBadRequest: any other refusal of the request (the error's Message
	// says why).
	ErrBadRequest error = openaicompat.BadRequest
	// ErrBadReply: the reply is not an OpenAI-compatible answer (unreadable
	// JSON, a web page); not retried.
	ErrBadReply error = openaicompat.BadReply
	// ErrEmptyReply: the server answered with no choice or no text.
	ErrEmptyReply error = openaicompat.EmptyReply
	// ErrTooLong: the reply exceeded LLMConfig.MaxAnswerBytes (a model that
	// never stops); what was shown is not repeated.
	ErrTooLong error = openaicompat.TooLarge
)

// DefaultOpenAIModel is used when OPENAI_API_KEY is set and no model was chosen.
const DefaultOpenAIModel = "gpt-4o-mini"

// DefaultOllamaURL is Ollama's OpenAI-compatible endpoint on this machine.
const DefaultOllamaURL = openaicompat.DefaultOllamaURL

// Limits of a model's reply (LLMConfig's zero values).
const (
	// DefaultFirstTokenTimeout bounds the wait for the first text of a
	// streamed reply, or for a whole reply that is not streamed: a local
	// model may load for a minute and read a long prompt for another.
	DefaultFirstTokenTimeout = 3 * time.Minute
	// DefaultIdleTimeout bounds the wait between two pieces of a streamed
	// reply.
	DefaultIdleTimeout = time.Minute
	// DefaultMaxAnswerBytes bounds a reply's text (about 64k tokens).
	DefaultMaxAnswerBytes = 256 << 10
)

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
	// Retry-After and cap replies); nil uses one with dial, TLS and header
	// timeouts.
	HTTPClient *http.Client
	// MaxRetries bounds retries of 429 and 5xx answers (default 3; -1 for none).
	MaxRetries int
	// MaxRetryWait caps one wait between retries (default 30s), whatever
	// Retry-After says.
	MaxRetryWait time.Duration
	// FirstTokenTimeout bounds the time from a request to the first text of
	// its streamed reply, or to the whole reply when it is not streamed
	// (default DefaultFirstTokenTimeout; negative: no limit).
	FirstTokenTimeout time.Duration
	// IdleTimeout bounds the time between two pieces of a streamed reply
	// (default DefaultIdleTimeout; negative: no limit).
	IdleTimeout time.Duration
	// MaxAnswerBytes bounds a reply's text (default DefaultMaxAnswerBytes).
	MaxAnswerBytes int
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
//
// What the server sends back is untrusted: the text of every reply (streamed
// or not) has its control characters and bidirectional overrides made inert
// (safetext) and the API key scrubbed, before it is written or returned.
type OpenAI struct {
	c            *openaicompat.Client
	model        string
	stream       bool
	maxRetries   int
	maxRetryWait time.Duration
	firstToken   time.Duration
	idle         time.Duration
	maxAnswer    int
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
	if provider == "ollama" {
		base = openaicompat.OllamaURL(cfg.OllamaHost)
		// Never send an OpenAI key to Ollama: it ignores keys, and
		// OLLAMA_HOST may be another machine.
		key = "ollama"
	}
	if model == "" {
		if provider == "ollama" {
			return nil, fmt.Errorf("--llm ollama: needs a model name, e.g. ollama:llama3.1")
		}
		model = DefaultOpenAIModel
	}
	o := &OpenAI{
		model:        model,
		stream:       !cfg.NoStream,
		maxRetries:   cfg.MaxRetries,
		maxRetryWait: cfg.MaxRetryWait,
		firstToken:   orDefault(cfg.FirstTokenTimeout, DefaultFirstTokenTimeout),
		idle:         orDefault(cfg.IdleTimeout, DefaultIdleTimeout),
		maxAnswer:    cfg.MaxAnswerBytes,
	}
	if o.maxAnswer <= 0 {
		o.maxAnswer = DefaultMaxAnswerBytes
	}
	c, err := openaicompat.New(openaicompat.Config{BaseURL: base, APIKey: key, Service: openaicompat.Chat,
		HTTPClient: cfg.HTTPClient, MaxBody: max(64*int64(o.maxAnswer), 1<<20)})
	if err != nil {
		return nil, err
	}
	o.c = c
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

// orDefault is d, or def when d is 0; a negative d (no limit) becomes 0.
func orDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Model returns the model's name.
func (o *OpenAI) Model() string { return o.model }

// BaseURL returns the server's base URL without credentials.
func (o *OpenAI) BaseURL() string { return o.c.URL }

// Complete implements LLM. It streams when the adapter streams and w is not
// nil, writing each piece of text to w as it arrives. 429 (except
// insufficient_quota) and 5xx answers and dropped connections are retried
// with backoff, honouring Retry-After, but only while nothing has been
// written to w. Temperature 0 is sent as 1e-6 because go-openai omits a
// zero temperature and servers then use their default (often 0.8-1);
// models that accept only their default are retried without it.
//
// A reply is bounded: its first text must come within the first-token
// timeout and each next piece within the idle timeout (ErrTimeout), and its
// text may not exceed MaxAnswerBytes (ErrTooLong). A reply without text is
// ErrEmptyReply.
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
			if err == nil && w != nil {
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
			if shown && !errors.Is(le, ErrStreamBroken) && !errors.Is(le, ErrTimeout) && !errors.Is(le, ErrTooLong) && !errors.Is(le, ErrEmptyReply) {
				le = &openaicompat.Error{Kind: openaicompat.StreamBroken, Service: le.Service, Status: le.Status, Model: o.model, URL: o.c.URL, Message: le.Message, Err: le.Err}
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
		if o.c.IsOpenAI {
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

func (o *OpenAI) timeout(phase string) *openaicompat.TimeoutError {
	return &openaicompat.TimeoutError{What: "model server", URL: o.c.URL, Phase: phase}
}

// clean makes a reply's text inert and scrubs the key from it.
func (o *OpenAI) clean(s string) string { return o.c.Scrub(safetext.Clean(s)) }

func (o *OpenAI) once(ctx context.Context, req Request) (*Completion, error) {
	wctx, wd := openaicompat.Watch(ctx, o.firstToken, o.timeout("reply"))
	defer wd.Stop()
	resp, err := o.c.API.CreateChatCompletion(wctx, o.request(req, false))
	if err != nil {
		return nil, wd.Err(err)
	}
	c := &Completion{Usage: Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}}
	if len(resp.Choices) == 0 {
		return c, o.empty("the reply holds no choices")
	}
	c.Text = resp.Choices[0].Message.Content
	c.FinishReason = string(resp.Choices[0].FinishReason)
	if len(c.Text) > o.maxAnswer {
		return nil, &openaicompat.TooLargeError{What: "answer", Limit: int64(o.maxAnswer), Unit: "bytes"}
	}
	c.Text = o.clean(c.Text)
	if strings.TrimSpace(c.Text) == "" {
		return c, o.empty(emptyWhy(c.FinishReason))
	}
	return c, nil
}

func (o *OpenAI) empty(why string) *openaicompat.Error {
	return o.fail(openaicompat.EmptyReply, why, nil)
}

// fail is an error of kind k about the model.
func (o *OpenAI) fail(k openaicompat.Kind, msg string, err error) *openaicompat.Error {
	e := o.c.Fail(k, msg, err)
	e.Model = o.model
	return e
}

func emptyWhy(finish string) string {
	if finish == "length" {
		return "the output limit was reached before any text (a reasoning model may need a higher limit)"
	}
	if finish != "" {
		return "finish reason " + safetext.OneLine(openaicompat.Clip(finish, 40))
	}
	return "no text"
}

func (o *OpenAI) streamOnce(ctx context.Context, req Request, w io.Writer, shown *bool) (*Completion, error) {
	wctx, wd := openaicompat.Watch(ctx, o.firstToken, o.timeout("first token"))
	defer wd.Stop()
	stream, err := o.c.API.CreateChatCompletionStream(wctx, o.request(req, true))
	if err != nil {
		return nil, wd.Err(err)
	}
	defer stream.Close()
	// Untrusted text: made inert, then the key scrubbed, on its way to w.
	scrub := &openaicompat.Scrubber{W: w, Key: o.c.Key()}
	cleaner := safetext.NewWriter(scrub)
	c := &Completion{}
	var text strings.Builder // the raw text, for the size cap
	finishWrites := func() error {
		if err := cleaner.Flush(); err != nil {
			return err
		}
		return scrub.Flush()
	}
	events, choices := 0, 0
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if events == 0 {
				// A 200 whose body holds no event at all: a web page or
				// another API at the address, not an empty answer.
				return c, o.fail(openaicompat.BadReply, "it holds no event stream (data: lines): is "+o.c.URL+" the server's /v1 address?", nil)
			}
			break
		}
		events++
		if err != nil {
			err = wd.Err(err)
			ferr := finishWrites()
			c.Text = o.clean(text.String())
			if ferr != nil {
				return c, fmt.Errorf("write answer: %w", ferr)
			}
			if *shown && ctx.Err() == nil && !isLimit(err) {
				return c, o.fail(openaicompat.StreamBroken, "", err)
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
			choices++
			if s := ch.Delta.Content; s != "" {
				if text.Len()+len(s) > o.maxAnswer {
					finishWrites()
					c.Text = o.clean(text.String())
					return c, &openaicompat.TooLargeError{What: "answer", Limit: int64(o.maxAnswer), Unit: "bytes"}
				}
				wd.Feed(o.idle, o.timeout("next token"))
				text.WriteString(s)
				*shown = true
				if _, err := io.WriteString(cleaner, s); err != nil {
					c.Text = o.clean(text.String())
					return c, fmt.Errorf("write answer: %w", err)
				}
			}
			if ch.FinishReason != "" {
				c.FinishReason = string(ch.FinishReason)
			}
		}
	}
	if err := finishWrites(); err != nil {
		return c, fmt.Errorf("write answer: %w", err)
	}
	c.Text = o.clean(text.String())
	if c.FinishReason == "" && *shown {
		// The body ended cleanly but the model never said it had finished:
		// a proxy or server cut the reply short.
		return c, o.fail(openaicompat.StreamBroken, "", io.ErrUnexpectedEOF)
	}
	if choices == 0 {
		return c, o.empty("the reply holds no choices")
	}
	if strings.TrimSpace(c.Text) == "" {
		return c, o.empty(emptyWhy(c.FinishReason))
	}
	return c, nil
}

// isLimit reports the errors of the reply's bounds, which say more than
// "cut off".
func isLimit(err error) bool {
	var t *openaicompat.TimeoutError
	var l *openaicompat.TooLargeError
	return errors.As(err, &t) || errors.As(err, &l)
}

// classify turns a go-openai or transport error into an *openaicompat.Error
// about the model.
func (o *OpenAI) classify(err error) *openaicompat.Error {
	e := o.c.Classify(err)
	e.Model = o.model
	if e.Param == "temperature" && e.Message != "" && !strings.HasPrefix(e.Message, "temperature: ") {
		e.Message = "temperature: " + e.Message
	}
	return e
}

func mentionsTemperature(e *openaicompat.Error) bool {
	return strings.Contains(strings.ToLower(e.Message), "temperature")
}

func retryable(e *openaicompat.Error) bool { return e.Retryable() }
