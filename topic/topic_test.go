package topic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/store"
)

// now is the time of the second update; the first runs nine days earlier.
var (
	now  = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	now1 = now.AddDate(0, 0, -9)
)

// feed is the real recorded arXiv records, one per paper, re-dated to one
// submission every 16 hours back from now: 126 papers over 86 days, so the
// 12-week window leaves the oldest few out.
func feed(t *testing.T) []arxiv.Entry {
	t.Helper()
	seen := map[string]bool{}
	var es []arxiv.Entry
	for _, e := range arxivtest.RecordedEntries(t, arxivtest.DataDir(t)) {
		if !seen[e.ID] && e.Title != "" && e.Summary != "" {
			seen[e.ID] = true
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b arxiv.Entry) int { return strings.Compare(a.ID, b.ID) })
	if len(es) < 126 {
		t.Fatalf("only %d distinct recorded papers", len(es))
	}
	es = es[:126]
	for i := range es {
		es[i].Version = 1
		es[i].Published = now.Add(-2*time.Hour - time.Duration(i)*33*time.Hour/2)
		es[i].Updated = es[i].Published
	}
	return es
}

// before keeps the entries submitted by t.
func before(es []arxiv.Entry, t time.Time) []arxiv.Entry {
	var out []arxiv.Entry
	for _, e := range es {
		if !e.Published.After(t) {
			out = append(out, e)
		}
	}
	return out
}

const word = "model" // the topic's query word; the fake matches it in title or summary

func matches(e arxiv.Entry) bool {
	return strings.Contains(strings.ToLower(e.Title+" "+e.Summary), word)
}

type env struct {
	lib *store.Library
	srv *arxivtest.Server
	ax  *arxiv.Client
	in  *ingest.Ingester
}

func newEnv(t *testing.T, lib *store.Library, entries []arxiv.Entry) *env {
	srv := arxivtest.NewServer(t, arxivtest.Options{Entries: entries, MatchQuery: true})
	ax := arxiv.New()
	ax.APIURL, ax.PDFURL, ax.Delay = srv.APIURL(), srv.PDFURL(), -1
	in := &ingest.Ingester{Lib: lib, Embedder: embed.NewLocal(), Arxiv: ax, AbstractsOnly: true}
	return &env{lib: lib, srv: srv, ax: ax, in: in}
}

func openLib(t *testing.T) *store.Library {
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	e := embed.NewLocal()
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "ml", Query: "abs:" + word, Description: "machine learning"}); err != nil {
		t.Fatal(err)
	}
	return lib
}

func apiRequests(s *arxivtest.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Kind == "api" {
			n++
		}
	}
	return n
}

