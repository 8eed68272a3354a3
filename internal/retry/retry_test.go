package retry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"2": 2 * time.Second, "0": 0, "0.5": 500 * time.Millisecond, " 7 ": 7 * time.Second,
		"Fri, 01 May 2026 12:00:03 GMT": 3 * time.Second,
		"Fri, 01 May 2026 11:00:00 GMT": 0, // in the past
	} {
		if got, ok := ParseRetryAfter(in, now); !ok || got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "soon", "-1", "Inf", "NaN"} {
		if _, ok := ParseRetryAfter(bad, now); ok {
			t.Errorf("ParseRetryAfter(%q) accepted garbage", bad)
		}
	}
}

func TestBackoff(t *testing.T) {
	base, maxWait := 100*time.Millisecond, time.Second
	for attempt, lo := range []time.Duration{100, 200, 400, 800} {
		lo *= time.Millisecond
		d := Backoff(attempt, base, maxWait, nil)
		if d < min(lo, maxWait) || d > min(lo+lo/4, maxWait) {
			t.Errorf("Backoff(%d) = %v, want in [%v, %v]", attempt, d, lo, lo+lo/4)
		}
	}
	if d := Backoff(30, base, maxWait, nil); d != maxWait {
		t.Errorf("Backoff(30) = %v, want the cap %v", d, maxWait)
	}
	if d := Backoff(0, base, maxWait, &Hint{After: 0, Set: true}); d != 0 {
		t.Errorf("a Retry-After of 0 gave %v", d)
	}
	if d := Backoff(0, base, maxWait, &Hint{After: time.Hour, Set: true}); d != maxWait {
		t.Errorf("a long Retry-After is capped: got %v", d)
	}
}

func TestSleepStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stop")
	cancel(cause)
	if err := Sleep(ctx, time.Hour); !errors.Is(err, cause) {
		t.Errorf("Sleep = %v, want the cause", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}

func TestTransportRecordsRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	client := &http.Client{Transport: Transport{Base: srv.Client().Transport}}
	ctx, hint := WithHint(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !hint.Set || hint.After != 3*time.Second {
		t.Errorf("hint = %+v, want 3s", *hint)
	}
}
