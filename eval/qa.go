package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/store"
)

// Question is one question of an answer test set, in the format of
// shared/data/qa: the question, the facts a correct answer states
// verbatim, the 1-based pages that state them, and the paper that holds the
// answer, named by a PDF file (`pdf`, found in the PDF directory and matched
// to the library by content hash) or by its library id (`id`). A question
// none of the papers answers has no `expect`; its `near` names the paper it
// sounds about, as `pdf` or `id` do. A question several papers answer
// ("which papers ...") lists them all in `ids`: citing any of them first
// counts as citing the right paper first.
type Question struct {
	Q      string   `json:"q"`
	Expect []string `json:"expect,omitempty"`
	Pages  []int    `json:"pages,omitempty"`
	PDF    string   `json:"pdf,omitempty"`
	ID     string   `json:"id,omitempty"`
	IDs    []string `json:"ids,omitempty"`
	Kind   string   `json:"kind,omitempty"`
	Near   string   `json:"near,omitempty"`

	// Answerable is false for the questions of an unanswerable set.
	Answerable bool `json:"-"`
	// Paper is the library id of the paper named by PDF or ID (Near for an
	// unanswerable question), set by ResolvePapers.
	Paper string `json:"-"`
	// Papers are the library ids of IDs (with Paper), set by ResolvePapers.
	Papers []string `json:"-"`
	// Line is where the question was read ("file:line"), for messages.
	Line string `json:"-"`
}

// ReadQuestions reads a JSONL question set. answerable says which kind
// the file holds: answerable questions need `q`, `expect` and a paper
// (`pdf` or `id`); unanswerable ones need `q` only.
func ReadQuestions(path string, answerable bool) ([]Question, error) {
	qs, err := readJSONL[Question](path)
	if err != nil {
		return nil, err
	}
	for i := range qs {
		q := &qs[i]
		q.Answerable = answerable
		q.Line = path + ":" + strconv.Itoa(i+1)
		switch {
		case strings.TrimSpace(q.Q) == "":
			return nil, fmt.Errorf("%s: the question (\"q\") is empty", q.Line)
		case answerable && len(q.Expect) == 0:
			return nil, fmt.Errorf("%s: an answerable question needs the facts its answer states (\"expect\"); questions no paper answers go in the unanswerable set", q.Line)
		case answerable && q.PDF == "" && q.ID == "" && len(q.IDs) == 0:
			return nil, fmt.Errorf("%s: the question names no paper (\"pdf\" or \"id\")", q.Line)
		}
	}
	return qs, nil
}

// Papers is what resolving the questions' papers needs of the library;
// *store.Library satisfies it.
type Papers interface {
	Get(ctx context.Context, id string) (store.Paper, error)
	FindByHash(ctx context.Context, hash string) (store.Paper, error)
}

// ResolvePapers sets each question's Paper: an `id` must be in lib; a
// `pdf` is a file of pdfDir, found in lib by its content hash (so a PDF
// ingested under any name or id matches). A paper that is not in the
// library is an error naming the question.
func ResolvePapers(ctx context.Context, lib Papers, qs []Question, pdfDir string) error {
	byFile := map[string]string{}
	for i := range qs {
		q := &qs[i]
		q.Papers = nil
		for _, id := range q.IDs {
			p, err := lib.Get(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%s: paper %s is not in the library", q.Line, id)
			}
			if err != nil {
				return err
			}
			q.Papers = append(q.Papers, p.ID)
		}
		file, id := q.PDF, q.ID
		if id == "" && file == "" && len(q.Papers) > 0 {
			q.Paper = q.Papers[0]
			continue
		}
		if !q.Answerable && file == "" && id == "" {
			if q.Near == "" {
				continue
			}
			if strings.HasSuffix(strings.ToLower(q.Near), ".pdf") {
				file = q.Near
			} else {
				id = q.Near
			}
		}
		if file != "" {
			if p, ok := byFile[file]; ok {
				q.Paper = p
				continue
			}
			if pdfDir == "" {
				return fmt.Errorf("%s: the question names the PDF %s: give the directory that holds it (--pdfs DIR)", q.Line, file)
			}
			hash, err := store.HashFile(filepath.Join(pdfDir, file))
			if err != nil {
				return fmt.Errorf("%s: %w", q.Line, err)
			}
			p, err := lib.FindByHash(ctx, hash)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%s: %s is not in the library: ingest it first (papers ingest %s)", q.Line, file, filepath.Join(pdfDir, file))
			}
			if err != nil {
				return err
			}
			byFile[file] = p.ID
			q.Paper = p.ID
			continue
		}
		p, err := lib.Get(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%s: paper %s is not in the library", q.Line, id)
		}
		if err != nil {
			return err
		}
		q.Paper = p.ID
	}
	return nil
}

