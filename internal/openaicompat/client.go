package openaicompat

import (
	"net/http"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/retry"
)

// DefaultOpenAIURL is OpenAI's API; DefaultOllamaURL is Ollama's
// OpenAI-compatible endpoint on this machine.
const (
	DefaultOpenAIURL = "https://api.openai.com/v1"
	DefaultOllamaURL = "http://localhost:11434/v1"
)

// Config says how to reach one OpenAI-compatible server.
type Config struct {
	// BaseURL is the server's address, with or without /v1 (see
	// NormaliseBaseURL); "" is DefaultOpenAIURL.
	BaseURL string
	// APIKey is sent as a bearer token when not empty. It is scrubbed from
	// everything the server sends back (see Client.Scrub).
	APIKey string
	// Service is what the server is asked for (Chat, Embeddings): it names
	// the server in messages and chooses the hints of its errors.
	Service Service
	// HTTPClient sends the requests: the run's one client, which records
	// them in the network ledger and refuses them offline (internal/netlog);
	// nil uses a client of its own that records nothing. Its transport is
	// wrapped to tag the requests for the ledger (purpose, tokens), to read
	// Retry-After and to cap replies at MaxBody.
	HTTPClient *http.Client
	// MaxBody caps the bytes read of one reply, error bodies and streams
	// included (0: DefaultMaxBody). A longer reply fails with *TooLargeError.
	MaxBody int64
}

// DefaultMaxBody caps one reply when Config.MaxBody is 0.
const DefaultMaxBody = 64 << 20

// Client is a go-openai client for one server, with what messages about it
// need. Safe for concurrent use.
type Client struct {
	API      *openai.Client
	URL      string  // the normalised base URL without credentials, for messages
	Service  Service // Config.Service
	IsOpenAI bool    // the server is api.openai.com
	key      string
}

// New builds the client cfg describes. It makes no request; it fails with
// an *Error of Kind NoAPIKey when the server is api.openai.com and
// cfg.APIKey is empty, and with a plain error naming the server for a
// malformed URL.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIURL
	}
	base, err := NormaliseBaseURL(cfg.BaseURL, cfg.Service.Server())
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	isOpenAI := u.Hostname() == "api.openai.com"
	if isOpenAI && cfg.APIKey == "" {
		return nil, &Error{Kind: NoAPIKey, Service: cfg.Service, URL: RedactURL(base)}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = netlog.New(netlog.Options{}).Client()
	}
	c := *hc
	t := c.Transport
	if t == nil {
		t = netlog.New(netlog.Options{})
	}
	t = netlog.Tag(t, purposeOf(cfg.Service), ReadTokens)
	max := cfg.MaxBody
	if max <= 0 {
		max = DefaultMaxBody
	}
	c.Transport = retry.Transport{Base: capTransport{base: t, max: max}}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	oc.HTTPClient = &c
	return &Client{API: openai.NewClientWithConfig(oc), URL: RedactURL(base), Service: cfg.Service, IsOpenAI: isOpenAI, key: cfg.APIKey}, nil
}

// Scrub removes the client's API key from text the server sent back (an
// answer may quote it): see ScrubKey.
func (c *Client) Scrub(s string) string { return ScrubKey(s, c.key) }

// Key returns the API key for a Scrubber; it is never to be printed.
func (c *Client) Key() string { return c.key }

// Classify is the package's Classify with this client's key scrubbed from
// the message, its service and URL set.
func (c *Client) Classify(err error) *Error {
	e := Classify(err, c.key)
	if e.Service == 0 {
		e.Service, e.URL = c.Service, c.URL
	}
	return e
}

// Fail is an error of this client's server of kind k, with what went
// wrong (msg, made safe to print) and the underlying error, if any.
func (c *Client) Fail(k Kind, msg string, err error) *Error {
	return &Error{Kind: k, Service: c.Service, URL: c.URL, Message: c.Scrub(msg), Err: err}
}

// OllamaURL is the OpenAI-compatible base URL of the Ollama at host, as
// OLLAMA_HOST gives it ("host:port", "http://host:port" or ""), for the
// ollama:MODEL shorthand: "" is DefaultOllamaURL.
func OllamaURL(host string) string {
	h := strings.TrimSpace(host)
	if h == "" {
		return DefaultOllamaURL
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	return h
}
