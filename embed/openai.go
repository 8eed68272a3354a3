package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/internal/retry"
)

// OpenAIDescription says what the OpenAI-compatible providers are, for --help.
const OpenAIDescription = `openai:MODEL embeds through any OpenAI-compatible /v1/embeddings endpoint
(OpenAI, Ollama, vLLM, llama.cpp --embeddings, LM Studio, TEI) at
OPENAI_BASE_URL with OPENAI_API_KEY; ollama:MODEL is short for Ollama's
http://localhost:11434/v1. These are semantic (neural) embeddings.`

// Defaults of the OpenAI-compatible provider.
const (
	DefaultBatchSize   = 64
	DefaultConcurrency = 4
	DefaultMaxRetries  = 5
	DefaultOllamaURL   = "http://localhost:11434/v1"
	DefaultOpenAIURL   = "https://api.openai.com/v1"
)

// Sentinel errors callers may branch on (errors.Is).
var (
	ErrAuth        = errors.New("the embedding server refused the API key")
	ErrQuota       = errors.New("the embedding account has no quota left")
	ErrRateLimited = errors.New("the embedding server is rate limiting")
	ErrServer      = errors.New("the embedding server failed")
	ErrBadRequest  = errors.New("the embedding server rejected the request")
	ErrUnreachable = errors.New("the embedding server cannot be reached")
	// ErrNoAPIKey: the server is api.openai.com and OPENAI_API_KEY is not
	// set (found before any request, not after a round of retries).
	ErrNoAPIKey = errors.New("no API key for OpenAI embeddings: OPENAI_API_KEY is not set")
)

// APIError is an error answered by an embedding server, classified by Kind
// (one of the sentinels above). Its message never contains the API key.
type APIError struct {
	Kind    error
	Status  int    // HTTP status; 0 when no response came
	Message string // the server's own message, if it gave one
	Err     error  // the underlying error
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Err != nil && e.Status == 0 {
		b.WriteString(": ")
		b.WriteString(openaicompat.RedactKey(e.Err.Error()))
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

func (e *APIError) Is(target error) bool { return target == e.Kind }
func (e *APIError) Unwrap() error        { return e.Err }

// OpenAIOptions configures an OpenAI-compatible embedder.
type OpenAIOptions struct {
	BaseURL string // ending in /v1 or not (it is added); default DefaultOpenAIURL
	APIKey  string // sent as a Bearer token when not empty
	Model   string
	// Provider names the vector space in Name(): "openai" or "ollama".
	Provider string
	// Dimensions asks models that support it (text-embedding-3-*) for
	// shorter vectors; 0 uses the model's own size.
	Dimensions  int
	BatchSize   int // texts per request (default DefaultBatchSize)
	Concurrency int // requests in flight (default DefaultConcurrency)
	MaxRetries  int // retries of a request on 429/5xx/network errors (default DefaultMaxRetries; < 0: none)
	// MaxInputChars bounds one input; longer texts are split into pieces
	// whose vectors are averaged, with a warning. 0 picks a default for the
	// model (about 3 characters per token of its context).
	MaxInputChars int
	// QueryPrefix and DocumentPrefix are prepended to queries and documents;
	// when both are empty the model's known prefixes are used (nomic
	// "search_query: "/"search_document: ", e5 "query: "/"passage: ").
	QueryPrefix, DocumentPrefix string
	// MaxRetryWait caps one wait between retries, including a server's
	// Retry-After (default 60s).
	MaxRetryWait time.Duration
	// HTTPClient overrides the HTTP client (its transport is wrapped to read
	// Retry-After). Timeouts come from the context, not the client.
	HTTPClient *http.Client
	// Warn, if not nil, receives warnings (e.g. inputs split because too
	// long). It may be called from several goroutines.
	Warn func(msg string)
}

// OpenAI embeds through an OpenAI-compatible /v1/embeddings endpoint with
// go-openai. Safe for concurrent use.
type OpenAI struct {
	opt    OpenAIOptions
	client *openai.Client
	base   string

	mu   sync.Mutex
	dims int // known or learned from the first answer
}

var _ Embedder = (*OpenAI)(nil)

// NewOpenAI returns an embedder for opt.Model at opt.BaseURL.
func NewOpenAI(opt OpenAIOptions) (*OpenAI, error) {
	if strings.TrimSpace(opt.Model) == "" {
		return nil, errors.New("no embedding model given")
	}
	if opt.Provider == "" {
		opt.Provider = "openai"
	}
	if opt.BaseURL == "" {
		opt.BaseURL = DefaultOpenAIURL
	}
	base, err := openaicompat.NormaliseBaseURL(opt.BaseURL, "embedding server")
	if err != nil {
		return nil, err
	}
	if u, _ := url.Parse(base); u != nil && u.Hostname() == "api.openai.com" && opt.APIKey == "" {
		return nil, ErrNoAPIKey
	}
	if opt.Dimensions < 0 {
		return nil, fmt.Errorf("dimensions must not be negative, got %d", opt.Dimensions)
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = DefaultMaxRetries
	}
	if opt.MaxRetryWait <= 0 {
		opt.MaxRetryWait = 60 * time.Second
	}
	if opt.QueryPrefix == "" && opt.DocumentPrefix == "" {
		opt.QueryPrefix, opt.DocumentPrefix = knownPrefixes(opt.Model)
	}
	if opt.MaxInputChars <= 0 {
		opt.MaxInputChars = defaultMaxChars(opt.Provider, opt.Model)
	}
	cfg := openai.DefaultConfig(opt.APIKey)
	cfg.BaseURL = base
	hc := opt.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: openaicompat.DefaultTransport()}
	}
	c2 := *hc
	t := c2.Transport
	if t == nil {
		t = http.DefaultTransport
	}
	c2.Transport = retry.Transport{Base: t}
	cfg.HTTPClient = &c2
	e := &OpenAI{opt: opt, client: openai.NewClientWithConfig(cfg), base: base}
	e.dims = opt.Dimensions
	if e.dims == 0 {
		e.dims = knownDims[opt.Model]
	}
	return e, nil
}

