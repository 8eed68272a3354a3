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
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
)

// The tools that only read the library.

type searchIn struct {
	Query    string `json:"query" jsonschema:"what to look for: words, a name, a method, a claim"`
	K        int    `json:"k,omitempty" jsonschema:"passages to return, best first (default 10, at most 50)"`
	Mode     string `json:"mode,omitempty" jsonschema:"ranking: hybrid (default: BM25 and the embedder's vectors fused), bm25 or dense"`
	PerPaper *int   `json:"per_paper,omitempty" jsonschema:"at most this many passages of one paper (default 3, none when papers are named; 0: no limit)"`
	Filtered
}

// Passage is one passage found, with where it is.
type Passage struct {
	Rank    int     `json:"rank"`
	ID      string  `json:"id" jsonschema:"the paper's id (versionless arXiv id, or the library's id)"`
	Version int     `json:"version" jsonschema:"the arXiv version held; 0 when the source has none"`
	Title   string  `json:"title"`
	Chunk   string  `json:"chunk" jsonschema:"the passage's id: paper id#sequence number"`
	Pages   string  `json:"pages" jsonschema:"page span, 3 or 3-4; empty for the title and abstract"`
	Section string  `json:"section" jsonschema:"section heading in force, when one was detected"`
	Score   float64 `json:"score" jsonschema:"relevance (higher is better) within this result list"`
	Text    string  `json:"text"`
}

type searchOut struct {
	Query    string    `json:"query"`
	Passages []Passage `json:"passages"`
	Note     string    `json:"note,omitempty" jsonschema:"why nothing was found, and what to try"`
}

