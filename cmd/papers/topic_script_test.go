package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// TestTopicScripts runs the end-to-end scripts of followed topics
// (testdata/topics: topic, update, momentum, digest, export) against a fake
// arXiv whose feed is the real recorded records re-dated to span 12+ weeks
// back from now.
func TestTopicScripts(t *testing.T) {
	data := sharedData(t)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "topics"),
		Setup: func(env *testscript.Env) error {
			env.Values["feed"] = &topicFeed{}
			return scriptEnv(env, data)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":      exitCode,
			"faketopic":     func(ts *testscript.TestScript, neg bool, args []string) { fakeTopic(t, data, ts, args) },
			"apirequests":   apiRequests,
			"checkmomentum": checkMomentum,
			"checkdigest":   checkDigest,
			"fakellm":       func(ts *testscript.TestScript, neg bool, args []string) { fakeLLM(t, ts) },
		},
	})
}

// topicFeed is the fake arXiv of one script.
type topicFeed struct {
	srv     *arxivtest.Server
	entries []arxiv.Entry
	seen    int // API requests already counted by apirequests
	now     time.Time
}

func feedOf(ts *testscript.TestScript) *topicFeed {
	return ts.Value("feed").(*topicFeed)
}

// topicWord is what the scripts' topic query asks for (abs:model); the fake
// matches it in titles and summaries.
const topicWord = "model"

// fakeTopic starts a fake arXiv for the rest of the script: 126 real
// recorded papers, one every 16.5 hours back from now, and the Toolformer
// and DeepSeek-R1 PDFs as two papers from the last days. The papers of the
// last 3 days are held back unless "more" is given, which also brings a
// revised version (v2, updated a day ago) of an older paper that matches
// the topic. With "bad", the newest paper that matches the topic is served
// under an id that is no arXiv id ("not-an-id"), as one unreadable entry of
// a real page.
//
//	faketopic
//	faketopic more
//	faketopic bad
func fakeTopic(t *testing.T, data string, ts *testscript.TestScript, args []string) {
	more, bad := slices.Contains(args, "more"), slices.Contains(args, "bad")
	f := feedOf(ts)
	if f.now.IsZero() {
		f.now = time.Now().UTC() // one clock per script: the papers keep their dates across faketopic calls
	}
	now := f.now
	seen := map[string]bool{}
	var es []arxiv.Entry
	for _, e := range arxivtest.RecordedEntries(t, data) {
		if !seen[e.ID] && e.Title != "" && e.Summary != "" && scriptPapers[e.ID] == "" {
			seen[e.ID] = true
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b arxiv.Entry) int { return strings.Compare(a.ID, b.ID) })
	es = es[:min(126, len(es))]
	for i := range es {
		es[i].Version = 1
		es[i].Published = now.Add(-2*time.Hour - time.Duration(i)*33*time.Hour/2)
		es[i].Updated = es[i].Published
	}
	for i, id := range []string{"2302.04761", "2501.12948"} {
		e := referenceEntry(ts.Check, data, id, now.Add(-time.Duration(30+24*i)*time.Hour))
		e.Summary += " We study language models."
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b arxiv.Entry) int { return b.Published.Compare(a.Published) })
	cut := now.AddDate(0, 0, -3)
	var served []arxiv.Entry
	revised := false
	for i := len(es) - 1; i >= 0; i-- { // oldest first, so the revision is an old paper
		e := es[i]
		if !more && e.Published.After(cut) {
			continue
		}
		if more && !revised && strings.Contains(strings.ToLower(e.Title+" "+e.Summary), topicWord) {
			e.Version, e.Updated = 2, now.Add(-24*time.Hour)
			e.Summary += " Version 2 adds experiments."
			revised = true
		}
		served = append(served, e)
	}
	for i := len(served) - 1; bad && i >= 0; i-- {
		if strings.Contains(strings.ToLower(served[i].Title+" "+served[i].Summary), topicWord) {
			served[i].ID = "not-an-id"
			break
		}
	}
	opts := arxivtest.Options{DataDir: data, Entries: served, MatchQuery: true, PDFs: map[string]string{}}
	for id, f := range scriptPapers {
		opts.PDFs[id] = filepath.Join(data, "pdfs", "papers", f)
	}
	f.srv, f.entries, f.seen = arxivtest.NewServer(t, opts), served, 0
	ts.Setenv("PAPERS_ARXIV_API_URL", f.srv.APIURL())
	ts.Setenv("PAPERS_ARXIV_PDF_URL", f.srv.PDFURL())
}