func TestUpdateMomentumDigest(t *testing.T) {
	ctx := context.Background()
	all := feed(t)
	lib := openLib(t)

	// First update: the 12-week window of the topic as it was nine days ago.
	e1 := newEnv(t, lib, before(all, now1))
	tp, _ := lib.Topic(ctx, "ml")
	res, err := Update(ctx, lib, e1.ax, e1.in, tp, UpdateOptions{Now: now1})
	if err != nil {
		t.Fatal(err)
	}
	var want1 []string
	for _, e := range before(all, now1) {
		if matches(e) && !e.Updated.Before(now1.Add(-DefaultWindow)) {
			want1 = append(want1, e.ID)
		}
	}
	if len(want1) < 20 || len(want1) > 110 {
		t.Fatalf("the query matches %d papers of the window; pick a word matching some, not all", len(want1))
	}
	if !slices.Equal(res.Report.Added, want1) {
		t.Errorf("first update added %d papers %v,\nwant the %d of the window %v", len(res.Report.Added), res.Report.Added, len(want1), want1)
	}
	tp, _ = lib.Topic(ctx, "ml")
	if tp.Papers != len(want1) || !tp.LastUpdate.Equal(now1) {
		t.Errorf("after the first update: %d papers, last update %v", tp.Papers, tp.LastUpdate)
	}

	// Nine days later: new submissions, and a revised version of an old paper.
	feed2 := slices.Clone(all)
	var revised string
	for i := len(feed2) - 1; i >= 0; i-- { // an old paper of the topic
		if matches(feed2[i]) && slices.Contains(want1, feed2[i].ID) {
			feed2[i].Version = 2
			feed2[i].Updated = now.Add(-30 * time.Hour)
			feed2[i].Summary += " This version adds experiments."
			revised = feed2[i].ID
			break
		}
	}
	e2 := newEnv(t, lib, feed2)
	res, err = Update(ctx, lib, e2.ax, e2.in, tp, UpdateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var want2 []string
	for _, e := range feed2 {
		if matches(e) && e.Published.After(now1) {
			want2 = append(want2, e.ID)
		}
	}
	if len(want2) == 0 || revised == "" {
		t.Fatalf("the feed has no new papers (%d) or no revised one (%q) for the second update", len(want2), revised)
	}
	if !slices.Equal(res.Report.Added, want2) || !slices.Equal(res.Report.Updated, []string{revised}) || len(res.Report.Unchanged) != 0 {
		t.Errorf("second update: added %v updated %v unchanged %v; want added %v updated [%s]", res.Report.Added, res.Report.Updated, res.Report.Unchanged, want2, revised)
	}
	if res.Fetched != len(want2)+1 || apiRequests(e2.srv) != 1 {
		t.Errorf("second update read %d entries in %d requests; want %d in 1", res.Fetched, apiRequests(e2.srv), len(want2)+1)
	}
	if p, err := lib.Get(ctx, revised); err != nil || p.Version != 2 || !strings.Contains(p.Abstract, "adds experiments") {
		t.Errorf("revised paper: v%d %v", p.Version, err)
	}
	tp, _ = lib.Topic(ctx, "ml")
	if tp.Papers != len(want1)+len(want2) {
		t.Errorf("topic holds %d papers, want %d", tp.Papers, len(want1)+len(want2))
	}
	// A third run finds nothing new in one request.
	before3 := apiRequests(e2.srv)
	res, err = Update(ctx, lib, e2.ax, e2.in, tp, UpdateOptions{Now: now.Add(time.Hour)})
	if err != nil || res.Fetched != 0 || apiRequests(e2.srv)-before3 != 1 {
		t.Errorf("third update: fetched %d in %d requests (%v)", res.Fetched, apiRequests(e2.srv)-before3, err)
	}

	// Momentum from the feed, counted here independently.
	start := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -84)
	weekly := make([]int, 12)
	allLast4 := 0
	for _, e := range feed2 {
		if e.Published.Before(start) {
			continue
		}
		w := int(e.Published.Sub(start).Hours() / (24 * 7))
		if matches(e) {
			weekly[w]++
		}
		if w >= 8 {
			allLast4++
		}
	}
	last4 := weekly[8] + weekly[9] + weekly[10] + weekly[11]
	prev4 := weekly[4] + weekly[5] + weekly[6] + weekly[7]
	wantChange := float64(int((float64(last4-prev4)/float64(prev4)*100)*100+0.5*sign(last4-prev4))) / 100
	wantShare := float64(int(float64(last4)/float64(allLast4)*100*100+0.5)) / 100
	before4 := apiRequests(e2.srv)
	m, err := MomentumOnline(ctx, e2.ax, tp, now)
	if err != nil {
		t.Fatal(err)
	}
	if m.Last4 != last4 || m.Prev4 != prev4 || m.AllLast4 != allLast4 || *m.ChangePct != wantChange || *m.SharePct != wantShare || m.Source != "arxiv" {
		t.Errorf("momentum %d vs %d (%v%%), share %v%% of %d; want %d vs %d (%v%%), %v%% of %d",
			m.Last4, m.Prev4, *m.ChangePct, *m.SharePct, m.AllLast4, last4, prev4, wantChange, wantShare, allLast4)
	}
	for i, w := range m.Weekly {
		if w.Count != weekly[i] || w.Start != start.AddDate(0, 0, 7*i).Format("2006-01-02") {
			t.Errorf("week %d: %+v, want %s %d", i, w, start.AddDate(0, 0, 7*i).Format("2006-01-02"), weekly[i])
		}
	}
	if n := apiRequests(e2.srv) - before4; n != 2 {
		t.Errorf("momentum took %d requests, want 2", n)
	}
	// Offline, from the library the updates filled: the same weekly counts.
	off, err := MomentumOffline(ctx, lib, tp, now)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(off.Weekly, m.Weekly) || off.Source != "library" || off.Last4 != last4 {
		t.Errorf("offline weekly %v, want %v", off.Weekly, m.Weekly)
	}
	t.Logf("momentum: %d vs %d (%+.2f%%), share %.2f%%\n%s", m.Last4, m.Prev4, *m.ChangePct, *m.SharePct, Bars(m.Weekly, 30))

	// Digest of the last 7 days: the papers the second update stored
	// (submitted in the 9 days since the first, and the old paper it
	// revised), newest published first; the first update's backfill counts
	// by submission date, so none of it is in the window.
	since := now.AddDate(0, 0, -7)
	var wantIDs []string
	for _, e := range feed2 {
		if matches(e) && (e.Published.After(now1) || e.ID == revised) {
			wantIDs = append(wantIDs, e.ID)
		}
	}
	d, err := Digest(ctx, lib, tp, DigestOptions{Since: since})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range d.Papers {
		got = append(got, p.ID)
		if p.Summary == "" || p.URL == "" {
			t.Errorf("digest paper %s: summary %q url %q", p.ID, p.Summary, p.URL)
		}
	}
	if len(wantIDs) == 0 {
		t.Fatal("no papers in the digest window")
	}
	if !slices.Equal(got, wantIDs) || d.Overview != "" || d.Mode != "extractive" {
		t.Errorf("digest papers %v, want %v", got, wantIDs)
	}

	// Generative: the real OpenAI adapter against a fake server; the
	// overview cites [1] and a paper it was never given, [99].
	llmSrv := fakeLLM(t)
	model, err := llm.NewOpenAI(llm.LLMConfig{Spec: "test-model", BaseURL: llmSrv.URL + "/v1", APIKey: "k", NoStream: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	d, err = Digest(ctx, lib, tp, DigestOptions{Since: since, LLM: model, Rank: RankRelevance})
	if err != nil {
		t.Fatal(err)
	}
	if d.Mode != "llm" || !strings.Contains(d.Overview, "[1]") || strings.Contains(d.Overview, "[99]") || len(d.Warnings) != 1 {
		t.Errorf("overview %q warnings %v", d.Overview, d.Warnings)
	}
	got = got[:0]
	for _, p := range d.Papers {
		got = append(got, p.ID)
		if p.Summary != "It proposes something new. It works." {
			t.Errorf("model summary of %s = %q", p.ID, p.Summary)
		}
	}
	slices.Sort(got)
	slices.Sort(wantIDs)
	if !slices.Equal(got, wantIDs) {
		t.Errorf("relevance-ranked digest papers %v, want %v", got, wantIDs)
	}

	// A hostile model: citation groups and ranges (the overview's checker
	// is ask's), terminal controls, the key echoed, its own Sources list.
	const key = "sk-digest-KEY-0123456789"
	llmSrv = fakeLLMWith(t,
		"Two themes stand out [1, 99]. Both build on [1-2]. A made-up trend [98-99]. \x1b[2J\x1b]0;pwned\x07Cleared \u009b31m \u202eevil\u202c\x00 with "+key+".\r\n\nSources:\n[1] Something",
		"It proposes \x1b]0;pwned\x07 new [1, 2] things \u009d0;x\u009c. It works.")
	model, err = llm.NewOpenAI(llm.LLMConfig{Spec: "test-model", BaseURL: llmSrv.URL + "/v1", APIKey: key, NoStream: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	d, err = Digest(ctx, lib, tp, DigestOptions{Since: since, LLM: model})
	if err != nil {
		t.Fatal(err)
	}
	warnings := strings.Join(d.Warnings, "\n")
	if !strings.Contains(d.Overview, "stand out [1].") || !strings.Contains(d.Overview, "build on [1][2].") || strings.Contains(d.Overview, "99") || strings.Contains(d.Overview, "made-up") {
		t.Errorf("citations not checked: overview %q", d.Overview)
	}
	if !strings.Contains(warnings, "[99]") || !strings.Contains(warnings, "A made-up trend.") || !strings.Contains(warnings, "own list of sources") {
		t.Errorf("warnings %q", warnings)
	}
	texts := []string{d.Overview, warnings}
	for _, p := range d.Papers {
		texts = append(texts, p.Summary)
		if strings.Contains(p.Summary, "[") && !strings.Contains(p.Summary, "[2J") {
			t.Errorf("summary keeps a citation: %q", p.Summary)
		}
	}
	for _, s := range texts {
		if strings.Contains(s, key) || strings.ContainsAny(s, "\x1b\x07\x00\r\u009b\u009d\u009c\u202e\u202c") || strings.Contains(s, "Sources:") {
			t.Errorf("model text not made inert: %q", s)
		}
	}
}

func sign(n int) float64 {
	if n < 0 {
		return -1
	}
	return 1
}

// fakeLLM answers chat completions like an OpenAI-compatible server.
func fakeLLM(t *testing.T) *httptest.Server {
	return fakeLLMWith(t, "Two themes stand out [1]. A paper nobody gave me [99].", "It proposes something new [1]. It works. It is long.")
}

// fakeLLMWith answers the overview request with overview and each
// one-paper summary request with summary.
func fakeLLMWith(t *testing.T, overview, summary string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		}
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("decode request: %v", err)
		}
		text := overview
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "There is one paper") {
			text = summary
		}
		w.Header().Set("Content-Type", "application/json")
		js, _ := json.Marshal(text)
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`, js)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestKeySentence(t *testing.T) {
	for _, c := range []struct{ abstract, want string }{
		{"Large models are costly. In this paper, we propose FooNet, a cheap model that matches them on ten benchmarks. Code is released.", "In this paper, we propose FooNet, a cheap model that matches them on ten benchmarks."},
		{"Agents fail often. We study why, e.g. in web tasks. We find that planning errors dominate failures across all models tested.", "We study why, e.g. in web tasks. We find that planning errors dominate failures across all models tested."},
		{"A survey of methods for tool use by language models across many settings and benchmarks.", "A survey of methods for tool use by language models across many settings and benchmarks."},
	} {
		if got := KeySentence(c.abstract); got != c.want {
			t.Errorf("KeySentence(%q)\n got %q\nwant %q", c.abstract, got, c.want)
		}
	}
}

// An update interrupted half-way keeps what it stored, records no run, and
// the rerun finishes the window without fetching the stored papers' PDFs
// again.
func TestUpdateInterruptedThenRerun(t *testing.T) {
	all := feed(t)
	lib := openLib(t)
	e := newEnv(t, lib, all)
	tp, _ := lib.Topic(context.Background(), "ml")

	ctx, cancel := context.WithCancel(context.Background())
	stored := 0
	e.in.Workers = 1
	e.in.Observer = func(ev ingest.Event) {
		if ev.Kind == ingest.Stored {
			if stored++; stored == 10 {
				cancel()
			}
		}
	}
	_, err := Update(ctx, lib, e.ax, e.in, tp, UpdateOptions{Now: now})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted update: %v, want context.Canceled", err)
	}
	tp, _ = lib.Topic(context.Background(), "ml")
	if !tp.LastUpdate.IsZero() || !tp.Cursor.IsZero() || tp.Papers < 10 {
		t.Fatalf("after the interruption: last update %v, cursor %v, %d papers (want >= 10 kept)", tp.LastUpdate, tp.Cursor, tp.Papers)
	}
	kept := tp.Papers

	e.in.Observer = nil
	res, err := Update(context.Background(), lib, e.ax, e.in, tp, UpdateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, en := range all {
		if matches(en) && !en.Updated.Before(now.Add(-DefaultWindow)) {
			want++
		}
	}
	tp, _ = lib.Topic(context.Background(), "ml")
	if tp.Papers != want || len(res.Report.Unchanged) != kept || len(res.Report.Added) != want-kept || tp.LastUpdate.IsZero() {
		t.Errorf("rerun: topic holds %d (want %d), unchanged %d (want %d), added %d", tp.Papers, want, len(res.Report.Unchanged), kept, len(res.Report.Added))
	}
	if err := lib.Check(context.Background()); err != nil {
		t.Error(err)
	}
}

func TestBars(t *testing.T) {
	got := Bars([]Week{{"2026-01-05", 8}, {"2026-01-12", 3}, {"2026-01-19", 0}, {"2026-01-26", 1}}, 4)
	want := "2026-01-05 ████ 8\n2026-01-12 █▌   3\n2026-01-19      0\n2026-01-26 ▌    1\n"
	if got != want {
		t.Errorf("Bars:\n%s\nwant\n%s", got, want)
	}
}

// PDFs that fail keep the abstracts in the topic, are reported, and do not
// hold the cursor back: the next run reads only what is newer.
func TestUpdatePDFFailuresKeepAbstracts(t *testing.T) {
	ctx := context.Background()
	all := feed(t)[:20]
	lib := openLib(t)
	e := newEnv(t, lib, all) // serves no PDFs: every download is a 404
	e.in.AbstractsOnly = false
	e.in.CacheDir = t.TempDir()
	tp, _ := lib.Topic(ctx, "ml")
	res, err := Update(ctx, lib, e.ax, e.in, tp, UpdateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, en := range all {
		if matches(en) {
			n++
		}
	}
	if len(res.Report.Failed) != n || len(res.Report.Added) != 0 || !res.Report.Failed[0].AbstractKept {
		t.Fatalf("added %d, failed %v; want %d reported once each, failed with their abstracts kept", len(res.Report.Added), res.Report.Failed, n)
	}
	tp, _ = lib.Topic(ctx, "ml")
	if tp.Papers != n || tp.Cursor.IsZero() || tp.LastUpdate.IsZero() {
		t.Errorf("topic after PDF failures: %+v", tp)
	}
	before := len(e.srv.Requests())
	res, err = Update(ctx, lib, e.ax, e.in, tp, UpdateOptions{Now: now})
	if err != nil || res.Fetched != 0 || len(e.srv.Requests())-before != 1 {
		t.Errorf("rerun fetched %d in %d requests (%v); want nothing in 1", res.Fetched, len(e.srv.Requests())-before, err)
	}
}

// A paper arXiv announces days after its submission has a stamp older than
// the newest paper of the last run: the next update still fetches it,
// reading back past the held papers to the lag margin, and downloads
// nothing it holds.
func TestUpdateFetchesLatePaper(t *testing.T) {
	ctx := context.Background()
	all := before(feed(t), now1)
	var late arxiv.Entry // the topic's second newest paper: the newest sets the cursor
	var early []arxiv.Entry
	n := 0
	for _, e := range all {
		if matches(e) {
			if n++; n == 2 {
				late = e
				continue
			}
		}
		early = append(early, e)
	}
	lib := openLib(t)
	e1 := newEnv(t, lib, early)
	tp, _ := lib.Topic(ctx, "ml")
	if _, err := Update(ctx, lib, e1.ax, e1.in, tp, UpdateOptions{Now: now1}); err != nil {
		t.Fatal(err)
	}
	tp, _ = lib.Topic(ctx, "ml")
	if !late.Updated.Before(tp.Cursor) || late.Updated.Before(tp.Cursor.Add(-Lag)) {
		t.Fatalf("the late paper (%v) is not in the lag margin behind the cursor (%v)", late.Updated, tp.Cursor)
	}

	e2 := newEnv(t, lib, all) // now arXiv lists the late paper too
	e2.in.AbstractsOnly, e2.in.CacheDir = false, t.TempDir()
	res, err := Update(ctx, lib, e2.ax, e2.in, tp, UpdateOptions{Now: now1.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// its PDF 404s: it is in, with its abstract, reported once as failed
	if len(res.Report.Failed) != 1 || res.Report.Failed[0].Item != late.ID || !res.Report.Failed[0].AbstractKept || res.Fetched != 1 {
		t.Errorf("second update failed %v (fetched %d), want the late paper %s kept with its abstract", res.Report.Failed, res.Fetched, late.ID)
	}
	if _, err := lib.Get(ctx, late.ID); err != nil {
		t.Errorf("the late paper is not in the library: %v", err)
	}
	var pdfs []string
	for _, r := range e2.srv.Requests() {
		if r.Kind == "pdf" {
			pdfs = append(pdfs, r.Path)
		}
	}
	if len(pdfs) != 1 || !strings.Contains(pdfs[0], late.ID) {
		t.Errorf("second update downloaded %v, want only the late paper's PDF", pdfs)
	}
	if m, _ := lib.List(ctx, store.Filter{Topics: []string{"ml"}, IDs: []string{late.ID}}); len(m) != 1 {
		t.Errorf("the late paper did not join the topic")
	}
	// The digest of what is new since the first run lists it, though it
	// was submitted before.
	d, err := Digest(ctx, lib, tp, DigestOptions{Since: now1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Papers) != 1 || d.Papers[0].ID != late.ID {
		t.Errorf("digest since the first run: %+v, want the late paper %s", d.Papers, late.ID)
	}
}

// A machine off for longer than the window: a run with a short window
// reports the span it did not read and leaves the cursor, so a later run
// with a window reaching back fetches the papers of the gap.
func TestUpdateWindowGap(t *testing.T) {
	ctx := context.Background()
	all := feed(t)
	lib := openLib(t)
	old := now.AddDate(0, 0, -40)
	e1 := newEnv(t, lib, before(all, old))
	tp, _ := lib.Topic(ctx, "ml")
	if _, err := Update(ctx, lib, e1.ax, e1.in, tp, UpdateOptions{Now: old}); err != nil {
		t.Fatal(err)
	}
	tp, _ = lib.Topic(ctx, "ml")
	cursor := tp.Cursor

	e2 := newEnv(t, lib, all)
	week := 7 * 24 * time.Hour
	res, err := Update(ctx, lib, e2.ax, e2.in, tp, UpdateOptions{Now: now, Window: week})
	if err != nil {
		t.Fatal(err)
	}
	if res.Gap == nil || !res.Gap.From.Equal(cursor) || !res.Gap.To.Equal(now.Add(-week)) {
		t.Errorf("gap %+v, want from the cursor %v to %v", res.Gap, cursor, now.Add(-week))
	}
	tp, _ = lib.Topic(ctx, "ml")
	if !tp.Cursor.Equal(cursor) {
		t.Errorf("the cursor moved over the gap: %v, was %v", tp.Cursor, cursor)
	}
	var gap []string
	for _, e := range all {
		if matches(e) && e.Updated.After(cursor) && e.Updated.Before(now.Add(-week)) {
			gap = append(gap, e.ID)
		}
	}
	if len(gap) == 0 {
		t.Fatal("no paper of the topic in the gap")
	}
	res, err = Update(ctx, lib, e2.ax, e2.in, tp, UpdateOptions{Now: now, Window: 52 * week})
	if err != nil {
		t.Fatal(err)
	}
	if res.Gap != nil || !slices.Equal(res.Report.Added, gap) {
		t.Errorf("run with a long window: gap %+v, added %v; want the gap's papers %v", res.Gap, res.Report.Added, gap)
	}
	tp, _ = lib.Topic(ctx, "ml")
	if !tp.Cursor.After(now.Add(-week)) {
		t.Errorf("cursor %v after the gap was filled", tp.Cursor)
	}
}

// A paper ingested on its own before the topic found it is not the topic's
// to purge: rm --purge deletes only what the topic's updates brought.
func TestPurgeKeepsPaperIngestedBefore(t *testing.T) {
	ctx := context.Background()
	all := feed(t)[:20]
	lib := openLib(t)
	e := newEnv(t, lib, all)
	var own string
	for _, en := range all {
		if matches(en) {
			own = en.ID
			if _, err := e.in.ArxivEntries(ctx, []arxiv.Entry{en}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	tp, _ := lib.Topic(ctx, "ml")
	res, err := Update(ctx, lib, e.ax, e.in, tp, UpdateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Report.Unchanged, []string{own}) || len(res.Report.Added) == 0 {
		t.Fatalf("update: added %v unchanged %v; want %s unchanged", res.Report.Added, res.Report.Unchanged, own)
	}
	purged, err := lib.RemoveTopic(ctx, "ml", true)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(res.Report.Added)
	left, _ := lib.List(ctx, store.Filter{})
	if !slices.Equal(purged, res.Report.Added) || len(left) != 1 || left[0].ID != own {
		t.Errorf("purged %v, %d papers left; want the topic's %v purged and %s kept", purged, len(left), res.Report.Added, own)
	}
}

// TestUpdateAll: two topics of the same query bring the same papers, which
// the summary lists once; a topic whose update fails (arXiv down for its
// one request) fails alone, with its error, and the topics after it are
// updated.
func TestUpdateAll(t *testing.T) {
	ctx := context.Background()
	all := feed(t)
	lib := openLib(t)
	for _, tp := range []store.Topic{{Name: "a-down", Query: "abs:" + word}, {Name: "ml2", Query: "abs:" + word}} {
		if err := lib.AddTopic(ctx, tp); err != nil {
			t.Fatal(err)
		}
	}
	srv := arxivtest.NewServer(t, arxivtest.Options{Entries: before(all, now1), MatchQuery: true, ServiceUnavailable: 1})
	ax := arxiv.New()
	ax.APIURL, ax.PDFURL, ax.Delay, ax.MaxTries = srv.APIURL(), srv.PDFURL(), -1, 1
	in := &ingest.Ingester{Lib: lib, Embedder: embed.NewLocal(), Arxiv: ax, AbstractsOnly: true}
	ts, err := lib.Topics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 || ts[0].Name != "a-down" {
		t.Fatalf("topics %+v, want a-down first", ts)
	}
	sum := UpdateAll(ctx, lib, ax, in, ts, UpdateOptions{Now: now1})
	byName := map[string]TopicResult{}
	for _, r := range sum.Topics {
		byName[r.Topic] = r
	}
	if len(sum.Topics) != 3 || byName["ml"].Err != nil || byName["ml2"].Err != nil {
		t.Fatalf("topics %+v", sum.Topics)
	}
	if r := byName["a-down"]; r.Err == nil || r.Error != r.Err.Error() || !strings.Contains(r.Error, "503") {
		t.Errorf("topic a-down: error %v (%q), want arXiv's 503", r.Err, r.Error)
	}
	ml := byName["ml"].Report
	if len(ml.Added) == 0 || !slices.Equal(sum.Added, ml.Added) || len(byName["ml2"].Report.Unchanged) != len(ml.Added) {
		t.Errorf("summary added %d papers, topic ml added %d, ml2 found %d held: want each paper once", len(sum.Added), len(ml.Added), len(byName["ml2"].Report.Unchanged))
	}
}

// TestUpdateStoresMembershipWithPaper: a paper an update stores is a
// member of the topic from the moment it is committed, so kill -9 between
// the two cannot leave it in no topic (topic rm --purge then kept it as
// "ingested yourself"). Checked at every Stored event, from the outside.
func TestUpdateStoresMembershipWithPaper(t *testing.T) {
	ctx := context.Background()
	lib := openLib(t)
	e := newEnv(t, lib, feed(t)[:40])
	tp, _ := lib.Topic(ctx, "ml")
	checked := 0
	e.in.Observer = func(ev ingest.Event) {
		if ev.Kind != ingest.Stored || ev.Result != store.Added {
			return
		}
		members, err := lib.TopicPapersSince(ctx, "ml", time.Unix(0, 0))
		if err != nil || !slices.Contains(members, ev.Item) {
			t.Errorf("%s is stored but not yet in the topic (%v)", ev.Item, err)
		}
		checked++
	}
	res, err := Update(ctx, lib, e.ax, e.in, tp, UpdateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 || checked != len(res.Report.Added) {
		t.Fatalf("checked %d papers, the update added %d", checked, len(res.Report.Added))
	}
	purged, err := lib.RemoveTopic(ctx, "ml", true)
	if err != nil || len(purged) != checked {
		t.Errorf("purge removed %d papers (%v), want the %d the update brought", len(purged), err, checked)
	}
}