const maxK = 50

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
	out := searchOut{Query: in.Query, Passages: []Passage{}}
	if strings.TrimSpace(in.Query) == "" {
		return out, errors.New("the query is empty")
	}
	mode, err := retrieve.ParseMode(in.Mode)
	if err != nil {
		return out, err
	}
	k := in.K
	if k <= 0 {
		k = library.SearchK
	}
	if k > maxK {
		return out, hint.With(fmt.Errorf("k must be at most %d, got %d", maxK, k), "ask for fewer passages, or narrow with filters")
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	f, err := in.names().Resolve(ctx, lib, time.Now())
	if err != nil {
		return out, err
	}
	ps, _, err := s.lib.Search(ctx, in.Query, library.SearchOptions{K: k, Mode: mode, PerPaper: in.PerPaper, Filter: f})
	if err != nil {
		return out, err
	}
	for _, p := range ps {
		out.Passages = append(out.Passages, Passage{Rank: p.Rank, ID: p.PaperID, Version: p.Paper.Version, Title: p.Paper.Title,
			Chunk: p.ChunkID, Pages: p.Pages(), Section: p.Section, Score: round4(p.Score), Text: p.Text})
	}
	if len(ps) == 0 {
		if len(embed.ContentWords(in.Query)) == 0 {
			out.Note = "the query has only words too common to search for: add the words that matter (a name, a method, a result)"
		} else {
			out.Note = "nothing in the library matches this query: try other words, mode dense, fewer filters, or ingest more papers"
		}
	}
	return out, nil
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

type askIn struct {
	Question string `json:"question" jsonschema:"the question, in a sentence"`
	Mode     string `json:"mode,omitempty" jsonschema:"auto (default: the configured model, else extractive), extractive (the passages' own sentences, offline), model (needs a model), quality (the model scores more passages first)"`
	K        int    `json:"k,omitempty" jsonschema:"passages given to the answer (default 8; 20 in quality mode; 12 extractive)"`
	Filtered
}

// askOut is an answer as papers ask --json gives it: the result, and the
// papers most like those it cites that it does not cite.
type askOut struct {
	*ask.Result
	SeeAlso []RelatedPaper `json:"see_also" jsonschema:"papers of the library most like those the answer cites, not cited (none when it abstained)"`
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*askOut, error) {
	res, lib, err := s.answer(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &askOut{Result: res, SeeAlso: []RelatedPaper{}}
	if !res.Abstained {
		sa, err := related.SeeAlso(ctx, lib, res.CitedPapers(), related.SeeAlsoK)
		if err != nil {
			return nil, err
		}
		for _, r := range sa {
			out.SeeAlso = append(out.SeeAlso, RelatedPaper{PaperSummary: summary(r.Paper), Score: round4(float64(r.Score))})
		}
	}
	return out, nil
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

// PaperSummary is a paper as list_papers shows it.
type PaperSummary struct {
	ID         string      `json:"id" jsonschema:"the paper's id in the library: the versionless arXiv id, or pdf:..., zotero:..., a corpus id"`
	Version    int         `json:"version"`
	Title      string      `json:"title"`
	Authors    []string    `json:"authors"`
	Published  string      `json:"published" jsonschema:"YYYY-MM-DD; empty when unknown"`
	Updated    string      `json:"updated"`
	Categories []string    `json:"categories"`
	Pages      int         `json:"pages" jsonschema:"pages of full text held; 0 when only the abstract is"`
	Chunks     int         `json:"chunks"`
	Source     string      `json:"source" jsonschema:"arxiv, pdf, jsonl or zotero"`
	URL        string      `json:"url"`
	ArxivID    string      `json:"arxiv_id,omitempty"`
	DOI        string      `json:"doi,omitempty"`
	Venue      string      `json:"venue,omitempty"`
	Tags       []store.Tag `json:"tags"`
	Saved      bool        `json:"saved" jsonschema:"whether the user saved the paper (papers save)"`
	SavedAt    string      `json:"saved_at,omitempty" jsonschema:"when it was saved, RFC 3339 UTC; absent when not saved"`
	Resource   string      `json:"resource" jsonschema:"the paper as an MCP resource"`
}

func summary(p store.Paper) PaperSummary {
	out := PaperSummary{ID: p.ID, Version: p.Version, Title: safetext.Clean(p.Title), Authors: orEmpty(p.Authors),
		Published: day(p.Published), Updated: day(p.Updated), Categories: orEmpty(p.Categories),
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

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

type listIn struct {
	Limit  int `json:"limit,omitempty" jsonschema:"papers to return (default 50, at most 500)"`
	Offset int `json:"offset,omitempty" jsonschema:"skip this many papers first: the next_offset of the previous call"`
	Filtered
}

type listOut struct {
	Papers     []PaperSummary `json:"papers" jsonschema:"newest published first"`
	Offset     int            `json:"offset"`
	NextOffset *int           `json:"next_offset" jsonschema:"the offset of the next page; null when this was the last"`
}

func (s *Server) listPapers(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (listOut, error) {
	out := listOut{Papers: []PaperSummary{}, Offset: in.Offset}
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	if limit > 500 || in.Offset < 0 {
		return out, fmt.Errorf("limit must be at most 500 and offset at least 0, got %d and %d", limit, in.Offset)
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	f, err := in.names().Resolve(ctx, lib, time.Now())
	if err != nil {
		return out, err
	}
	f.Limit, f.Offset, f.Brief = limit+1, in.Offset, true // one more: is there a next page?
	ps, err := lib.List(ctx, f)
	if err != nil {
		return out, err
	}
	if len(ps) > limit {
		ps = ps[:limit]
		next := in.Offset + limit
		out.NextOffset = &next
	}
	for _, p := range ps {
		out.Papers = append(out.Papers, summary(p))
	}
	return out, nil
}

type paperIn struct {
	ID string `json:"id" jsonschema:"the paper: an arXiv id in any form (2501.12948, 2501.12948v1, arxiv.org URLs) or the library's id"`
}

// Section is a stretch of a paper under one heading.
type Section struct {
	Title     string `json:"title"`
	PageStart int    `json:"page_start"`
	PageEnd   int    `json:"page_end"`
	Start     int    `json:"start" jsonschema:"where the section starts in the paper's text: a start for read_paper"`
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
	MetadataSource map[string]string `json:"metadata_source" jsonschema:"where each field came from when not from the paper's source"`
	TextError      string            `json:"text_error,omitempty" jsonschema:"why the full text is missing, if it is"`
	Sections       []Section         `json:"sections" jsonschema:"the sections detected, in reading order, with their pages"`
	TextChars      int               `json:"text_chars" jsonschema:"length of the paper's text in characters (read it with read_paper)"`
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
	p, chunks, note, err := s.paper(ctx, in.ID)
	if err != nil {
		return paperOut{}, err
	}
	t := textOf(chunks)
	out := paperOut{PaperSummary: summary(p), Abstract: safetext.Clean(p.Abstract), Affiliations: p.Affiliations, Comment: p.Comment,
		JournalRef: p.JournalRef, Type: p.Type, Issued: p.Issued, Publisher: p.Publisher, MetadataSource: p.MetadataSource,
		TextError: p.TextError, Sections: t.sections(), TextChars: t.chars(), Note: note}
	if out.MetadataSource == nil {
		out.MetadataSource = map[string]string{}
	}
	return out, nil
}

type readIn struct {
	ID        string `json:"id" jsonschema:"the paper: an arXiv id in any form or the library's id"`
	PageStart int    `json:"page_start,omitempty" jsonschema:"read from this page (1-based)"`
	PageEnd   int    `json:"page_end,omitempty" jsonschema:"read up to this page, included"`
	Start     int    `json:"start,omitempty" jsonschema:"character offset in the paper's text to read from: the next_start of the previous call, or a section's start"`
	MaxChars  int    `json:"max_chars,omitempty" jsonschema:"most characters to return (default 8000, at most 20000)"`
	// Omit leaves text of these roles out (offsets still count it).
	Omit []string `json:"omit,omitempty" jsonschema:"kinds of text to leave out: caption, table, figure (text inside figures), footnote, reference (reference-list entries), equation; body text and headings are always read"`
}

type readOut struct {
	ID         string `json:"id"`
	Version    int    `json:"version"`
	Title      string `json:"title"`
	Pages      int    `json:"pages" jsonschema:"pages of full text the library holds"`
	Start      int    `json:"start" jsonschema:"character offset of text in the paper's text"`
	End        int    `json:"end" jsonschema:"character offset just after text"`
	NextStart  *int   `json:"next_start" jsonschema:"the start of the next call to read on; null when the pages asked for are read"`
	TotalChars int    `json:"total_chars" jsonschema:"length of the paper's whole text"`
	PageStart  int    `json:"page_start" jsonschema:"first page text comes from (0: the title and abstract)"`
	PageEnd    int    `json:"page_end" jsonschema:"last page text comes from"`
	Text       string `json:"text" jsonschema:"the text, with [page N] where a page starts"`
	Note       string `json:"note,omitempty"`
}

const (
	defaultReadChars = 8000
	maxReadChars     = 20000
)

func (s *Server) readPaper(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (readOut, error) {
	max := in.MaxChars
	if max <= 0 {
		max = defaultReadChars
	}
	if max > maxReadChars {
		max = maxReadChars
	}
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
	from, to := t.window(in.PageStart, in.PageEnd)
	if from == to && (in.PageStart > 0 || in.PageEnd > 0) {
		return out, fmt.Errorf("%s has no text on pages %d-%d (it has %d pages)", p.ID, in.PageStart, max0(in.PageEnd, in.PageStart), p.Pages)
	}
	start := min(max0(in.Start, from), to)
	piece := t.read(start, min(to, start+max), omit)
	out.Start, out.End, out.Text = start, start+piece.n, piece.text
	out.PageStart, out.PageEnd = piece.pageStart, piece.pageEnd
	if out.End < to {
		next := out.End
		out.NextStart = &next
	}
	return out, nil
}

func max0(a, b int) int { return max(a, b) }

type relatedIn struct {
	ID       string `json:"id" jsonschema:"the paper: an arXiv id in any form or the library's id"`
	K        int    `json:"k,omitempty" jsonschema:"papers to return, most alike first (default 10, at most 50)"`
	Topic    string `json:"topic,omitempty" jsonschema:"only papers of this followed topic"`
	Category string `json:"category,omitempty" jsonschema:"only papers in this arXiv category (cs.CL) or archive (cs)"`
	Year     int    `json:"year,omitempty" jsonschema:"only papers published in this year"`
	Since    string `json:"since,omitempty" jsonschema:"only papers published on or after this date: YYYY-MM-DD, or 7d, 4w, 3m, 1y back"`
}

// RelatedPaper is a paper like the one asked about, and how alike.
type RelatedPaper struct {
	PaperSummary
	Score float64 `json:"score" jsonschema:"cosine similarity of the two papers' vectors (higher is more alike)"`
}

type relatedOut struct {
	ID      string         `json:"id" jsonschema:"the paper asked about, as the library names it"`
	Related []RelatedPaper `json:"related" jsonschema:"most alike first, ties by id"`
	Note    string         `json:"note,omitempty" jsonschema:"why none was found"`
}

func (s *Server) related(ctx context.Context, _ *mcp.CallToolRequest, in relatedIn) (relatedOut, error) {
	out := relatedOut{Related: []RelatedPaper{}}
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
		return out, errors.New("no paper id given")
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
		return out, hint.With(err, "the paper has no chunks to compare it by: ingest it again (the ingest tool, or papers ingest %s)", hint.Shell(p.ID))
	}
	if err != nil {
		return out, err
	}
	for _, r := range res {
		out.Related = append(out.Related, RelatedPaper{PaperSummary: summary(r.Paper), Score: round4(float64(r.Score))})
	}
	if len(res) == 0 {
		out.Note = "no other paper of the library passes the filters: try fewer filters, or ingest more papers"
	}
	return out, nil
}
