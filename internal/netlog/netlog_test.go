package netlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer is an httptest server that counts the connections it
// accepts.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	s := httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s, &conns
}

func TestRecordsEveryRequestWithoutItsQuery(t *testing.T) {
	body := strings.Repeat("<entry/>", 1000)
	s, _ := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	}))
	dir := t.TempDir()
	tr := New(Options{Ledger: filepath.Join(dir, LedgerName)})
	defer tr.Close()
	ctx := WithPurpose(context.Background(), "arxiv api")

	get := func(path string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
		resp, err := tr.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get("/api/query?search_query=all:testing&api_key=SECRET123")
	get("/missing")
	post, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/embeddings", strings.NewReader(`{"input":["a","b"]}`))
	resp, err := tr.Client().Do(post)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	raw, err := os.ReadFile(filepath.Join(dir, LedgerName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("SECRET123")) || bytes.Contains(raw, []byte("search_query")) {
		t.Errorf("the ledger holds a query string:\n%s", raw)
	}
	rs, err := Read(dir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(rs), raw)
	}
	host := strings.TrimPrefix(s.URL, "http://")
	want := []Record{
		{Host: host, Method: "GET", Path: "/api/query", Purpose: "arxiv api", Status: 200, Received: int64(len(body))},
		{Host: host, Method: "GET", Path: "/missing", Purpose: "arxiv api", Status: 404, Received: int64(len("404 page not found\n"))},
		{Host: host, Method: "POST", Path: "/v1/embeddings", Purpose: "arxiv api", Status: 200, Sent: int64(len(`{"input":["a","b"]}`)), Received: int64(len(body))},
	}
	for i, w := range want {
		g := rs[i]
		if g.Time.IsZero() || time.Since(g.Time) > time.Minute {
			t.Errorf("record %d: time %v", i, g.Time)
		}
		g.Time, g.Millis = time.Time{}, 0
		if g != w {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestOfflineOpensNoConnection(t *testing.T) {
	s, conns := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	dir := t.TempDir()
	tr := New(Options{Ledger: filepath.Join(dir, LedgerName), Offline: true})
	ctx := WithPurpose(context.Background(), "model")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/chat/completions", strings.NewReader("{}"))
	_, err := tr.Client().Do(req)
	if !errors.Is(err, ErrOffline) {
		t.Fatalf("err = %v, want ErrOffline", err)
	}
	var oe *OfflineError
	if !errors.As(err, &oe) || oe.Purpose != "model" || !strings.Contains(err.Error(), "--offline") {
		t.Errorf("the error does not say what was refused and why: %v", err)
	}
	// the dialer refuses as well, whoever reaches it
	if _, err := tr.base.RoundTrip(req); !errors.Is(err, ErrOffline) {
		t.Errorf("the base transport offline: err = %v", err)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections reached the server offline", n)
	}
	if _, err := os.Stat(filepath.Join(dir, LedgerName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused request was recorded (err %v): nothing went out", err)
	}
}

func TestFailuresAreRecordedByKindNotByText(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	dir := t.TempDir()
	tr := New(Options{Ledger: filepath.Join(dir, LedgerName)})
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/x?token=SECRET", nil)
	if _, err := tr.Client().Do(req); err == nil {
		t.Fatal("a request to a closed port succeeded")
	}
	rs, err := Read(dir, time.Time{})
	if err != nil || len(rs) != 1 {
		t.Fatalf("records %v, err %v", rs, err)
	}
	if rs[0].Error != "refused" || rs[0].Status != 0 {
		t.Errorf("record %+v: want error refused, status 0", rs[0])
	}
}

// openAIUsage reads the usage of an OpenAI-compatible reply, as the
// model clients do (internal/openaicompat has the real one).
func openAIUsage(head, tail []byte) (Tokens, bool) {
	var in, out int
	i := bytes.LastIndex(tail, []byte(`"usage"`))
	if i < 0 {
		return Tokens{}, false
	}
	if _, err := fmt.Sscanf(string(tail[i:]), `"usage":{"prompt_tokens":%d,"completion_tokens":%d`, &in, &out); err != nil {
		return Tokens{}, false
	}
	return Tokens{Model: "m", In: in, Out: out}, true
}

func TestTokensOfModelRepliesAreRecorded(t *testing.T) {
	filler := strings.Repeat("x", 20000) // the usage is past the head
	s, _ := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%q}}],"usage":{"prompt_tokens":1234,"completion_tokens":56}}`, filler)
	}))
	dir := t.TempDir()
	tr := New(Options{Ledger: filepath.Join(dir, LedgerName)})
	c := &http.Client{Transport: Tag(tr, "model", openAIUsage)}
	resp, err := c.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rs, _ := Read(dir, time.Time{})
	if len(rs) != 1 {
		t.Fatalf("%d records", len(rs))
	}
	if r := rs[0]; r.Purpose != "model" || r.TokensIn != 1234 || r.TokensOut != 56 || r.Model != "m" || r.Received != n {
		t.Errorf("record %+v: want purpose model, 1234 in, 56 out, %d bytes", r, n)
	}
}

func TestReadSkipsATornLineAndFilters(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	for i := range 3 {
		fmt.Fprintf(&b, `{"time":%q,"host":"h","purpose":"p","status":200,"bytes_received":%d}`+"\n", day.AddDate(0, 0, i).Format(time.RFC3339), i)
	}
	b.WriteString(`{"time":"2026-03-04T00:00:00Z","host":"h","sta`) // killed mid-write
	if err := os.WriteFile(filepath.Join(dir, LedgerName), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	old := `{"time":"2026-02-01T00:00:00Z","host":"old","status":200}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, OldLedgerName), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, err := Read(dir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[0].Host != "old" {
		t.Fatalf("got %+v, want the rotated record then 3", rs)
	}
	rs, _ = Read(dir, day.AddDate(0, 0, 1))
	if len(rs) != 2 || rs[0].Received != 1 {
		t.Errorf("since the 2nd: %+v", rs)
	}
	// a torn line does not glue itself to the next record
	tr := New(Options{Ledger: filepath.Join(dir, LedgerName)})
	tr.record(&Record{Time: day.AddDate(0, 0, 9), Host: "after"})
	tr.Close()
	rs, _ = Read(dir, day.AddDate(0, 0, 5))
	if len(rs) != 1 || rs[0].Host != "after" {
		t.Errorf("the record after a torn line: %+v", rs)
	}
}

func TestConcurrentWritersLeaveWholeLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LedgerName)
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := New(Options{Ledger: path}) // a transport per writer, as two processes would have
			defer tr.Close()
			for i := range each {
				tr.record(&Record{Time: time.Now(), Host: fmt.Sprintf("w%d", w), Path: fmt.Sprintf("/%d/%s", i, strings.Repeat("p", 300))})
			}
		}()
	}
	wg.Wait()
	rs, err := Read(dir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != writers*each {
		t.Errorf("%d records, want %d", len(rs), writers*each)
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LedgerName)
	big := bytes.Repeat([]byte(`{"time":"2026-01-01T00:00:00Z","host":"h"}`+"\n"), MaxLedgerBytes/40)
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	tr := New(Options{Ledger: path})
	tr.record(&Record{Time: time.Now(), Host: "new"})
	tr.Close()
	fi, err := os.Stat(filepath.Join(dir, OldLedgerName))
	if err != nil || fi.Size() != int64(len(big)) {
		t.Fatalf("rotated file: %v, %v", fi, err)
	}
	rs, _ := Read(dir, time.Now().Add(-time.Minute))
	if len(rs) != 1 || rs[0].Host != "new" {
		t.Errorf("after rotation: %+v", rs)
	}
}

func TestAnUnwritableLedgerWarnsOnceAndTheRequestGoesOn(t *testing.T) {
	s, _ := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	var warnings []string
	tr := New(Options{Ledger: filepath.Join(file, LedgerName), Warn: func(m string) { warnings = append(warnings, m) }})
	for range 2 {
		resp, err := tr.Client().Get(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Errorf("body %q", b)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "network ledger") {
		t.Errorf("warnings %q, want one", warnings)
	}
}

func TestSum(t *testing.T) {
	rs := []Record{
		{Host: "a", Purpose: "x", Status: 200, Sent: 1, Received: 10, TokensIn: 5, TokensOut: 2},
		{Host: "b", Purpose: "y", Status: 200, Received: 100},
		{Host: "a", Purpose: "x", Status: 500, Received: 1},
		{Host: "a", Purpose: "x", Error: "timeout"},
	}
	by, all := Sum(rs)
	if len(by) != 2 || by[0].Host != "b" || by[1].Requests != 3 || by[1].Failed != 2 || by[1].TokensIn != 5 {
		t.Errorf("by host: %+v", by)
	}
	if all.Requests != 4 || all.Received != 111 || all.Sent != 1 || all.Failed != 2 {
		t.Errorf("all: %+v", all)
	}
}
