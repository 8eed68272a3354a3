package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
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
	DefaultOllamaURL   = openaicompat.DefaultOllamaURL
	DefaultOpenAIURL   = openaicompat.DefaultOpenAIURL
	// DefaultTimeout bounds one embedding request: a server that accepts
	// and never answers fails after it (retried once), not after hours.
	DefaultTimeout = time.Minute
	// MaxDimensions is the largest vector accepted: the widest embedding
	// models in use have 4,096; a server sending more is broken or hostile
	// (a 640,000-dimension reply would take 1.5 GB for 32 chunks).
	MaxDimensions = 16384
)

// Sentinel errors callers may branch on (errors.Is): the kinds of
// *openaicompat.Error, the one error model of the model and embedding
// clients (the error names the server, its status and message, and its
// Hint the fix).
var (
	ErrAuth        error = openaicompat.Auth
	ErrQuota       error = openaicompat.Quota
	ErrRateLimited error = openaicompat.RateLimited
	ErrServer      error = openaicompat.Server
	// ErrBadRequest: the server refused the request (a model it does not
	// know, an input too long, a bad --dimensions are their own kinds:
	// openaicompat.ModelNotFound, ContextTooLong).
	ErrBadRequest error = openaicompat.BadRequest
	// ErrModelNotFound: the server does not know the model.
	ErrModelNotFound error = openaicompat.ModelNotFound
	ErrUnreachable   error = openaicompat.Unreachable
	// ErrTimeout: the server accepted the request but did not answer within
	// OpenAIOptions.Timeout (after one retry).
	ErrTimeout error = openaicompat.Timeout
	// ErrBadReply: the reply is not usable vectors: unreadable JSON, NaN or
	// infinite values, vectors of the wrong count, size or of absurd
	// dimensions.
	ErrBadReply error = openaicompat.BadReply
	// ErrTooLarge: the reply exceeded its cap (a server sending without end).
	ErrTooLarge error = openaicompat.TooLarge
	// ErrNoAPIKey: the server is api.openai.com and OPENAI_API_KEY is not
	// set (found before any request, not after a round of retries).
	ErrNoAPIKey error = openaicompat.NoAPIKey
)

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
	// Retry-After and cap replies).
	HTTPClient *http.Client
	// Timeout bounds one request (default DefaultTimeout; negative: no
	// limit); a request that times out is tried once more.
	Timeout time.Duration
	// KnownDimensions is the vector size recorded for this model (the
	// library's manifest), so that Dimensions is right before any request
	// for models whose size is not in their name; 0 learns it from the
	// first reply.
	KnownDimensions int
	// Warn, if not nil, receives warnings (e.g. inputs split because too
	// long). It may be called from several goroutines.
	Warn func(msg string)
}

// OpenAI embeds through an OpenAI-compatible /v1/embeddings endpoint with
// go-openai. Safe for concurrent use.
type OpenAI struct {
	opt OpenAIOptions
	c   *openaicompat.Client

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
	if opt.Dimensions < 0 || opt.Dimensions > MaxDimensions {
		return nil, fmt.Errorf("dimensions must be between 1 and %d, got %d", MaxDimensions, opt.Dimensions)
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
	if opt.Timeout == 0 {
		opt.Timeout = DefaultTimeout
	}
	// A reply holds BatchSize vectors of at most MaxDimensions numbers of
	// at most ~25 bytes of JSON each: a longer one is refused unread.
	c, err := openaicompat.New(openaicompat.Config{BaseURL: opt.BaseURL, APIKey: opt.APIKey, Service: openaicompat.Embeddings,
		HTTPClient: opt.HTTPClient, MaxBody: int64(opt.BatchSize)*MaxDimensions*25 + 1<<20})
	if err != nil {
		return nil, err
	}
	e := &OpenAI{opt: opt, c: c}
	e.dims = opt.Dimensions
	if e.dims == 0 {
		e.dims = knownDims[opt.Model]
	}
	if e.dims == 0 && opt.KnownDimensions > 0 && opt.KnownDimensions <= MaxDimensions {
		e.dims = opt.KnownDimensions
	}
	return e, nil
}

// URL returns the server's base URL without credentials.
func (e *OpenAI) URL() string { return e.c.URL }

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
			return nil, e.badReply(fmt.Sprintf("vectors of %d and %d dimensions in one reply", dim, len(v)))
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
		return nil, e.badReply(fmt.Sprintf("%s returned %d-dimension vectors, expected %d", e.Name(), dim, want))
	}
	return out, nil
}