// apirequests N checks that N API requests reached the fake arXiv since it
// started or since the last apirequests.
func apiRequests(ts *testscript.TestScript, neg bool, args []string) {
	f := feedOf(ts)
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	n := 0
	for _, r := range f.srv.Requests() {
		if r.Kind == "api" {
			n++
		}
	}
	got := n - f.seen
	f.seen = n
	if (got == want) == neg {
		ts.Fatalf("%d API requests, want %d", got, want)
	}
}

func matchesTopic(e arxiv.Entry) bool {
	return strings.Contains(strings.ToLower(e.Title+" "+e.Summary), topicWord)
}

// checkmomentum FILE compares papers momentum --json output with counts
// made here from the fake feed.
func checkMomentum(ts *testscript.TestScript, neg bool, args []string) {
	var m struct {
		Last4     int      `json:"last_4_weeks"`
		Prev4     int      `json:"previous_4_weeks"`
		ChangePct *float64 `json:"change_pct"`
		SharePct  *float64 `json:"share_pct"`
		Weekly    []struct {
			Start string `json:"week_start"`
			Count int    `json:"count"`
		} `json:"weekly"`
		Source string `json:"source"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &m))
	y, mo, d := time.Now().UTC().Date()
	start := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1-84)
	weekly := make([]int, 12)
	all := 0
	for _, e := range feedOf(ts).entries {
		if e.Published.Before(start) {
			continue
		}
		w := int(e.Published.Sub(start) / (7 * 24 * time.Hour))
		if matchesTopic(e) {
			weekly[w]++
		}
		if w >= 8 {
			all++
		}
	}
	last4, prev4 := weekly[8]+weekly[9]+weekly[10]+weekly[11], weekly[4]+weekly[5]+weekly[6]+weekly[7]
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	if m.Last4 != last4 || m.Prev4 != prev4 || m.ChangePct == nil || *m.ChangePct != round(float64(last4-prev4)/float64(prev4)*100) ||
		m.SharePct == nil || *m.SharePct != round(float64(last4)/float64(all)*100) || m.Source != "arxiv" {
		ts.Fatalf("momentum %+v; the feed has %d vs %d, %d new papers in all", m, last4, prev4, all)
	}
	for i, w := range m.Weekly {
		if w.Count != weekly[i] || w.Start != start.AddDate(0, 0, 7*i).Format("2006-01-02") {
			ts.Fatalf("week %d = %+v, the feed has %d from %s", i, w, weekly[i], start.AddDate(0, 0, 7*i).Format("2006-01-02"))
		}
	}
	ts.Logf("momentum matches the feed: %d vs %d, weekly %v", last4, prev4, weekly)
}

// checkdigest FILE DAYS checks papers digest --format json output: exactly
// the topic's papers of the last DAYS days, newest first.
func checkDigest(ts *testscript.TestScript, neg bool, args []string) {
	var d struct {
		Papers []struct {
			ID, Summary, Published, URL string
		} `json:"papers"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &d))
	days, err := strconv.Atoi(args[1])
	ts.Check(err)
	since := time.Now().AddDate(0, 0, -days)
	var want []arxiv.Entry
	for _, e := range feedOf(ts).entries {
		if matchesTopic(e) && !e.Published.Before(since) {
			want = append(want, e)
		}
	}
	slices.SortFunc(want, func(a, b arxiv.Entry) int { return b.Published.Compare(a.Published) })
	var got, wantIDs []string
	for _, p := range d.Papers {
		got = append(got, p.ID)
		if p.Summary == "" || p.URL == "" {
			ts.Fatalf("paper %s has no summary or url", p.ID)
		}
	}
	for _, e := range want {
		wantIDs = append(wantIDs, e.ID)
	}
	if len(wantIDs) == 0 || !slices.Equal(got, wantIDs) {
		ts.Fatalf("digest papers %v, want the window's %v", got, wantIDs)
	}
}

// fakellm starts an OpenAI-compatible chat server for the rest of the
// script and points papers at it: a one-paper digest prompt gets a summary,
// the overview prompt a paragraph citing [1], [2] and a paper it was never
// given, [99].
func fakeLLM(t *testing.T, ts *testscript.TestScript) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string                           `json:"model"`
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		text := "Two themes: tool use [1] and reasoning [2]. Also [99]."
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "There is one paper") {
			text = "This paper shows something new [1]. It matters."
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20}}`, req.Model, text)
	}))
	t.Cleanup(srv.Close)
	ts.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	ts.Setenv("OPENAI_API_KEY", "test-key")
}
