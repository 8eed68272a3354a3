package topic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/cost"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
)

// Ranks of a digest's papers.
const (
	RankDate      = "date"      // newest first
	RankRelevance = "relevance" // best match of the topic's query and description (BM25 over title and abstract) first
)

// DigestOptions tune Digest.
type DigestOptions struct {
	// Since selects the papers new to the topic on or after it
	// (store.Library.TopicPapersSince): stored new or revised by an update
	// of the topic since then, or published since then if it was a first
	// update's backfill. Required.
	Since time.Time
	Rank  string // RankDate (default) or RankRelevance
	// LLM writes the summaries and the overview; nil means offline: each
	// summary is the abstract's key-contribution sentence and there is no
	// overview.
	LLM llm.LLM
	// Max bounds the papers (default 50); the overview is written from at
	// most the first 30.
	Max int
	// Workers bounds the model calls at once (default 4).
	Workers int
	// Tags, if any, keeps only the papers with one of these tags
	// (store.Filter.Tags).
	Tags []string
	// Now is when the digest is made, for the wider window an empty one
	// suggests (zero: time.Now()).
	Now time.Time
}

// DigestPaper is one paper of a digest.
type DigestPaper struct {
	N         int      `json:"n"` // what the overview cites as [n]
	ID        string   `json:"id"`
	Version   int      `json:"version"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	Published string   `json:"published"` // YYYY-MM-DD
	Summary   string   `json:"summary"`   // one or two sentences on what is new
	URL       string   `json:"url"`
	ArxivID   string   `json:"arxiv_id,omitempty"` // set when the paper is on arXiv (its label is then arXiv:ID)
}

// Label is how a digest cites the paper: "arXiv:2501.12948" for a paper on
// arXiv, else its library id ("topic-001", "pdf:af3b60c8ad85c10b").
func (p DigestPaper) Label() string { return paperLabel(p.ID, p.ArxivID) }

func paperLabel(id, arxivID string) string {
	if arxivID != "" {
		return "arXiv:" + arxivID
	}
	return id
}

// DigestResult is a topic's digest; it is the --json document of
// `papers digest` (field names are stable).
type DigestResult struct {
	Topic string `json:"topic"`
	Since string `json:"since"` // YYYY-MM-DD
	// Overview opens the digest, citing papers as [n]: written by the
	// model, or offline the Themes, one line each.
	Overview string `json:"overview"`
	// Themes group the papers by the tags, key terms and categories they
	// share (Themes); empty for fewer than four papers.
	Themes   []Theme       `json:"themes"`
	Mode     string        `json:"mode"` // "llm" or "extractive"
	Model    string        `json:"model,omitempty"`
	Papers   []DigestPaper `json:"papers"`
	Warnings []string      `json:"warnings"`
	// Wider is, when the window holds no paper of the topic, the nearest
	// wider window that holds some; nil otherwise, or when the topic holds
	// none.
	Wider *Window `json:"wider,omitempty"`
}

// Window is a window of a digest: --since Span, from Since, holding Papers.
type Window struct {
	Span   string `json:"span"`  // as --since takes it: "4w", "1y"
	Since  string `json:"since"` // YYYY-MM-DD
	Papers int    `json:"papers"`
}

// Digest collects the topic's papers new since opts.Since (a paper arXiv
// announced days after its submission, or revised, counts from when an
// update stored it) and summarises each, newest published first. Only papers of the window are listed, and the overview
// may cite only them: citations of numbers outside the list are removed and
// reported in Warnings.
func Digest(ctx context.Context, lib *store.Library, t store.Topic, opts DigestOptions) (*DigestResult, error) {
	max := opts.Max
	if max <= 0 {
		max = 50
	}
	ids, err := lib.TopicPapersSince(ctx, t.Name, opts.Since)
	if err != nil {
		return nil, fmt.Errorf("digest of %s: %w", t.Name, err)
	}
	var ps []store.Paper
	if len(ids) > 0 { // no ids in a Filter selects every paper
		if ps, err = lib.List(ctx, store.Filter{IDs: ids, Topics: []string{t.Name}, Tags: opts.Tags}); err != nil {
			return nil, fmt.Errorf("digest of %s: %w", t.Name, err)
		}
	}
	if opts.Rank == RankRelevance {
		score := relevance(queryTerms(t.Query)+" "+t.Description, ps)
		slices.SortStableFunc(ps, func(a, b store.Paper) int { return cmp.Compare(score[b.ID], score[a.ID]) }) // List's order (newest) breaks ties
	}
	if len(ps) > max {
		ps = ps[:max]
	}
	res := &DigestResult{Topic: t.Name, Since: opts.Since.UTC().Format("2006-01-02"), Mode: "extractive", Themes: []Theme{}, Papers: []DigestPaper{}, Warnings: []string{}}
	for i, p := range ps {
		res.Papers = append(res.Papers, DigestPaper{
			N: i + 1, ID: p.ID, Version: p.Version, Title: p.Title, Authors: nonNil(p.Authors),
			Published: p.Published.UTC().Format("2006-01-02"), URL: cite.URL(p), ArxivID: p.ArxivID,
			Summary: KeySentence(p.Abstract),
		})
	}
	if themes := Themes(ps, t.Name+" "+queryTerms(t.Query)+" "+t.Description); themes != nil {
		res.Themes = themes
		res.Overview = overviewText(themes, ps)
	}
	if len(ps) == 0 {
		if res.Wider, err = wider(ctx, lib, t, opts); err != nil {
			return nil, fmt.Errorf("digest of %s: %w", t.Name, err)
		}
	}
	if opts.LLM == nil || len(ps) == 0 {
		return res, nil
	}
	res.Mode, res.Model = "llm", opts.LLM.Model()

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmpOr(opts.Workers, 4))
	// A call the cost cap refuses (cost.ErrOverBudget) stops no other: the
	// papers it would have summarised keep their abstract's key sentence,
	// the themes' overview stays, and what the calls before it wrote is
	// kept.
	var refused atomic.Int32
	var capMu sync.Mutex
	var capErr error // the first refusal
	refuse := func(err error) {
		capMu.Lock()
		if capErr == nil {
			capErr = err
		}
		capMu.Unlock()
	}
	for i, p := range ps {
		g.Go(func() error {
			s, err := summarise(gctx, opts.LLM, t, p)
			if errors.Is(err, cost.ErrOverBudget) {
				refused.Add(1)
				refuse(err)
				return nil
			}
			if err != nil {
				return fmt.Errorf("summarise %s: %w", p.ID, err)
			}
			if s != "" {
				res.Papers[i].Summary = s
			}
			return nil
		})
	}
	var overview string
	overviewRefused := false
	g.Go(func() error {
		var err error
		overview, err = writeOverview(gctx, opts.LLM, t, res.Since, ps[:min(len(ps), 30)], res)
		if errors.Is(err, cost.ErrOverBudget) {
			overviewRefused = true
			refuse(err)
			return nil
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("digest of %s: %w", t.Name, err)
	}
	if overview != "" { // else the themes' overview stays
		res.Overview = overview
	}
	if n := refused.Load(); n > 0 || overviewRefused {
		var kept []string
		if n > 0 {
			kept = append(kept, fmt.Sprintf("%d of %d papers keep their abstract's key sentence", n, len(ps)))
		}
		if overviewRefused {
			kept = append(kept, "the overview is the themes'")
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("stopped at the cost cap (%v): %s", capErr, strings.Join(kept, "; ")))
	}
	return res, nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func passage(n int, p store.Paper) prompts.Passage {
	return prompts.Passage{N: n, Source: fmt.Sprintf("%s, published %s", paperLabel(p.ID, p.ArxivID), p.Published.UTC().Format("2006-01-02")), Title: p.Title, Text: p.Abstract}
}

// summarise asks the model for the digest of one paper, kept to two
// sentences with its citation marks dropped.
func summarise(ctx context.Context, model llm.LLM, t store.Topic, p store.Paper) (string, error) {
	pr, err := prompts.Digest(prompts.DigestInput{Topic: topicLine(t), Papers: []prompts.Passage{passage(1, p)}})
	if err != nil {
		return "", err
	}
	pr.User += "\n\nThere is one paper: answer with one or two sentences saying what it contributes that is new."
	c, err := model.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: pr.System}, {Role: "user", Content: pr.User}}, MaxTokens: 160}, nil)
	if errors.Is(err, llm.ErrEmptyReply) {
		return "", nil // the offline summary stays
	}
	if err != nil {
		return "", err
	}
	s := ask.StripCitations(safetext.Clean(c.Text))
	s = strings.Join(strings.Fields(s), " ")
	return firstSentences(s, 2), nil
}

func topicLine(t store.Topic) string {
	if t.Description != "" {
		return t.Name + ": " + t.Description
	}
	return t.Name + " (arXiv query: " + t.Query + ")"
}

// writeOverview asks the model for the opening paragraph(s) over the papers
// and removes citations of papers it was not given.
func writeOverview(ctx context.Context, model llm.LLM, t store.Topic, since string, ps []store.Paper, res *DigestResult) (string, error) {
	in := prompts.DigestInput{Topic: topicLine(t), Since: since}
	for i, p := range ps {
		in.Papers = append(in.Papers, passage(i+1, p))
	}
	pr, err := prompts.Digest(in)
	if err != nil {
		return "", err
	}
	c, err := model.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: pr.System}, {Role: "user", Content: pr.User}}, MaxTokens: 700}, nil)
	if errors.Is(err, llm.ErrEmptyReply) {
		res.Warnings = append(res.Warnings, "the model wrote no overview")
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("write the overview: %w", err)
	}
	// The citations are checked as ask checks an answer's (the papers are
	// the passages, numbered as listed).
	chk := ask.CheckCitations(safetext.Clean(c.Text), len(ps))
	if len(chk.Invalid) > 0 {
		var bad []string
		for _, n := range chk.Invalid {
			bad = append(bad, "["+strconv.Itoa(n)+"]")
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("removed citations of papers the model was not given: %s", strings.Join(bad, " ")))
	}
	for _, r := range chk.Removed {
		res.Warnings = append(res.Warnings, fmt.Sprintf("removed the overview's sentence %q: it cites only papers the model was not given", r.Sentence))
	}
	if chk.Sources {
		res.Warnings = append(res.Warnings, "dropped the model's own list of sources from the overview")
	}
	return chk.Text, nil
}

// contribution cues, strongest first: a sentence with an earlier cue wins.
var cues = []*lazyre.Regexp{
	lazyre.New(`(?i)\bwe (propose|introduce|present|develop|design|release|build|devise|formulate|contribute)\b`),
	lazyre.New(`(?i)\b(this|our|the present) (paper|work|study|article|note|report) (propose|introduce|present|develop|describe)s?\b`),
	lazyre.New(`(?i)\b(here|in this (paper|work)),? we\b`),
	lazyre.New(`(?i)\bwe (show|find|demonstrate|prove|achieve|obtain|report|describe|study|investigate|analy[sz]e|explore)\b`),
	lazyre.New(`(?i)\b(propose|introduce|present)s?\b`),
}

// KeySentence is the offline summary of an abstract: the sentence that
// states the contribution ("we propose/introduce/present ..."), followed by
// the next sentence when it is short, or else the first sentence.
func KeySentence(abstract string) string {
	ss := Sentences(abstract)
	if len(ss) == 0 {
		return ""
	}
	pick := -1
	for _, cue := range cues {
		for i, s := range ss {
			if cue.MatchString(s) {
				pick = i
				break
			}
		}
		if pick >= 0 {
			break
		}
	}
	if pick < 0 {
		pick = 0
	}
	out := ss[pick]
	if len([]rune(out)) < 60 && pick+1 < len(ss) {
		out += " " + ss[pick+1]
	}
	return out
}

// Sentences splits text into sentences at ., ! or ? followed by a space and
// a capital letter or digit, not after common abbreviations.
func Sentences(text string) []string {
	text = strings.Join(strings.Fields(text), " ")
	var out []string
	start := 0
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '.' && rs[i] != '!' && rs[i] != '?' {
			continue
		}
		if i+2 >= len(rs) || rs[i+1] != ' ' || !(unicode.IsUpper(rs[i+2]) || unicode.IsDigit(rs[i+2])) {
			continue
		}
		if rs[i] == '.' && abbreviation(string(rs[start:i])) {
			continue
		}
		out = append(out, strings.TrimSpace(string(rs[start:i+1])))
		start = i + 2
	}
	if rest := strings.TrimSpace(string(rs[start:])); rest != "" {
		out = append(out, rest)
	}
	return out
}

func abbreviation(before string) bool {
	f := strings.Fields(before)
	if len(f) == 0 {
		return false
	}
	w := strings.ToLower(f[len(f)-1])
	switch w {
	case "e.g", "i.e", "et al", "al", "fig", "eq", "vs", "cf", "sec", "no", "approx", "resp":
		return true
	}
	return len(w) == 1 && unicode.IsLetter(rune(w[0])) // initials: "J. Smith"
}

func firstSentences(s string, n int) string {
	ss := Sentences(s)
	if len(ss) > n {
		ss = ss[:n]
	}
	return strings.Join(ss, " ")
}

// queryTerms are the words of an arXiv query that say what the topic is
// about: field prefixes, operators, categories, authors and dates dropped.
func queryTerms(q string) string {
	var terms []string
	for _, f := range strings.FieldsFunc(q, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(`()"'`, r) }) {
		if k, v, ok := strings.Cut(f, ":"); ok {
			if strings.EqualFold(k, "cat") || strings.EqualFold(k, "au") || strings.HasPrefix(k, "submittedDate") {
				continue
			}
			f = v
		}
		switch strings.ToUpper(f) {
		case "AND", "OR", "ANDNOT", "NOT":
			continue
		}
		terms = append(terms, f)
	}
	return strings.Join(terms, " ")
}