// Answer is what scoring needs of one answer (the fields of ask's Result
// that matter here).
type Answer struct {
	Text      string
	Citations []Cited // in the order the answer cites them
	Abstained bool    // the answer says the library holds no evidence
	Warnings  []string
	// Retrieval is the part of the answer's time spent retrieving.
	Retrieval time.Duration
}

// Cited is one source an answer cites.
type Cited struct {
	ID    string // the paper's library id
	Pages string // "3", "3-4"; "" for the title and abstract
}

// AskFunc answers one question, from the papers with the given ids when
// papers is not empty, else from the whole library. Abstaining is an
// Answer with Abstained set, not an error.
type AskFunc func(ctx context.Context, question string, papers []string) (Answer, error)

// QAOptions tune RunQA.
type QAOptions struct {
	// WithinPaper asks each question of its own paper only (as
	// `papers ask --paper ID` does); an unanswerable question of the paper
	// it is near, or of the whole library when it names none.
	WithinPaper bool
	// PDFDir holds the PDFs the questions name (see ResolvePapers).
	PDFDir string
	// Progress, if not nil, is called after each question.
	Progress func(done, total int)
}

// Rate is a count out of a number of questions; Share is N/Of (0 when Of
// is 0).
type Rate struct {
	N     int     `json:"n"`
	Of    int     `json:"of"`
	Share float64 `json:"share"`
}

func (r *Rate) add(ok bool) {
	r.Of++
	if ok {
		r.N++
	}
}

func (r *Rate) done() {
	if r.Of > 0 {
		r.Share = round4(float64(r.N) / float64(r.Of))
	}
}

// QALatency summarises per-question times in milliseconds.
type QALatency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Mean float64 `json:"mean"`
}

// QAReport is the outcome of a question set; its JSON field names are a
// stable interface (papers eval --questions --json).
type QAReport struct {
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// PaperFirst: answerable questions whose answer cites the paper holding
	// the answer first.
	PaperFirst Rate `json:"paper_first"`
	// PageCited: answerable questions with pages whose answer cites a
	// passage of that paper spanning one of them.
	PageCited Rate `json:"page_cited"`
	// FactStated: answerable questions whose answer contains every
	// expected string (case-insensitive, whitespace and citation markers
	// ignored).
	FactStated Rate `json:"fact_stated"`
	// FactEarly: answerable questions whose answer's first two sentences
	// state every expected string (the answer comes first).
	FactEarly Rate `json:"fact_early"`
	// MedianWords is the median length of the answers given (not
	// abstentions), in words, citation markers left out.
	MedianWords float64 `json:"median_words"`
	// NoDebris: answers given that quote no layout debris (a caption, a
	// reference-list entry, a run of table numbers; see Debris).
	NoDebris Rate `json:"no_debris"`
	// Abstained: unanswerable questions the answer abstained on.
	Abstained Rate `json:"abstained"`
	// WrongAbstained: answerable questions the answer abstained on.
	WrongAbstained Rate `json:"wrong_abstained"`
	// Errors: questions whose answer failed (a model error, say).
	Errors int `json:"errors"`
	// Latency is the whole answer, retrieval included; AnswerLatency what
	// it took beyond retrieval.
	Latency       QALatency  `json:"latency_ms"`
	AnswerLatency QALatency  `json:"answer_latency_ms"`
	Questions     []QADetail `json:"questions"`
}

