package embed

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Options configures the embedder that Parse builds. cmd fills it from
// flags and the environment (OPENAI_BASE_URL, OPENAI_API_KEY); this package
// reads no environment itself.
type Options struct {
	BaseURL    string // for openai:MODEL; default DefaultOpenAIURL
	APIKey     string // for openai:MODEL only (never sent to Ollama)
	OllamaURL  string // for ollama:MODEL; default DefaultOllamaURL
	Dimensions int    // --dimensions: 0 = the model's own size
	// KnownDimensions is the vector size the library recorded for this
	// embedder (its manifest), for models whose size Parse cannot know.
	KnownDimensions int
	// Timeout bounds one request to an openai:/ollama: server (0:
	// DefaultTimeout).
	Timeout       time.Duration
	BatchSize     int
	Concurrency   int
	MaxInputChars int
	Warn          func(string)
	// HTTPClient sends the requests of openai:/ollama: embedders (nil: a
	// client of their own); the library session gives its one client.
	HTTPClient *http.Client
}

// Specs documents the embedder specs Parse accepts, for --help.
const Specs = `  local                         offline default (see below)
  openai:MODEL                  e.g. openai:text-embedding-3-small
  ollama:MODEL                  e.g. ollama:nomic-embed-text`

// Help is the text --help shows about embedders.
const Help = "Embedders (--embedder):\n" + Specs + "\n\n" + LocalDescription + "\n\n" + OpenAIDescription

// Parse builds an embedder from a spec: "local" (or ""), "openai:MODEL" or
// "ollama:MODEL".
func Parse(spec string, opt Options) (Embedder, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "local" {
		if opt.Dimensions != 0 && opt.Dimensions != defaultLocal.dim {
			return nil, fmt.Errorf("the local embedder has %d dimensions; --dimensions is for openai:/ollama: models", defaultLocal.dim)
		}
		return NewLocal(), nil
	}
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("unknown embedder %q: want local, openai:MODEL or ollama:MODEL", spec)
	}
	o := OpenAIOptions{
		Model:           model,
		Provider:        provider,
		APIKey:          opt.APIKey,
		Dimensions:      opt.Dimensions,
		BatchSize:       opt.BatchSize,
		Concurrency:     opt.Concurrency,
		MaxInputChars:   opt.MaxInputChars,
		Warn:            opt.Warn,
		Timeout:         opt.Timeout,
		KnownDimensions: opt.KnownDimensions,
		HTTPClient:      opt.HTTPClient,
	}
	switch provider {
	case "openai":
		o.BaseURL = opt.BaseURL
	case "ollama":
		// Ollama needs no key; never send OPENAI_API_KEY to another server.
		o.APIKey = ""
		o.BaseURL = opt.OllamaURL
		if o.BaseURL == "" {
			o.BaseURL = DefaultOllamaURL
		}
	default:
		return nil, fmt.Errorf("unknown embedder provider %q in %q: want local, openai:MODEL or ollama:MODEL", provider, spec)
	}
	return NewOpenAI(o)
}

// Dimensions returns e's vector size, asking the server once (with a short
// probe text) when the model's size is not known in advance.
func Dimensions(ctx context.Context, e Embedder) (int, error) {
	if d := e.Dimensions(); d > 0 {
		return d, nil
	}
	if p, ok := e.(interface {
		Probe(context.Context) (int, error)
	}); ok {
		return p.Probe(ctx)
	}
	v, err := e.EmbedQuery(ctx, "dimension probe")
	if err != nil {
		return 0, err
	}
	return len(v), nil
}

// SpecOf returns the spec (for Parse) and the --dimensions option that
// rebuild the embedder whose Name is name, e.g. "openai/text-embedding-3-small@256"
// gives ("openai:text-embedding-3-small", 256). It lets commands that read
// a library use the embedder its vectors were made with.
func SpecOf(name string) (spec string, dims int, err error) {
	if strings.HasPrefix(name, "local/") {
		if name != NewLocal().Name() {
			return "", 0, fmt.Errorf("the library's vectors were made by %q, which this version of papers does not have", name)
		}
		return "local", 0, nil
	}
	provider, model, ok := strings.Cut(name, "/")
	if !ok || model == "" || (provider != "openai" && provider != "ollama") {
		return "", 0, fmt.Errorf("unknown embedder %q", name)
	}
	if i := strings.LastIndexByte(model, '@'); i > 0 {
		if _, err := fmt.Sscanf(model[i+1:], "%d", &dims); err != nil || dims <= 0 {
			return "", 0, fmt.Errorf("unknown embedder %q", name)
		}
		model = model[:i]
	}
	return provider + ":" + model, dims, nil
}
