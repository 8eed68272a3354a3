package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
)

// The tools that only read the library.

type searchIn struct {
	Query    string `json:"query" jsonschema:"words, names, methods or claims to find"`
	K        int    `json:"k,omitempty" jsonschema:"passages in all (default 10, max 50)"`
	Mode     string `json:"mode,omitempty" jsonschema:"hybrid (default), bm25 or dense"`
	PerPaper *int   `json:"per_paper,omitempty" jsonschema:"most passages per paper (default 3; 0: all)"`
	Full     bool   `json:"full,omitempty" jsonschema:"rows with section, chunk, score"`
	Filters
	Budget
}

// Passage is one passage found, with where it is. Section, Chunk and
// Score are given with full.
type Passage struct {
	ID      string  `json:"id"`
	Version int     `json:"version"`
	Title   string  `json:"title"`
	Pages   string  `json:"pages"`
	Section string  `json:"section,omitempty"`
	Chunk   string  `json:"chunk,omitempty"`
	Score   float64 `json:"score,omitempty"`
	Role    string  `json:"role,omitempty"` // caption, table, ...; none for body text
	Text    string  `json:"text"`
}

type searchOut struct {
	Passages   []Passage `json:"passages"`
	NextCursor string    `json:"next_cursor,omitempty"`
	Note       string    `json:"note,omitempty"`
}

const maxK = 50

// found is what a search found, best first, with the note when nothing was.
type found struct {
	passages []retrieve.Passage
	note     string
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
	out := searchOut{Passages: []Passage{}}
	b := in.Budget
	in.Budget = Budget{}
	max, at, err := b.start("search", in, defaultBudget)
	if err != nil {
		return out, err
	}
	f, err := s.find(ctx, in)
	if err != nil {
		return out, err
	}
	out.Note = f.note
	rows := make([]Passage, len(f.passages))
	for i, p := range f.passages {
		rows[i] = Passage{ID: p.PaperID, Version: p.Paper.Version, Title: safetext.Clean(p.Paper.Title), Pages: p.Pages(), Text: p.Text}
		if r := p.Role.OfChunk(); r != role.Body {
			rows[i].Role = string(r)
		}
		if in.Full {
			rows[i].Section, rows[i].Chunk, rows[i].Score = p.Section, p.ChunkID, round4(p.Score)
		}
	}
	err = page(&out, &out.Passages, rows, at, max, &out.NextCursor,
		func(at int) string { return makeCursor("search", in, at) },
		func(p Passage, n int) Passage {
			p.Text = cut(p.Text, n-jsonLen(Passage{ID: p.ID, Version: p.Version, Title: p.Title, Pages: p.Pages, Role: p.Role}))
			return p
		})
	return out, err
}