// QADetail is one question's outcome, for reading the failures.
type QADetail struct {
	Q          string   `json:"q"`
	Line       string   `json:"line"`
	Kind       string   `json:"kind,omitempty"`
	Answerable bool     `json:"answerable"`
	Paper      string   `json:"paper,omitempty"`
	Pages      []int    `json:"pages,omitempty"`
	Abstained  bool     `json:"abstained"`
	PaperFirst bool     `json:"paper_first"`
	PageCited  bool     `json:"page_cited"`
	FactStated bool     `json:"fact_stated"`
	FactEarly  bool     `json:"fact_early"`
	Words      int      `json:"words"`
	Debris     string   `json:"debris,omitempty"`  // what debris the answer quotes
	Missing    []string `json:"missing,omitempty"` // expected strings the answer lacks
	Answer     string   `json:"answer"`
	Cited      []string `json:"cited"` // "id p.3" per citation, in order
	Warnings   []string `json:"warnings,omitempty"`
	Error      string   `json:"error,omitempty"`
	LatencyMS  float64  `json:"latency_ms"`
}

// RunQA resolves the questions' papers in lib (see ResolvePapers), asks
// every question, one at a time, and scores the answers. A question whose answer fails is counted
// in Errors and the run goes on, unless it is the first question asked (a
// setup error: no key, no server) or the context ends: then that error is
// returned.
func RunQA(ctx context.Context, lib Papers, askf AskFunc, qs []Question, opts QAOptions) (QAReport, error) {
	rep := QAReport{Questions: []QADetail{}}
	if err := ResolvePapers(ctx, lib, qs, opts.PDFDir); err != nil {
		return rep, err
	}
	var total, answer []time.Duration
	var words []float64
	for i, q := range qs {
		var within []string
		if opts.WithinPaper && q.Paper != "" {
			within = append([]string{q.Paper}, q.Papers...)
		}
		start := time.Now()
		a, err := askf(ctx, q.Q, within)
		took := time.Since(start)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		d := QADetail{Q: q.Q, Line: q.Line, Kind: q.Kind, Answerable: q.Answerable, Paper: q.Paper, Pages: q.Pages,
			Cited: []string{}, Warnings: a.Warnings, LatencyMS: ms(took), Abstained: a.Abstained}
		if err != nil {
			if i == 0 {
				return rep, err
			}
			rep.Errors++
			d.Error = err.Error()
		} else {
			total = append(total, took)
			answer = append(answer, took-a.Retrieval)
			if !a.Abstained {
				score(&d, q, a)
				words = append(words, float64(d.Words))
				rep.NoDebris.add(d.Debris == "")
			}
		}
		if q.Answerable {
			rep.Answerable++
			rep.PaperFirst.add(d.PaperFirst)
			if len(q.Pages) > 0 {
				rep.PageCited.add(d.PageCited)
			}
			rep.FactStated.add(d.FactStated)
			rep.FactEarly.add(d.FactEarly)
			rep.WrongAbstained.add(d.Abstained)
		} else {
			rep.Unanswerable++
			rep.Abstained.add(d.Abstained)
		}
		rep.Questions = append(rep.Questions, d)
		if opts.Progress != nil {
			opts.Progress(i+1, len(qs))
		}
	}
	for _, r := range []*Rate{&rep.PaperFirst, &rep.PageCited, &rep.FactStated, &rep.FactEarly, &rep.NoDebris, &rep.Abstained, &rep.WrongAbstained} {
		r.done()
	}
	if len(words) > 0 {
		slices.Sort(words)
		rep.MedianWords = words[(len(words)-1)/2]
	}
	rep.Latency = qaLatency(total)
	rep.AnswerLatency = qaLatency(answer)
	return rep, nil
}