// knownDims are the native sizes of common embedding models, so that
// Dimensions is known before the first request.
var knownDims = map[string]int{
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
	"nomic-embed-text":       768,
	"mxbai-embed-large":      1024,
	"all-minilm":             384,
	"snowflake-arctic-embed": 1024,
	"bge-m3":                 1024,
}

func knownPrefixes(model string) (query, doc string) {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "nomic-embed"):
		return "search_query: ", "search_document: "
	case strings.Contains(m, "e5-") || strings.Contains(m, "/e5") || strings.HasPrefix(m, "e5"):
		return "query: ", "passage: "
	case strings.Contains(m, "mxbai-embed-large"):
		return "Represent this sentence for searching relevant passages: ", ""
	}
	return "", ""
}

func defaultMaxChars(provider, model string) int {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "text-embedding-"):
		return 8191 * 3
	case strings.Contains(m, "minilm"), strings.Contains(m, "bge-small"), strings.Contains(m, "bge-base"),
		strings.Contains(m, "e5-"), strings.Contains(m, "mxbai"):
		return 512 * 3
	case provider == "ollama":
		return 2048 * 3 // Ollama's default context
	}
	return 8192 * 3
}

// Name implements Embedder: "<provider>/<model>", with "@<dims>" when
// shorter vectors were asked for.
func (e *OpenAI) Name() string {
	n := e.opt.Provider + "/" + e.opt.Model
	if e.opt.Dimensions > 0 {
		n += "@" + strconv.Itoa(e.opt.Dimensions)
	}
	return n
}

// Dimensions implements Embedder. For a model of unknown size it is 0 until
// the first answer; call Probe to learn it.
func (e *OpenAI) Dimensions() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dims
}