// relevance scores each paper by how well its title (counted twice) and
// abstract match q: BM25 over the papers' stemmed terms, a term weighing
// by how few of the papers have it, plus for each pair of q's adjacent
// terms the paper has adjacent too ("credit assignment", "world model")
// both terms' weights again. So the words that name a subject count, and
// those every paper of the topic has ("agent", "learning") hardly do.
func relevance(q string, ps []store.Paper) map[string]float64 {
	const k1, b = 1.2, 0.75
	query := slices.DeleteFunc(embed.Terms(q), func(t string) bool { return len(t) < 2 }) // "e.g." is no term
	docs := make([][]string, len(ps))
	df := map[string]int{}
	total := 0
	for i, p := range ps {
		title := embed.Terms(p.Title)
		docs[i] = append(append(append([]string(nil), title...), title...), embed.Terms(p.Abstract)...)
		total += len(docs[i])
		for t := range setOfTerms(docs[i]) {
			df[t]++
		}
	}
	out := make(map[string]float64, len(ps))
	if len(ps) == 0 || len(query) == 0 {
		return out
	}
	avg := float64(total) / float64(len(ps))
	idf := func(t string) float64 {
		n := float64(df[t])
		return math.Log(1 + (float64(len(ps))-n+0.5)/(n+0.5))
	}
	qset := setOfTerms(query)
	for i, p := range ps {
		tf := map[string]int{}
		for _, t := range docs[i] {
			tf[t]++
		}
		s := 0.0
		for t := range qset {
			if f := float64(tf[t]); f > 0 {
				s += idf(t) * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(docs[i]))/max(avg, 1)))
			}
		}
		pairs := map[[2]string]bool{}
		for j := 1; j < len(docs[i]); j++ {
			pairs[[2]string{docs[i][j-1], docs[i][j]}] = true
		}
		seen := map[[2]string]bool{}
		for j := 1; j < len(query); j++ {
			pr := [2]string{query[j-1], query[j]}
			if pairs[pr] && !seen[pr] {
				seen[pr] = true
				s += idf(pr[0]) + idf(pr[1])
			}
		}
		out[p.ID] = s
	}
	return out
}