// score fills d from an answer that did not abstain.
func score(d *QADetail, q Question, a Answer) {
	d.Answer = a.Text
	for i, c := range a.Citations {
		cite := c.ID
		if c.Pages != "" {
			cite += " p." + c.Pages
		}
		d.Cited = append(d.Cited, cite)
		if c.ID != q.Paper && !slices.Contains(q.Papers, c.ID) {
			continue
		}
		if i == 0 {
			d.PaperFirst = true
		}
		if spans(c.Pages, q.Pages) {
			d.PageCited = true
		}
	}
	d.Missing = Missing(a.Text, q.Expect)
	d.FactStated = q.Answerable && len(d.Missing) == 0
	d.FactEarly = d.FactStated && len(Missing(FirstSentences(a.Text, 2), q.Expect)) == 0
	d.Words = len(strings.Fields(citationMarker.ReplaceAllString(a.Text, " ")))
	d.Debris = Debris(a.Text)
}

// FirstSentences returns the first n sentences of an answer (lines and
// sentence ends both end one).
func FirstSentences(text string, n int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		start := 0
		for _, m := range sentenceEnd.FindAllStringSubmatchIndex(line, -1) {
			out = append(out, strings.TrimSpace(line[start:m[3]]))
			start = m[3]
			if len(out) == n {
				return strings.Join(out, " ")
			}
		}
		if rest := strings.TrimSpace(line[start:]); rest != "" {
			out = append(out, rest)
		}
		if len(out) >= n {
			break
		}
	}
	return strings.Join(out[:min(n, len(out))], " ")
}

// sentenceEnd ends a sentence after a period, question or exclamation
// mark (and a closing quote or citation: group 1) followed by a capital
// or an opening quote.
var sentenceEnd = lazyre.New(`([.!?][”"’)]?(?:\s*\[\d+\])*)\s+[“"(]?[A-Z]`)

// Debris names layout debris an answer quotes as prose, "" for none: a
// figure or table caption, a reference-list entry, or a run of numbers
// from a table or axis. It is the measure of the answers issue, written
// apart from the filters ask applies.
func Debris(text string) string {
	for _, line := range strings.Split(text, "\n") {
		l := strings.Trim(strings.TrimSpace(line), "“”\"-• ")
		switch {
		case captionRe.MatchString(l):
			return "caption: " + clip(l)
		case referenceRe.MatchString(l):
			return "reference: " + clip(l)
		case numberRunRe.MatchString(l):
			return "numbers: " + clip(l)
		}
	}
	return ""
}

var (
	captionRe   = lazyre.New(`^(?:Figure|Fig\.|Table|Tab\.)\s*\d+[a-z]?\s*[:.|]`)
	referenceRe = lazyre.New(`^(?:\[\d+\]\s+)?(?:[A-Z][\p{L}'-]+,\s+(?:[A-Z]\.\s*)+(?:,|and)\s+){1,}.*\b(?:19|20)\d\d\b|(?:Proceedings of|In Proc\.|arXiv preprint arXiv:\d)`)
	numberRunRe = lazyre.New(`(?:^|\s)(?:[-+]?\d+(?:[.,]\d+)?%?\s+){6,}`)
)

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// spans reports whether a citation's page span ("3", "3-4", "" for the
// abstract) holds one of pages.
func spans(span string, pages []int) bool {
	if span == "" {
		return false
	}
	a, b, found := strings.Cut(span, "-")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if !found {
		hi, err2 = lo, nil
	}
	if err1 != nil || err2 != nil {
		return false
	}
	for _, p := range pages {
		if p >= lo && p <= hi {
			return true
		}
	}
	return false
}

var citationMarker = lazyre.New(`\[\d+(?:\s*[,;–-]\s*\d+)*\]`)

// Missing returns the expected strings that answer does not contain,
// compared as shared/data/qa defines: case-insensitive, whitespace ignored;
// the answer's citation markers ([1], [2, 3]) are not part of its text.
func Missing(answer string, expect []string) []string {
	a := squash(citationMarker.ReplaceAllString(answer, " "))
	var out []string
	for _, e := range expect {
		if !strings.Contains(a, squash(e)) {
			out = append(out, e)
		}
	}
	return out
}

func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

func qaLatency(ds []time.Duration) QALatency {
	if len(ds) == 0 {
		return QALatency{}
	}
	s := summarise(ds)
	return QALatency{P50: ms(s.p50), P95: ms(s.p95), Mean: ms(s.mean)}
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
