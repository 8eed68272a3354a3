package openaicompat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/papers-cli/papers/internal/safetext"
)

// Kind classifies a failed request. The embedder and the language-model
// adapter map kinds to their own sentinel errors; which kinds are retried is
// theirs to decide.
type Kind int

// Kinds of Error.
const (
	// Unreachable: no connection (DNS failure, connection refused).
	Unreachable Kind = iota + 1
	// Timeout: a deadline passed (no headers in time, or a Watchdog fired).
	Timeout
	// Auth: the key was refused (401, 403 about the key, invalid_api_key).
	Auth
	// Quota: the account has no credit (insufficient_quota).
	Quota
	// RateLimited: 429.
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
	// NaN or infinite numbers, a web page).
	BadReply
	// BadRequest: any other refusal (Message says why).
	BadRequest
)

// Error is a classified failure of one request. Message is the server's own
// message (or, for Timeout, TooLarge and BadReply, what went wrong) made safe
// to print: the key and anything like a bearer token removed, control
// characters made inert, one line, at most 300 bytes.
type Error struct {
	Kind    Kind
	Status  int    // HTTP status; 0 when no response came
	Message string // the server's message, if it gave one
	Code    string // OpenAI's error code, e.g. "context_length_exceeded"
	Param   string // OpenAI's param, e.g. "temperature"
	Err     error  // the underlying error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("kind %d", e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + SafeMessage(e.Err.Error(), "")
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

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
	e = &Error{Err: err}
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
	contextTooLong = regexp.MustCompile(`context length|context window|context size|maximum context|too many tokens|prompt is too long|exceeds? the (available )?context|input is too long|tokens exceed|reduce the length|input length exceeds`)
	modelNotFound  = regexp.MustCompile(`model\b.*\b(not found|does not exist|not exist|unknown|no such)|(unknown|no such|invalid) model|model_not_found|pull the model|try pulling`)
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