func (e *OpenAI) badReply(msg string) *openaicompat.Error {
	return e.fail(openaicompat.BadReply, msg, nil)
}

// fail is an error of kind k about the model.
func (e *OpenAI) fail(k openaicompat.Kind, msg string, err error) *openaicompat.Error {
	f := e.c.Fail(k, msg, err)
	f.Model = e.opt.Model
	return f
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
// failures with backoff that honours Retry-After; a timeout and a refused
// connection are tried once more, not a backoff series.
func (e *OpenAI) request(ctx context.Context, batch []string) ([][]float32, error) {
	req := openai.EmbeddingRequestStrings{
		Input:      batch,
		Model:      openai.EmbeddingModel(e.opt.Model),
		Dimensions: e.opt.Dimensions,
	}
	timeouts := 0
	for attempt := 0; ; attempt++ {
		hctx, hint := retry.WithHint(ctx)
		wctx, wd := openaicompat.Watch(hctx, e.opt.Timeout, &openaicompat.TimeoutError{What: "embedding server", URL: e.c.URL, Phase: "reply"})
		resp, err := e.c.API.CreateEmbeddings(wctx, req)
		err = wd.Err(err)
		wd.Stop()
		if err == nil {
			return e.vectorsOf(resp, len(batch))
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		ae := e.c.Classify(err)
		ae.Model = e.opt.Model
		// A refused connection is worth one more try (a server starting up).
		again := ae.Retryable() || ae.Kind == openaicompat.Unreachable
		switch {
		case ae.Kind == openaicompat.Timeout:
			timeouts++
			again = timeouts < 2
		case errors.Is(err, syscall.ECONNREFUSED) && attempt >= 1:
			again = false // nothing listening at the address
		}
		if !again || attempt >= e.opt.MaxRetries {
			if attempt > 0 && (again || ae.Kind == openaicompat.Timeout) {
				ae.Message = strings.TrimSpace(ae.Message + fmt.Sprintf(" (gave up after %d attempts)", attempt+1))
			}
			return nil, ae
		}
		if err := retry.Sleep(ctx, retry.Backoff(attempt, 500*time.Millisecond, e.opt.MaxRetryWait, hint)); err != nil {
			return nil, err
		}
	}
}

func (e *OpenAI) vectorsOf(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, e.badReply(fmt.Sprintf("%d vectors for %d inputs", len(resp.Data), n))
	}
	out := make([][]float32, n)
	for i, d := range resp.Data {
		idx := d.Index
		if idx < 0 || idx >= n || out[idx] != nil {
			idx = i // servers that leave index out send 0 for every item
		}
		switch {
		case len(d.Embedding) == 0:
			return nil, e.badReply(fmt.Sprintf("an empty vector for input %d", idx))
		case len(d.Embedding) > MaxDimensions:
			return nil, e.badReply(fmt.Sprintf("a vector of %d dimensions for input %d (at most %d are accepted)", len(d.Embedding), idx, MaxDimensions))
		}
		for j, x := range d.Embedding {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, e.badReply(fmt.Sprintf("a vector with %v at position %d for input %d: the model is broken (for Ollama, try another model or version)", f, j, idx))
			}
		}
		out[idx] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, e.badReply(fmt.Sprintf("no vector for input %d", i))
		}
	}
	return out, nil
}
