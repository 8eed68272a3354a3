package openaicompat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
)

// Kind names a class of failure of an OpenAI-compatible server. It is one
// sentinel set for the language model (package llm) and the embedders
// (package embed), which re-export the kinds as their Err* values: a Kind
// is an error, and errors.Is(err, RateLimited) holds for every *Error of
// that kind. String gives its name ("rate limited"), never a number.
type Kind int

// The kinds of Error.
const (
	// NoAPIKey: the server is api.openai.com and no key was given (found
	// before any request).
	NoAPIKey Kind = iota + 1
	// Unreachable: no connection (DNS failure, connection refused).
	Unreachable
	// Timeout: a deadline passed (no headers in time, or a Watchdog fired).
	Timeout
	// Auth: the key was refused (401, 403 about the key, invalid_api_key).
	Auth
	// Quota: the account has no credit (insufficient_quota).
	Quota
	// RateLimited: 429 after every retry.
	RateLimited
	// Server: 5xx or 408, or the connection broke before a reply.
	Server
	// ModelNotFound: the server does not know the model.
	ModelNotFound
	// ContextTooLong: the input exceeds the model's context.
	ContextTooLong
	// TooLarge: the reply exceeded a cap (*TooLargeError).
	TooLarge
	// BadReply: a reply that is not what the API returns (unreadable JSON,
	// NaN or infinite numbers, vectors of the wrong size, a web page).
	BadReply
	// BadRequest: any other refusal (Message says why).
	BadRequest
	// StreamBroken: the connection broke while a reply was streaming; the
	// text already shown is not repeated, so nothing is retried.
	StreamBroken
	// EmptyReply: the server answered with no choice or no text.
	EmptyReply
)

var kindNames = [...]string{
	NoAPIKey: "no API key", Unreachable: "unreachable", Timeout: "timeout", Auth: "key refused",
	Quota: "no quota", RateLimited: "rate limited", Server: "server failed", ModelNotFound: "model not found",
	ContextTooLong: "context too long", TooLarge: "reply too large", BadReply: "bad reply",
	BadRequest: "bad request", StreamBroken: "stream broken", EmptyReply: "empty reply",
}

// String is the kind's name.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown failure"
}

// Error makes a Kind a sentinel error.
func (k Kind) Error() string { return k.String() }

// Service is what a server is asked for; it names the server in messages
// and chooses the advice of hints.
type Service int

// The services.
const (
	Chat       Service = iota + 1 // chat completions: the model of answers and digests
	Embeddings                    // embeddings: the vectors of chunks and queries
)

// Server names the server in messages: "model server", "embedding server".
func (s Service) Server() string {
	if s == Embeddings {
		return "embedding server"
	}
	return "model server"
}

// Error is a classified failure of one request: what papers prints about
// an OpenAI-compatible server, with the hint naming the fix (Hint), made
// here so that the command line and the MCP server give the same advice.
// Message is the server's own message (or, for Timeout, TooLarge and
// BadReply, what went wrong) made safe to print: the key and anything like
// a bearer token removed, control characters made inert, one line, at most
// 300 bytes. No field holds the API key.
type Error struct {
	Kind    Kind
	Service Service
	URL     string // the server's base URL, without credentials
	Model   string // the model asked for, when known
	Status  int    // HTTP status; 0 when no response came
	Message string // the server's message, if it gave one
	Code    string // OpenAI's error code, e.g. "context_length_exceeded"
	Param   string // OpenAI's param, e.g. "temperature"
	Err     error  // the underlying error
}

// Error is the failure for people: what happened, where, and the server's
// own words.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.what())
	switch {
	case e.Kind == ModelNotFound:
		fmt.Fprintf(&b, ": %q", e.Model)
		if e.URL != "" {
			b.WriteString(" at " + e.URL)
		}
	case e.URL != "" && e.Kind != NoAPIKey && !strings.Contains(e.Message, e.URL):
		b.WriteString(" at " + e.URL)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else if e.Err != nil && e.Kind != ModelNotFound {
		b.WriteString(": " + SafeMessage(e.Err.Error(), ""))
	}
	return b.String()
}

// what says what happened, naming the server.
func (e *Error) what() string {
	server := e.Service.Server()
	switch e.Kind {
	case NoAPIKey:
		if e.Service == Embeddings {
			return "no API key for OpenAI embeddings: OPENAI_API_KEY is not set"
		}
		return "no API key for OpenAI: OPENAI_API_KEY is not set"
	case Unreachable:
		return "cannot reach the " + server
	case Timeout:
		return "the " + server + " did not answer in time"
	case Auth:
		return "the " + server + " rejected the API key"
	case Quota:
		return "the " + strings.TrimSuffix(server, " server") + " account has no quota left"
	case RateLimited:
		return "the " + server + " is rate limiting requests"
	case Server:
		return "the " + server + " failed"
	case ModelNotFound:
		return "model not found"
	case ContextTooLong:
		if e.Service == Embeddings {
			return "the text is longer than the embedding model's context"
		}
		return "the prompt is longer than the model's context window"
	case TooLarge:
		return "the " + server + "'s reply exceeded the size limit"
	case BadReply:
		return "the " + server + "'s reply is not OpenAI-compatible"
	case StreamBroken:
		return "the model's reply was cut off"
	case EmptyReply:
		return "the model returned an empty reply"
	}
	return "the " + server + " refused the request"
}

