package arxiv

import (
	"fmt"
	"net/http"
)

// StatusError is the error of a request arXiv answered with an HTTP status
// other than 200 and no error feed: a rate limit (429), an outage (5xx), a
// missing PDF (404). Callers branch on Code; the message is the status line
// in Go's words for the code (a server's reason phrase may hold anything).
type StatusError struct {
	URL  string
	Code int
}

func (e *StatusError) Error() string {
	if t := http.StatusText(e.Code); t != "" {
		return fmt.Sprintf("GET %s: %d %s", e.URL, e.Code, t)
	}
	return fmt.Sprintf("GET %s: HTTP status %d", e.URL, e.Code)
}

// RateLimited reports whether arXiv asked for fewer requests (429).
func (e *StatusError) RateLimited() bool { return e.Code == http.StatusTooManyRequests }

// Unavailable reports whether arXiv failed or was down (5xx).
func (e *StatusError) Unavailable() bool { return e.Code >= 500 && e.Code <= 599 }
