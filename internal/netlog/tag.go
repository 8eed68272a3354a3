package netlog

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"syscall"
)

// Tokens are what a model server says one request used.
type Tokens struct {
	Model   string
	In, Out int
}

// TokenReader reads the tokens a request used from its response: head is
// the first bytes of the body (at most 1 KiB), tail the last (at most
// 8 KiB), which hold the usage of an OpenAI-compatible reply, streamed or
// not. It reports false when they do not say.
type TokenReader func(head, tail []byte) (Tokens, bool)

type tagKey struct{}

type tag struct {
	purpose string
	tokens  TokenReader
}

func tagOf(ctx context.Context) tag {
	t, _ := ctx.Value(tagKey{}).(tag)
	return t
}

// WithPurpose returns ctx whose requests are recorded with purpose: a few
// words a person reads in papers network ("arxiv api", "arxiv pdf",
// "crossref"). The innermost purpose wins.
func WithPurpose(ctx context.Context, purpose string) context.Context {
	t := tagOf(ctx)
	t.purpose = purpose
	return context.WithValue(ctx, tagKey{}, t)
}

// Tag returns a RoundTripper that marks every request through it with
// purpose (unless its context already has one) and reads the tokens of its
// response with tokens (nil: none), then sends it with base. A client wraps
// the Transport it is given in it: the model and embedding clients tag
// their requests so without their callers knowing.
func Tag(base http.RoundTripper, purpose string, tokens TokenReader) http.RoundTripper {
	return tagger{base: base, purpose: purpose, tokens: tokens}
}

type tagger struct {
	base    http.RoundTripper
	purpose string
	tokens  TokenReader
}

func (g tagger) RoundTrip(req *http.Request) (*http.Response, error) {
	t := tagOf(req.Context())
	if t.purpose == "" {
		t.purpose = g.purpose
	}
	if t.tokens == nil {
		t.tokens = g.tokens
	}
	return g.base.RoundTrip(req.WithContext(context.WithValue(req.Context(), tagKey{}, t)))
}

// kindOf names a failed request's cause in a word or two, for the ledger:
// never the error's text, which quotes the URL.
func kindOf(ctx context.Context, err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, ErrOffline):
		return "offline"
	case errors.Is(err, context.Canceled) || ctx.Err() == context.Canceled:
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.As(err, &dns):
		return "unknown host"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "failed"
}