// Is matches the error's Kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

func (e *Error) Unwrap() error { return e.Err }

// Hint names the fix, as papers prints it after the error ("" when there
// is none to give). Commands are spelled as the command line and papers
// mcp are configured (flags and environment variables).
func (e *Error) Hint() string {
	if e.Service == Embeddings {
		return e.embedHint()
	}
	switch e.Kind {
	case NoAPIKey:
		return "export OPENAI_API_KEY=..., or use a local model with --llm ollama:MODEL (ollama serve), or answer offline with --extractive"
	case Auth:
		return "check OPENAI_API_KEY (for a local server, check OPENAI_BASE_URL)"
	case ModelNotFound:
		return fmt.Sprintf("list the server's models with `curl %s/models` (Ollama: `ollama list`, then `ollama pull MODEL`) and pass one with --llm", e.URL)
	case ContextTooLong:
		return "use a model with a longer context, or fewer passages with --k"
	case Unreachable:
		return "start the server (Ollama: `ollama serve`) or fix OPENAI_BASE_URL / OLLAMA_HOST; --extractive answers without a model"
	case Quota:
		return "add credit to the account, or use a local model with --llm ollama:MODEL"
	case RateLimited:
		return "wait a minute and ask again, or use another model"
	case StreamBroken:
		return "the answer above is incomplete; ask again"
	case Timeout:
		return fmt.Sprintf("the server may still be loading the model: try again, raise --first-token-timeout / --idle-timeout (PAPERS_FIRST_TOKEN_TIMEOUT, PAPERS_IDLE_TIMEOUT), or check it with `curl %s/models`", e.URL)
	case TooLarge:
		return "the model did not stop; ask again, or use another model"
	case EmptyReply:
		return "ask again, or use another model (a reasoning model may spend its whole output limit thinking)"
	case BadReply:
		return "check OPENAI_BASE_URL: it should be the server's OpenAI-compatible /v1 address"
	case Server:
		return "the model server failed; try again later or use another model"
	case BadRequest:
		if e.Status == http.StatusNotFound {
			return fmt.Sprintf("check OPENAI_BASE_URL: the server has no chat completions endpoint at %s/chat/completions", e.URL)
		}
	}
	return ""
}

// ToolHint is Hint for an assistant calling papers' MCP tools (hint.ToolOf
// reads it): the same fix, with the tools' arguments where Hint names
// flags, and what only the user can change (the server's configuration)
// said to be the user's.
func (e *Error) ToolHint() string {
	if e.Service == Embeddings {
		switch e.Kind {
		case Quota, RateLimited, Server:
			return "the embedding server cannot embed now: search with mode \"bm25\" works without it; the user can re-embed the library locally in a terminal (papers reindex --embedder local)"
		case BadRequest, ModelNotFound, ContextTooLong:
			return "the user checks the embedding model's name (for Ollama: ollama pull MODEL); search with mode \"bm25\" works without it"
		}
		if h := e.embedHint(); h != "" {
			return "the user fixes the embedding server: " + h + "; search with mode \"bm25\" works without it"
		}
		return ""
	}
	const extractive = `call ask with mode "extractive" (digest with extractive true), which needs no model`
	switch e.Kind {
	case NoAPIKey, Auth, Quota, ModelNotFound, Unreachable, BadReply:
		return extractive + "; the user fixes the model in papers mcp's configuration (OPENAI_API_KEY, OPENAI_BASE_URL, OLLAMA_HOST, --llm)"
	case ContextTooLong:
		return "call ask again with a smaller k"
	case Timeout:
		return "the server may still be loading the model: try again, or " + extractive
	case BadRequest:
		if e.Status == http.StatusNotFound {
			return extractive + "; the user fixes OPENAI_BASE_URL in papers mcp's configuration"
		}
	}
	return e.Hint()
}