func setOfTerms(ts []string) map[string]bool {
	m := make(map[string]bool, len(ts))
	for _, t := range ts {
		m[t] = true
	}
	return m
}

// spans are the windows an empty digest tries, narrowest first.
var spans = []string{"2w", "4w", "12w", "26w", "1y", "2y", "5y", "20y"}

// wider is the narrowest of spans back from opts.Now whose window holds
// papers of the topic (with the digest's tags), nil when none does.
func wider(ctx context.Context, lib *store.Library, t store.Topic, opts DigestOptions) (*Window, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	for _, span := range spans {
		since, err := resolve.Date(span, now)
		if err != nil {
			return nil, err
		}
		if !since.Before(opts.Since) {
			continue
		}
		ids, err := lib.TopicPapersSince(ctx, t.Name, since)
		if err != nil {
			return nil, err
		}
		n := len(ids)
		if n > 0 && len(opts.Tags) > 0 {
			ps, err := lib.List(ctx, store.Filter{IDs: ids, Topics: []string{t.Name}, Tags: opts.Tags, Brief: true})
			if err != nil {
				return nil, err
			}
			n = len(ps)
		}
		if n > 0 {
			return &Window{Span: span, Since: since.UTC().Format("2006-01-02"), Papers: n}, nil
		}
	}
	return nil, nil
}