// Probe returns the vector size, embedding a short text if it is not known.
func (e *OpenAI) Probe(ctx context.Context) (int, error) {
	if d := e.Dimensions(); d > 0 {
		return d, nil
	}
	if _, err := e.EmbedQuery(ctx, "dimension probe"); err != nil {
		return 0, err
	}
	return e.Dimensions(), nil
}

// EmbedQuery implements Embedder.
func (e *OpenAI) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := e.embed(ctx, []string{text}, e.opt.QueryPrefix)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedDocuments implements Embedder: texts go in batches of BatchSize,
// Concurrency requests at a time; the first failure cancels the rest. An
// empty (or all-space) text is not sent and gets a zero vector.
func (e *OpenAI) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, e.opt.DocumentPrefix)
}

func (e *OpenAI) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	// Split over-long texts into pieces; owner[i] is the text of piece i.
	var pieces []string
	var owner []int
	split := 0
	max := e.opt.MaxInputChars - len(prefix)
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue // servers reject empty inputs; such a text gets a zero vector
		}
		ps := splitText(t, max)
		if len(ps) > 1 {
			split++
		}
		for _, p := range ps {
			pieces = append(pieces, prefix+p)
			owner = append(owner, i)
		}
	}
	if split > 0 && e.opt.Warn != nil {
		e.opt.Warn(fmt.Sprintf("%d text(s) longer than %d characters were split into pieces for %s; their vectors are the mean of the pieces'", split, e.opt.MaxInputChars, e.Name()))
	}
	vecs := make([][]float32, len(pieces))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.opt.Concurrency)
	for lo := 0; lo < len(pieces); lo += e.opt.BatchSize {
		hi := min(lo+e.opt.BatchSize, len(pieces))
		g.Go(func() error {
			vs, err := e.request(gctx, pieces[lo:hi])
			if err != nil {
				return err
			}
			copy(vecs[lo:hi], vs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	out := make([][]float32, len(texts))
	if len(vecs) == 0 {
		// Nothing but empty texts: zero vectors of the model's size.
		dim := e.Dimensions()
		if dim == 0 && len(texts) > 0 {
			var err error
			if dim, err = e.Probe(ctx); err != nil {
				return nil, err
			}
		}
		for i := range out {
			out[i] = make([]float32, dim)
		}
		return out, nil
	}
	// Average the pieces of each text and normalise.
	dim := len(vecs[0])
	sums := make([][]float64, len(texts))
	for i, v := range vecs {
		if len(v) != dim {
			return nil, fmt.Errorf("embedding server returned vectors of %d and %d dimensions", dim, len(v))
		}
		s := sums[owner[i]]
		if s == nil {
			s = make([]float64, dim)
			sums[owner[i]] = s
		}
		for j, x := range v {
			s[j] += float64(x)
		}
	}
	for i, s := range sums {
		if s == nil {
			s = make([]float64, dim) // an empty text
		}
		out[i] = normalise(s)
	}
	e.mu.Lock()
	if e.dims == 0 {
		e.dims = dim
	}
	want := e.dims
	e.mu.Unlock()
	if dim != want {
		return nil, fmt.Errorf("%s returned %d-dimension vectors, expected %d", e.Name(), dim, want)
	}
	return out, nil
}

// splitText cuts t into pieces of at most max bytes, at whitespace where
// possible and never inside a UTF-8 sequence.
func splitText(t string, max int) []string {
	if max <= 0 || len(t) <= max {
		return []string{t}
	}
	var out []string
	for len(t) > max {
		cut := strings.LastIndexAny(t[:max], " \n\t")
		if cut < max/2 {
			cut = max
			for cut > 0 && t[cut]&0xC0 == 0x80 {
				cut--
			}
		}
		out = append(out, strings.TrimSpace(t[:cut]))
		t = strings.TrimSpace(t[cut:])
	}
	if t != "" {
		out = append(out, t)
	}
	return out
}

// request embeds one batch, retrying rate limits, server errors and network
// failures with backoff that honours Retry-After.
func (e *OpenAI) request(ctx context.Context, batch []string) ([][]float32, error) {
	req := openai.EmbeddingRequestStrings{
		Input:      batch,
		Model:      openai.EmbeddingModel(e.opt.Model),
		Dimensions: e.opt.Dimensions,
	}
	for attempt := 0; ; attempt++ {
		hctx, hint := retry.WithHint(ctx)
		resp, err := e.client.CreateEmbeddings(hctx, req)
		if err == nil {
			return vectorsOf(resp, len(batch))
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		ae := classify(err, e.opt.APIKey)
		// nothing listening at the address: one more try, not a backoff series
		refused := errors.Is(err, syscall.ECONNREFUSED) && attempt >= 1
		if !retryable(ae) || attempt >= e.opt.MaxRetries || refused {
			if retryable(ae) && attempt > 0 {
				ae.Message = strings.TrimSpace(ae.Message + fmt.Sprintf(" (gave up after %d attempts)", attempt+1))
			}
			return nil, ae
		}
		if err := retry.Sleep(ctx, retry.Backoff(attempt, 500*time.Millisecond, e.opt.MaxRetryWait, hint)); err != nil {
			return nil, err
		}
	}
}

func vectorsOf(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("embedding server returned %d vectors for %d inputs", len(resp.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range resp.Data {
		idx := d.Index
		if idx < 0 || idx >= n || out[idx] != nil {
			idx = i // servers that leave index out send 0 for every item
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding server returned an empty vector for input %d", idx)
		}
		out[idx] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("embedding server returned no vector for input %d", i)
		}
	}
	return out, nil
}

// classify maps go-openai's errors to an APIError. go-openai gives
// *openai.APIError when the body is OpenAI's {"error": {...}} and
// *openai.RequestError for other bodies (e.g. Ollama's {"error": "..."}).
// key, the API key sent, is scrubbed from the server's message.
func classify(err error, key string) *APIError {
	var status int
	var msg, code, typ string
	var api *openai.APIError
	var rq *openai.RequestError
	// RequestError first: it may wrap an empty APIError.
	switch {
	case errors.As(err, &rq):
		status = rq.HTTPStatusCode
		msg = bodyMessage(rq.Body)
		if msg == "" && rq.Err != nil && status == 0 {
			msg = rq.Err.Error()
		}
	case errors.As(err, &api):
		status, msg, typ = api.HTTPStatusCode, api.Message, api.Type
		if s, ok := api.Code.(string); ok {
			code = s
		}
	default:
		return &APIError{Kind: ErrUnreachable, Err: err}
	}
	msg = openaicompat.RedactKey(msg, key)
	kind := ErrBadRequest
	switch {
	case code == "insufficient_quota" || typ == "insufficient_quota":
		kind = ErrQuota
	case status == 401 || status == 403:
		kind = ErrAuth
	case status == 429:
		kind = ErrRateLimited
	case status >= 500 || status == 408:
		kind = ErrServer
	case status == 0:
		kind = ErrUnreachable
	}
	return &APIError{Kind: kind, Status: status, Message: clipMsg(msg, 300), Err: err}
}

// bodyMessage extracts a message from an error body that is not OpenAI's
// shape: Ollama's {"error": "..."}, {"message": "..."}, or plain text.
func bodyMessage(body []byte) string {
	var v struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
		Detail  string `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		switch x := v.Error.(type) {
		case string:
			return x
		case map[string]any:
			if m, ok := x["message"].(string); ok {
				return m
			}
		}
		if v.Message != "" {
			return v.Message
		}
		if v.Detail != "" {
			return v.Detail
		}
	}
	return strings.TrimSpace(string(body))
}

func clipMsg(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}

func retryable(e *APIError) bool {
	return e.Kind == ErrRateLimited || e.Kind == ErrServer || e.Kind == ErrUnreachable
}
