package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A paper whose PDF failed (a 404, HTML, a truncated or unreadable file) is
// stored with its abstract and the failure is recorded beside the PDF
// cache, as <id>v<version>.failed.json: later runs and updates do not
// download it again until retryAfter has passed since the last try (or
// Ingester.RetryFailed), and report it as unchanged meanwhile. A success
// removes the record; so does deleting the cache.

// textFailure is what is recorded of a paper version's failed full text.
type textFailure struct {
	Attempts int       `json:"attempts"`
	Last     time.Time `json:"last"`
	Reason   string    `json:"reason"`
}

// retryAfter is the wait after the n-th failed try: 6 hours, then a day,
// then 4 days, then a week between tries.
func retryAfter(n int) time.Duration {
	d := 6 * time.Hour
	for i := 1; i < n && d < 7*24*time.Hour; i++ {
		d *= 4
	}
	return min(d, 7*24*time.Hour)
}

func (in *Ingester) failureFile(idv string) string {
	return filepath.Join(in.CacheDir, strings.ReplaceAll(idv, "/", "_")+".failed.json")
}

// textFailureOf returns the failure recorded for idv, if any.
func (in *Ingester) textFailureOf(idv string) (textFailure, bool) {
	var f textFailure
	if in.CacheDir == "" {
		return f, false
	}
	b, err := os.ReadFile(in.failureFile(idv))
	if err != nil || json.Unmarshal(b, &f) != nil || f.Attempts <= 0 {
		return textFailure{}, false
	}
	return f, true
}

// deferred says why idv's PDF is not tried in this run, or "" if it is.
func (in *Ingester) deferred(idv string, now time.Time) string {
	f, ok := in.textFailureOf(idv)
	if !ok || in.RetryFailed {
		return ""
	}
	next := f.Last.Add(retryAfter(f.Attempts))
	if !now.Before(next) {
		return ""
	}
	tries := "once"
	if f.Attempts > 1 {
		tries = fmt.Sprintf("%d times", f.Attempts)
	}
	return fmt.Sprintf("abstract only: its PDF failed %s (%s); next try after %s, or now with --retry-failed",
		tries, f.Reason, next.Local().Format("2006-01-02 15:04"))
}

// noteTextFailure records one more failed try of idv's full text. It is
// best effort: a failure to record only means an earlier retry.
func (in *Ingester) noteTextFailure(idv, reason string, now time.Time) {
	if in.CacheDir == "" {
		return
	}
	f, _ := in.textFailureOf(idv)
	f.Attempts++
	f.Last, f.Reason = now.UTC(), reason
	b, _ := json.Marshal(f)
	if os.MkdirAll(in.CacheDir, 0o700) != nil {
		return
	}
	path := in.failureFile(idv)
	tmp := path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil && os.Rename(tmp, path) == nil {
		return
	}
	os.Remove(tmp)
}

// clearTextFailure forgets idv's failures: its full text is in.
func (in *Ingester) clearTextFailure(idv string) {
	if in.CacheDir != "" {
		os.Remove(in.failureFile(idv))
	}
}