// WriteMarkdown renders a digest as Markdown fit for an e-mail body.
func WriteMarkdown(w io.Writer, d *DigestResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: papers since %s\n\n", d.Topic, d.Since)
	if len(d.Papers) == 0 {
		b.WriteString("No new papers in this window.")
		if d.Wider != nil {
			fmt.Fprintf(&b, " The nearest wider window with papers: --since %s (since %s) holds %d.", d.Wider.Span, d.Wider.Since, d.Wider.Papers)
		}
		b.WriteString("\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	if d.Overview != "" {
		b.WriteString(d.Overview + "\n\n")
	}
	if d.Mode == "extractive" {
		b.WriteString("_Summaries are each abstract's key sentence, extracted (no model)._\n\n")
	}
	for _, p := range d.Papers {
		fmt.Fprintf(&b, "%d. **%s**  \n   %s (%s). %s", p.N, safetext.OneLine(p.Title), authors(p.Authors), p.Published, p.Label())
		if p.URL != "" {
			fmt.Fprintf(&b, " <%s>", p.URL)
		}
		b.WriteString("  \n")
		if p.Summary != "" {
			fmt.Fprintf(&b, "   %s\n", p.Summary)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// authors is the digest's author line: cite.Authors, or "Unknown authors".
func authors(as []string) string {
	if a := cite.Authors(as); a != "" {
		return a
	}
	return "Unknown authors"
}