// embedHint is Hint for an embedding server.
func (e *Error) embedHint() string {
	switch e.Kind {
	case NoAPIKey:
		return "export OPENAI_API_KEY, or set OPENAI_BASE_URL to a local server (Ollama, vLLM, llama.cpp, LM Studio)"
	case Auth:
		return "set OPENAI_API_KEY to a valid key for OPENAI_BASE_URL (the key is read from the environment only)"
	case Quota:
		return "add credit to the account, or use a local embedder: --embedder ollama:nomic-embed-text or --embedder local"
	case Unreachable:
		return "check OPENAI_BASE_URL (or OLLAMA_HOST for ollama:, and that `ollama serve` is running)"
	case Timeout:
		return "check the server is up and not overloaded, or allow it longer with PAPERS_EMBED_TIMEOUT (e.g. 5m)"
	case BadReply, TooLarge:
		return "the server or model is broken: try another model or version, or check OPENAI_BASE_URL is an embeddings endpoint"
	case BadRequest, ModelNotFound, ContextTooLong:
		return "check the model name (for Ollama: `ollama pull MODEL`) and --dimensions"
	case RateLimited, Server:
		return "the embedding server is overloaded or failing: try again later, or use --embedder local"
	}
	return ""
}

// Retryable reports whether trying again may succeed: rate limits and
// server failures. Callers add their own (the embedder retries a refused
// connection once, a timeout once).
func (e *Error) Retryable() bool { return e.Kind == RateLimited || e.Kind == Server }

// Classify turns a go-openai or transport error into an *Error. key, the API
// key sent, is scrubbed from the message. go-openai returns *openai.APIError
// for OpenAI's JSON error body and *openai.RequestError for anything else
// (Ollama's {"error": "..."}, plain text), which may wrap an empty APIError:
// RequestError is checked first.
func Classify(err error, key string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	e = &Error{Err: err, Kind: BadRequest}
	var typ string
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	var tooLarge *TooLargeError
	var timeout *TimeoutError
	switch {
	case errors.As(err, &tooLarge):
		e.Kind, e.Message = TooLarge, tooLarge.Error()
		return e
	case errors.As(err, &timeout):
		e.Kind, e.Message = Timeout, timeout.Error()
		return e
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		e.Message = BodyMessage(reqErr.Body)
		var inner *openai.APIError
		if e.Message == "" && reqErr.Err != nil && !errors.As(reqErr.Err, &inner) {
			e.Message = reqErr.Err.Error()
		}
	case errors.As(err, &apiErr):
		e.Status = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
		if apiErr.Code != nil {
			e.Code = fmt.Sprint(apiErr.Code)
		}
		typ = apiErr.Type
		if apiErr.Param != nil {
			e.Param = *apiErr.Param
		}
	default:
		e.Kind = transportKind(err)
		if e.Kind == BadReply {
			e.Message = SafeMessage(err.Error(), key) // what is wrong with the reply
		}
		return e
	}
	e.Message = SafeMessage(e.Message, key)
	msg := strings.ToLower(e.Message)
	switch {
	case e.Code == "context_length_exceeded" || contextTooLong.MatchString(msg):
		e.Kind = ContextTooLong
	case e.Code == "insufficient_quota" || typ == "insufficient_quota":
		e.Kind = Quota
	case e.Status == http.StatusTooManyRequests:
		e.Kind = RateLimited
	case e.Status == http.StatusUnauthorized || e.Code == "invalid_api_key" ||
		(e.Status == http.StatusForbidden && strings.Contains(msg, "key")):
		e.Kind = Auth
	case e.Code == "model_not_found" || modelNotFound.MatchString(msg):
		e.Kind = ModelNotFound
	case e.Status >= 500 || e.Status == http.StatusRequestTimeout:
		e.Kind = Server
	case e.Status == 0:
		e.Kind = Server // an error event in the middle of a stream
	default:
		e.Kind = BadRequest
	}
	return e
}

// transportKind classifies an error that came with no HTTP error status.
func transportKind(err error) Kind {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || (errors.As(err, &opErr) && opErr.Op == "dial") {
		return Unreachable
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Timeout
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		return BadReply
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return Server // the body ended mid-reply
	}
	// A dropped connection, a reset: the server failed mid-request.
	return Server
}

var (
	contextTooLong = lazyre.New(`context length|context window|context size|maximum context|too many tokens|prompt is too long|exceeds? the (available )?context|input is too long|tokens exceed|reduce the length|input length exceeds`)
	modelNotFound  = lazyre.New(`model\b.*\b(not found|does not exist|not exist|unknown|no such)|(unknown|no such|invalid) model|model_not_found|pull the model|try pulling`)
)

// BodyMessage extracts a readable message from an error body that go-openai
// could not parse as OpenAI's: Ollama's {"error": "..."}, {"error":
// {"message": ...}}, {"message": ...}, {"detail": ...} (a string or
// FastAPI's list), or plain text with its white space collapsed.
func BodyMessage(body []byte) string {
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

// SafeMessage makes text a server sent fit for an error message: the key
// (and anything like a key or bearer token) removed, control characters
// and bidirectional overrides made inert, on one line, clipped to 300 bytes.
func SafeMessage(s, key string) string {
	return Clip(safetext.OneLine(RedactKey(s, key)), 300)
}

// Clip shortens s to at most n bytes (not cutting a UTF-8 sequence),
// marking the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