// find runs the search of in, as papers search does.
func (s *Server) find(ctx context.Context, in searchIn) (found, error) {
	if strings.TrimSpace(in.Query) == "" {
		return found{}, errors.New("query is empty")
	}
	mode, err := retrieve.ParseMode(in.Mode)
	if err != nil {
		return found{}, err
	}
	k := in.K
	if k <= 0 {
		k = library.SearchK
	}
	if k > maxK {
		return found{}, hint.With(fmt.Errorf("k must be at most %d, got %d", maxK, k), "ask for fewer passages, or narrow with filters")
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return found{}, err
	}
	f, err := in.names().Resolve(ctx, lib, time.Now())
	if err != nil {
		return found{}, err
	}
	ps, _, err := s.lib.Search(ctx, in.Query, library.SearchOptions{K: k, Mode: mode, PerPaper: in.PerPaper, Filter: f})
	if err != nil {
		return found{}, err
	}
	out := found{passages: ps}
	if len(ps) == 0 {
		if len(embed.ContentWords(in.Query)) == 0 {
			out.note = "the query has only words too common to search for: add the words that matter (a name, a method, a result)"
		} else {
			out.note = "nothing in the library matches this query: try other words, mode dense, fewer filters, or ingest more papers"
		}
	}
	return out, nil
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

type askIn struct {
	Question string `json:"question" jsonschema:"the question, in a sentence"`
	Mode     string `json:"mode,omitempty" jsonschema:"auto (default), extractive (no model), model or quality"`
	K        int    `json:"k,omitempty" jsonschema:"passages to answer from"`
	Filters
	MaxChars int `json:"max_chars,omitempty" jsonschema:"result size limit in characters (default 6000): citations' passages are cut to fit"`
}

// askOut is an answer: the text with [n] marks and the passage each
// citation rests on, and the papers most like those it cites that it
// does not cite.
type askOut struct {
	Question  string        `json:"question"`
	Answer    string        `json:"answer"`
	Abstained bool          `json:"abstained" jsonschema:"true: the library holds no evidence; say so rather than guess"`
	Mode      string        `json:"mode"`
	Model     string        `json:"model,omitempty"`
	Citations []askCitation `json:"citations"`
	SeeAlso   []PaperRow    `json:"see_also"`
	Warnings  []string      `json:"warnings,omitempty"`
	Usage     *llm.Usage    `json:"usage,omitempty"`
	Note      string        `json:"note,omitempty"`
}

// askCitation is a citation of an answer: [N] in the text.
type askCitation struct {
	N       int    `json:"n"`
	ID      string `json:"id"`
	Version int    `json:"version"`
	Title   string `json:"title"`
	Pages   string `json:"pages"`
	Passage string `json:"passage"`
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*askOut, error) {
	max, err := Budget{MaxChars: in.MaxChars}.budget(defaultBudget)
	if err != nil {
		return nil, err
	}
	res, lib, err := s.answer(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &askOut{Question: res.Question, Answer: res.Answer, Abstained: res.Abstained, Mode: res.Mode, Model: res.Model,
		Citations: []askCitation{}, SeeAlso: []PaperRow{}, Warnings: res.Warnings}
	if res.Usage != (llm.Usage{}) {
		u := res.Usage
		out.Usage = &u
	}
	for _, c := range res.Citations {
		out.Citations = append(out.Citations, askCitation{N: c.N, ID: c.ID, Version: c.Version, Title: c.Title, Pages: c.Pages, Passage: c.Passage})
	}
	if !res.Abstained {
		sa, err := related.SeeAlso(ctx, lib, res.CitedPapers(), related.SeeAlsoK)
		if err != nil {
			return nil, err
		}
		for _, r := range sa {
			out.SeeAlso = append(out.SeeAlso, rowOf(r.Paper))
		}
	}
	return out, fitAnswer(out, max)
}

// fitAnswer fits the answer in limit characters, cutting first the
// citations' passages, the longest first, then the see_also rows, then the
// answer itself, saying so in Note; never the citations, which the
// answer's [n] marks name. An answer that cannot fit is an error.
func fitAnswer(out *askOut, limit int) error {
	for over := jsonLen(out) - limit; over > 0; over = jsonLen(out) - limit {
		longest := -1
		for i, c := range out.Citations {
			if longest < 0 || len(c.Passage) > len(out.Citations[longest].Passage) {
				longest = i
			}
		}
		if longest < 0 || out.Citations[longest].Passage == "" {
			break
		}
		p := &out.Citations[longest].Passage
		*p = cut(*p, len([]rune(*p))-over-1)
		out.Note = "passages are cut to fit max_chars; read_paper gives them whole"
	}
	for len(out.SeeAlso) > 0 && jsonLen(out) > limit {
		out.SeeAlso = out.SeeAlso[:len(out.SeeAlso)-1]
	}
	if over := jsonLen(out) - limit; over > 0 {
		out.Note = "the answer is cut to fit max_chars: ask again with a larger max_chars"
		out.Answer = cut(out.Answer, max(0, len([]rune(out.Answer))-over))
		for jsonLen(out) > limit && out.Answer != "" {
			out.Answer = cut(out.Answer, len([]rune(out.Answer))-10)
		}
	}
	if jsonLen(out) > limit {
		return fmt.Errorf("max_chars %d is too small for this answer and its citations: give at least %d", limit, jsonLen(out))
	}
	return nil
}

// answer is the answer of ask, and the library it came from.
func (s *Server) answer(ctx context.Context, in askIn) (*ask.Result, *store.Library, error) {
	if strings.TrimSpace(in.Question) == "" {
		return nil, nil, errors.New("the question is empty")
	}
	if in.K < 0 || in.K > maxK {
		return nil, nil, fmt.Errorf("k must be from 1 to %d, got %d", maxK, in.K)
	}
	var opts library.AskOptions
	switch in.Mode {
	case "", "auto", "model", "llm", "quality":
		model, err := s.lib.LLM()
		if err != nil {
			return nil, nil, err
		}
		if model == nil && in.Mode != "" && in.Mode != "auto" {
			return nil, nil, hint.With(fmt.Errorf("mode %s needs a language model, and none is configured", in.Mode),
				"start the server with --llm openai:MODEL (and OPENAI_API_KEY) or --llm ollama:MODEL, or use mode extractive")
		}
		opts.Quality = in.Mode == "quality"
	case "extractive":
		opts.Extractive = true
	default:
		return nil, nil, fmt.Errorf("unknown mode %q (want auto, extractive, model or quality)", in.Mode)
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	f, err := in.names().Resolve(ctx, lib, time.Now())
	if err != nil {
		return nil, nil, err
	}
	opts.K, opts.Filter = in.K, f
	res, err := s.lib.Ask(ctx, in.Question, opts, nil)
	if errors.Is(err, ask.ErrNoEvidence) && res != nil {
		return res, lib, nil // abstained: a result, not a failure
	}
	if err != nil {
		return nil, nil, err
	}
	return res, lib, nil
}

// PaperRow is a paper in a compact row: what identifies and dates it.
type PaperRow struct {
	ID        string   `json:"id"`
	Version   int      `json:"version"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	Published string   `json:"published"`
	Score     float64  `json:"score,omitempty"`
}

// rowOf is p's compact row: at most three authors, "et al." for more.
func rowOf(p store.Paper) PaperRow {
	as := orEmpty(p.Authors)
	if len(as) > 3 {
		as = append(as[:3:3], "et al.")
	}
	return PaperRow{ID: p.ID, Version: p.Version, Title: safetext.Clean(p.Title), Authors: as, Published: textkit.Day(p.Published)}
}

// PaperSummary is a paper's whole record as list_papers gives it with full.
type PaperSummary struct {
	ID         string      `json:"id"`
	Version    int         `json:"version"`
	Title      string      `json:"title"`
	Authors    []string    `json:"authors"`
	Published  string      `json:"published"`
	Updated    string      `json:"updated"`
	Categories []string    `json:"categories"`
	Pages      int         `json:"pages"`
	Chunks     int         `json:"chunks"`
	Source     string      `json:"source"`
	URL        string      `json:"url"`
	ArxivID    string      `json:"arxiv_id,omitempty"`
	DOI        string      `json:"doi,omitempty"`
	Venue      string      `json:"venue,omitempty"`
	Tags       []store.Tag `json:"tags"`
	Saved      bool        `json:"saved"`
	SavedAt    string      `json:"saved_at,omitempty"`
	Resource   string      `json:"resource"`
	Score      float64     `json:"score,omitempty"`
}

func summary(p store.Paper) PaperSummary {
	out := PaperSummary{ID: p.ID, Version: p.Version, Title: safetext.Clean(p.Title), Authors: orEmpty(p.Authors),
		Published: textkit.Day(p.Published), Updated: textkit.Day(p.Updated), Categories: orEmpty(p.Categories),
		Pages: p.Pages, Chunks: p.Chunks, Source: p.Source, URL: p.URL, ArxivID: p.ArxivID, DOI: p.DOI, Venue: p.Venue,
		Tags: orEmpty(p.Tags), Saved: !p.Saved.IsZero(), Resource: resourceURI(p.ID)}
	if out.Saved {
		out.SavedAt = p.Saved.UTC().Format(time.RFC3339)
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type listIn struct {
	Limit int  `json:"limit,omitempty" jsonschema:"most papers a call (default 50, max 500)"`
	Full  bool `json:"full,omitempty" jsonschema:"whole records"`
	Filters
	Budget
}

// listOut has Papers of PaperRow, or of PaperSummary with full.
type listOut struct {
	Papers     any    `json:"papers" jsonschema:"newest published first"`
	NextCursor string `json:"next_cursor,omitempty"`
}

func (s *Server) listPapers(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (listOut, error) {
	out := listOut{Papers: []PaperRow{}}
	b := in.Budget
	in.Budget = Budget{}
	max, at, err := b.start("list_papers", in, defaultBudget)
	if err != nil {
		return out, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	if limit > 500 {
		return out, fmt.Errorf("limit must be at most 500, got %d", limit)
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	f, err := in.names().Resolve(ctx, lib, time.Now())
	if err != nil {
		return out, err
	}
	f.Limit, f.Offset, f.Brief = limit+1, at, true // one more: is there a next page?
	ps, err := lib.List(ctx, f)
	if err != nil {
		return out, err
	}
	// the rows are at..at+len(ps) of the whole list: paged from 0 here
	cursorAt := func(i int) string { return makeCursor("list_papers", in, at+i) }
	more := len(ps) > limit
	if more {
		ps = ps[:limit]
	}
	if in.Full {
		rows := make([]PaperSummary, len(ps))
		for i, p := range ps {
			rows[i] = summary(p)
		}
		var got []PaperSummary
		out.Papers = &got // the rows page measures are the result's
		err = page(&out, &got, rows, 0, max, &out.NextCursor, cursorAt, nil)
	} else {
		rows := make([]PaperRow, len(ps))
		for i, p := range ps {
			rows[i] = rowOf(p)
		}
		var got []PaperRow
		out.Papers = &got // the rows page measures are the result's
		err = page(&out, &got, rows, 0, max, &out.NextCursor, cursorAt, nil)
	}
	if err == nil && out.NextCursor == "" && more {
		out.NextCursor = cursorAt(limit)
	}
	return out, err
}

type paperIn struct {
	ID string `json:"id" jsonschema:"arXiv id in any form, or library id"`
	Budget
}

// Section is a stretch of a paper under one heading.
type Section struct {
	Title     string `json:"title"`
	PageStart int    `json:"page_start"`
	PageEnd   int    `json:"page_end"`
	Start     int    `json:"start"` // where it starts in the text: a start for read_paper
}

type paperOut struct {
	PaperSummary
	Abstract       string            `json:"abstract"`
	Affiliations   []string          `json:"affiliations,omitempty"`
	Comment        string            `json:"comment,omitempty"`
	JournalRef     string            `json:"journal_ref,omitempty"`
	Type           string            `json:"type,omitempty"`
	Issued         string            `json:"issued,omitempty"`
	Publisher      string            `json:"publisher,omitempty"`
	MetadataSource map[string]string `json:"metadata_source,omitempty"`
	TextError      string            `json:"text_error,omitempty"`
	TextChars      int               `json:"text_chars"`
	Sections       []Section         `json:"sections"`
	NextCursor     string            `json:"next_cursor,omitempty"`
	Note           string            `json:"note,omitempty"`
}

// paper resolves ref and reads its chunks; note says when ref asked for
// another version than the one held.
func (s *Server) paper(ctx context.Context, ref string) (store.Paper, []store.Chunk, string, error) {
	if strings.TrimSpace(ref) == "" {
		return store.Paper{}, nil, "", errors.New("no paper id given")
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return store.Paper{}, nil, "", err
	}
	p, err := resolve.Paper(ctx, lib, ref)
	if err != nil {
		return p, nil, "", err
	}
	note := ""
	if _, v, err := arxiv.ParseID(ref); err == nil && v > 0 && p.Version > 0 && v != p.Version {
		note = fmt.Sprintf("%sv%d asked for, but the library holds %sv%d: showing v%d", p.ID, v, p.ID, p.Version, p.Version)
	}
	chunks, err := lib.Chunks(ctx, p.ID)
	return p, chunks, note, err
}

func (s *Server) getPaper(ctx context.Context, _ *mcp.CallToolRequest, in paperIn) (paperOut, error) {
	b := in.Budget
	in.Budget = Budget{}
	max, at, err := b.start("get_paper", in, defaultBudget)
	if err != nil {
		return paperOut{}, err
	}
	p, chunks, note, err := s.paper(ctx, in.ID)
	if err != nil {
		return paperOut{}, err
	}
	t := textOf(chunks)
	out := paperOut{PaperSummary: summary(p), Abstract: safetext.Clean(p.Abstract), Affiliations: p.Affiliations, Comment: p.Comment,
		JournalRef: p.JournalRef, Type: p.Type, Issued: p.Issued, Publisher: p.Publisher, MetadataSource: p.MetadataSource,
		TextError: p.TextError, TextChars: t.chars(), Note: note}
	if at > 0 {
		out.Abstract = "" // given by the first call
	}
	// the record and abstract leave room for a few sections at least
	for room := max * 3 / 4; jsonLen(out) > room && out.Abstract != ""; {
		out.Abstract = cut(out.Abstract, len([]rune(out.Abstract))-(jsonLen(out)-room)-1)
		out.Note = strings.TrimPrefix(out.Note+"; the abstract is cut to fit max_chars", "; ")
	}
	err = page(&out, &out.Sections, t.sections(), at, max, &out.NextCursor,
		func(at int) string { return makeCursor("get_paper", in, at) }, nil)
	return out, err
}

type readIn struct {
	ID        string `json:"id" jsonschema:"arXiv id in any form or library id"`
	PageStart int    `json:"page_start,omitempty" jsonschema:"first page to read (1-based)"`
	PageEnd   int    `json:"page_end,omitempty" jsonschema:"last page (default page_start)"`
	Start     int    `json:"start,omitempty" jsonschema:"a section's start (get_paper)"`
	// Omit leaves text of these roles out (offsets still count it).
	Omit []string `json:"omit,omitempty" jsonschema:"leave out: caption, table, figure, footnote, reference, equation"`
	Budget
}

type readOut struct {
	ID         string `json:"id"`
	Version    int    `json:"version"`
	Title      string `json:"title"`
	Pages      int    `json:"pages"`      // pages of full text the library holds
	PageStart  int    `json:"page_start"` // first page the text comes from (0: title and abstract)
	PageEnd    int    `json:"page_end"`
	Start      int    `json:"start"` // character offsets of text in the paper's text
	End        int    `json:"end"`
	TotalChars int    `json:"total_chars"`
	Text       string `json:"text"`
	NextCursor string `json:"next_cursor,omitempty"`
	Note       string `json:"note,omitempty"`
}

func (s *Server) readPaper(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (readOut, error) {
	b := in.Budget
	in.Budget = Budget{}
	if in.Start < 0 || in.PageStart < 0 || in.PageEnd < 0 || in.PageEnd > 0 && in.PageEnd < in.PageStart {
		return readOut{}, fmt.Errorf("start, page_start and page_end must be 0 or more, and page_end not before page_start (got %d, %d, %d)", in.Start, in.PageStart, in.PageEnd)
	}
	omit := map[role.Role]bool{}
	for _, name := range in.Omit {
		r, err := role.Parse(name)
		if err != nil {
			return readOut{}, err
		}
		if r.Prose() {
			return readOut{}, fmt.Errorf("omit %q: body text and headings are always read (omit takes caption, table, figure, footnote, reference, equation)", name)
		}
		omit[r] = true
	}
	max, from, err := b.start("read_paper", in, readBudget)
	if err != nil {
		return readOut{}, err
	}
	p, chunks, note, err := s.paper(ctx, in.ID)
	if err != nil {
		return readOut{}, err
	}
	t := textOf(chunks)
	out := readOut{ID: p.ID, Version: p.Version, Title: safetext.Clean(p.Title), Pages: p.Pages, TotalChars: t.chars(), Note: note}
	if p.Pages == 0 && note == "" {
		out.Note = "the library holds only the title and abstract of this paper"
		if p.TextError != "" {
			out.Note += " (" + p.TextError + ")"
		}
	}
	last := in.PageEnd
	if last == 0 && in.PageStart > 0 {
		last = in.PageStart
	}
	lo, hi, exact := t.window(in.PageStart, last)
	if lo == hi && in.PageStart > 0 {
		return out, fmt.Errorf("%s has no text on page_start %d to page_end %d (it has %d pages)", p.ID, in.PageStart, last, p.Pages)
	}
	if !exact {
		out.Note = strings.TrimPrefix(out.Note+"; this paper was ingested before pages were kept exactly: the text may begin or end on a neighbouring page (ingest it again for exact pages)", "; ")
	}
	start := min(max0(in.Start, lo), hi)
	if b.Cursor != "" {
		start = min(max0(from, lo), hi)
	}
	// measured with the longest numbers and cursor the result can have
	out.Start, out.End, out.PageStart, out.PageEnd = start, hi, p.Pages, p.Pages
	out.NextCursor = makeCursor("read_paper", in, hi)
	room := max - jsonLen(out)
	var piece textRead
	for want := room; ; {
		if want <= 0 {
			return out, fmt.Errorf("max_chars %d is too small: give at least %d", max, max-room+200)
		}
		piece = t.read(start, min(hi, start+want), omit)
		over := jsonLen(piece.text) - 2 - room // escapes make the JSON longer
		if over <= 0 {
			break
		}
		want -= over
	}
	out.End, out.Text = start+piece.n, piece.text
	out.PageStart, out.PageEnd = piece.pageStart, piece.pageEnd
	if out.End < hi {
		out.NextCursor = makeCursor("read_paper", in, out.End)
	} else {
		out.NextCursor = ""
	}
	return out, nil
}

func max0(a, b int) int { return max(a, b) }

type relatedIn struct {
	ID       string `json:"id" jsonschema:"arXiv id in any form or library id"`
	K        int    `json:"k,omitempty" jsonschema:"papers in all (default 10)"`
	Topic    string `json:"topic,omitempty"`
	Category string `json:"category,omitempty" jsonschema:"only this category (cs.CL) or archive (cs)"`
	Year     int    `json:"year,omitempty"`
	Since    string `json:"since,omitempty" jsonschema:"published since"`
	Full     bool   `json:"full,omitempty"`
	Budget
}

// relatedOut has Related of PaperRow, or of PaperSummary with full; each
// with its cosine similarity to the paper as score.
type relatedOut struct {
	ID         string `json:"id"`
	Related    any    `json:"related"`
	NextCursor string `json:"next_cursor,omitempty"`
	Note       string `json:"note,omitempty"`
}

func (s *Server) related(ctx context.Context, _ *mcp.CallToolRequest, in relatedIn) (relatedOut, error) {
	out := relatedOut{Related: []PaperRow{}}
	b := in.Budget
	in.Budget = Budget{}
	limit, at, err := b.start("related", in, defaultBudget)
	if err != nil {
		return out, err
	}
	k := in.K
	if k <= 0 {
		k = related.DefaultK
	}
	if k > maxK || in.Year < 0 {
		return out, fmt.Errorf("k must be at most %d and year not negative, got %d and %d", maxK, k, in.Year)
	}
	since, err := resolve.Date(in.Since, time.Now())
	if err != nil {
		return out, err
	}
	if strings.TrimSpace(in.ID) == "" {
		return out, errors.New("id is empty")
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	p, err := resolve.Paper(ctx, lib, in.ID)
	if err != nil {
		return out, err
	}
	out.ID = p.ID
	o := related.Options{K: k, Category: strings.TrimSpace(in.Category), Year: in.Year, Since: since}
	if in.Topic != "" {
		t, err := resolve.Topic(ctx, lib, in.Topic)
		if err != nil {
			return out, err
		}
		o.Topic = t.Name
	}
	res, err := related.Find(ctx, lib, p.ID, o)
	if errors.Is(err, related.ErrNoVector) {
		return out, hint.For(err, fmt.Sprintf("the paper has no chunks to compare it by: ingest it again (papers ingest %s)", hint.Shell(p.ID)),
			fmt.Sprintf("the paper has no chunks to compare it by: ingest it again (ingest with ids [%q])", p.ID))
	}
	if err != nil {
		return out, err
	}
	if len(res) == 0 {
		out.Note = "no other paper of the library passes the filters: try fewer filters, or ingest more papers"
	}
	cursorAt := func(i int) string { return makeCursor("related", in, i) }
	if in.Full {
		rows := make([]PaperSummary, len(res))
		for i, r := range res {
			rows[i] = summary(r.Paper)
			rows[i].Score = round4(float64(r.Score))
		}
		var got []PaperSummary
		out.Related = &got // the rows page measures are the result's
		err = page(&out, &got, rows, at, limit, &out.NextCursor, cursorAt, nil)
		return out, err
	}
	rows := make([]PaperRow, len(res))
	for i, r := range res {
		rows[i] = rowOf(r.Paper)
		rows[i].Score = round4(float64(r.Score))
	}
	var got []PaperRow
	out.Related = &got // the rows page measures are the result's
	err = page(&out, &got, rows, at, limit, &out.NextCursor, cursorAt, nil)
	return out, err
}
