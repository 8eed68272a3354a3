package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// Topics, momentum, digests and citations.

// TopicInfo is a followed topic as list_topics shows it.
type TopicInfo struct {
	Name        string   `json:"name"`
	Query       string   `json:"query" jsonschema:"the arXiv search the topic follows"`
	Description string   `json:"description"`
	Papers      int      `json:"papers" jsonschema:"papers of the topic held"`
	Created     string   `json:"created" jsonschema:"RFC 3339"`
	LastUpdate  *string  `json:"last_update" jsonschema:"RFC 3339; null before the first update"`
	Last4       int      `json:"last_4_weeks" jsonschema:"papers of the topic held from the last 4 weeks"`
	Prev4       int      `json:"previous_4_weeks" jsonschema:"from the 4 weeks before"`
	ChangePct   *float64 `json:"change_pct" jsonschema:"change in percent; null when the 4 weeks before had none"`
}

type topicsOut struct {
	Topics     []TopicInfo `json:"topics"`
	NextCursor string      `json:"next_cursor,omitempty"`
	Note       string      `json:"note,omitempty"`
}

func (s *Server) listTopics(ctx context.Context, _ *mcp.CallToolRequest, in Budget) (topicsOut, error) {
	out := topicsOut{Topics: []TopicInfo{}}
	limit, at, err := in.start("list_topics", struct{}{}, defaultBudget)
	if err != nil {
		return out, err
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	ts, err := lib.Topics(ctx)
	if err != nil {
		return out, err
	}
	if len(ts) == 0 {
		out.Note = "no topics yet: the user follows one in a terminal with papers topic add NAME --query 'ARXIV QUERY'"
	}
	var rows []TopicInfo
	for _, t := range ts {
		m, err := topic.MomentumOffline(ctx, lib, t, time.Now())
		if err != nil {
			return out, err
		}
		info := TopicInfo{Name: t.Name, Query: t.Query, Description: t.Description, Papers: t.Papers,
			Created: t.Created.UTC().Format(time.RFC3339), Last4: m.Last4, Prev4: m.Prev4, ChangePct: m.ChangePct}
		if !t.LastUpdate.IsZero() {
			u := t.LastUpdate.UTC().Format(time.RFC3339)
			info.LastUpdate = &u
		}
		rows = append(rows, info)
	}
	err = page(&out, &out.Topics, rows, at, limit, &out.NextCursor,
		func(at int) string { return makeCursor("list_topics", struct{}{}, at) }, nil)
	return out, err
}

type momentumIn struct {
	Topic   Names `json:"topic,omitempty" jsonschema:"topics (default all)"`
	Offline bool  `json:"offline,omitempty" jsonschema:"count from the library, not arXiv"`
	Budget
}

type momentumOut struct {
	Topics     []*topic.Momentum `json:"topics"`
	Warnings   []string          `json:"warnings"`
	NextCursor string            `json:"next_cursor,omitempty"`
}

func (s *Server) momentum(ctx context.Context, _ *mcp.CallToolRequest, in momentumIn) (momentumOut, error) {
	out := momentumOut{Topics: []*topic.Momentum{}, Warnings: []string{}}
	b := in.Budget
	in.Budget = Budget{}
	limit, at, err := b.start("momentum", in, defaultBudget)
	if err != nil {
		return out, err
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	ts, err := resolve.Topics(ctx, lib, in.Topic)
	if err != nil {
		return out, err
	}
	client := s.lib.Arxiv()
	offline, now := in.Offline, time.Now()
	var rows []*topic.Momentum
	for i, t := range ts {
		if i < at {
			rows = append(rows, nil) // given by an earlier call: not measured again
			continue
		}
		m, unreachable, err := topic.Measure(ctx, client, lib, t, now, offline)
		if unreachable != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("arXiv could not be asked (%v); counting from the library instead", unreachable))
			offline = true // do not wait for it again for the next topics
		}
		if err != nil {
			return out, err
		}
		rows = append(rows, m)
	}
	err = page(&out, &out.Topics, rows, at, limit, &out.NextCursor,
		func(at int) string { return makeCursor("momentum", in, at) }, nil)
	return out, err
}

type digestIn struct {
	Topic      string `json:"topic" jsonschema:"followed topic"`
	Since      string `json:"since,omitempty" jsonschema:"papers new since (default 7d)"`
	Rank       string `json:"rank,omitempty" jsonschema:"date or relevance"`
	Max        int    `json:"max,omitempty" jsonschema:"most papers (default 50)"`
	Extractive bool   `json:"extractive,omitempty" jsonschema:"no model"`
	Markdown   bool   `json:"markdown,omitempty" jsonschema:"markdown, not rows"`
	Budget
}

// digestOut is a digest: its papers, or with markdown its text, paged.
type digestOut struct {
	Topic      string              `json:"topic"`
	Since      string              `json:"since"`
	Overview   string              `json:"overview,omitempty"`
	Mode       string              `json:"mode"`
	Model      string              `json:"model,omitempty"`
	Papers     []topic.DigestPaper `json:"papers,omitempty"`
	Markdown   string              `json:"markdown,omitempty"`
	Warnings   []string            `json:"warnings,omitempty"`
	NextCursor string              `json:"next_cursor,omitempty"`
}

func (s *Server) digest(ctx context.Context, _ *mcp.CallToolRequest, in digestIn) (digestOut, error) {
	b := in.Budget
	in.Budget = Budget{}
	limit, at, err := b.start("digest", in, defaultBudget)
	if err != nil {
		return digestOut{}, err
	}
	since := cmpOr(in.Since, "7d")
	from, err := resolve.Date(since, time.Now())
	if err != nil {
		return digestOut{}, err
	}
	if in.Rank != "" && in.Rank != topic.RankDate && in.Rank != topic.RankRelevance {
		return digestOut{}, fmt.Errorf("rank must be date or relevance, got %q", in.Rank)
	}
	var model llm.LLM
	if !in.Extractive && at == 0 { // the overview is written once, by the first call
		if model, err = s.lib.LLM(); err != nil {
			return digestOut{}, err
		}
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return digestOut{}, err
	}
	t, err := resolve.Topic(ctx, lib, in.Topic)
	if err != nil {
		return digestOut{}, err
	}
	d, err := topic.Digest(ctx, lib, t, topic.DigestOptions{Since: from, Rank: in.Rank, LLM: model, Max: in.Max})
	if err != nil {
		return digestOut{}, err
	}
	if len(d.Papers) == 0 && d.Wider == nil && t.LastUpdate.IsZero() {
		d.Warnings = append(d.Warnings, fmt.Sprintf("topic %s was never updated: call update with topic [%q] first", t.Name, t.Name))
	}
	out := digestOut{Topic: d.Topic, Since: d.Since, Mode: d.Mode, Model: d.Model, Warnings: d.Warnings}
	cursorAt := func(at int) string { return makeCursor("digest", in, at) }
	if in.Markdown {
		var md bytes.Buffer
		if err := topic.WriteMarkdown(&md, d); err != nil {
			return digestOut{}, err
		}
		text := []rune(md.String())
		at = min(at, len(text))
		out.NextCursor = cursorAt(len(text))
		out.Markdown = "x" // measured with the field, which is omitted when empty
		room := limit - jsonLen(out) + 1
		for want := room; ; {
			if want <= 0 {
				return out, fmt.Errorf("max_chars %d is too small for the digest", limit)
			}
			piece := string(text[at:min(len(text), at+want)])
			if over := jsonLen(piece) - 2 - room; over > 0 {
				want -= over
				continue
			}
			out.Markdown = piece
			break
		}
		out.NextCursor = ""
		if end := at + len([]rune(out.Markdown)); end < len(text) {
			out.NextCursor = cursorAt(end)
		}
		return out, nil
	}
	if at == 0 {
		out.Overview = d.Overview
		for room := limit * 3 / 4; jsonLen(out) > room && out.Overview != ""; {
			out.Overview = cut(out.Overview, len([]rune(out.Overview))-(jsonLen(out)-room)-1)
		}
	}
	out.Papers = []topic.DigestPaper{}
	err = page(&out, &out.Papers, d.Papers, at, limit, &out.NextCursor, cursorAt,
		func(p topic.DigestPaper, n int) topic.DigestPaper {
			p.Summary = cut(p.Summary, n-jsonLen(topic.DigestPaper{N: p.N, ID: p.ID, Version: p.Version, Title: p.Title, Authors: p.Authors, Published: p.Published, URL: p.URL}))
			return p
		})
	return out, err
}

type exportIn struct {
	IDs    Names          `json:"ids,omitempty" jsonschema:"papers by id"`
	Topic  Names          `json:"topic,omitempty" jsonschema:"papers of these topics"`
	Tag    Names          `json:"tag,omitempty" jsonschema:"papers with these tags"`
	Saved  bool           `json:"saved,omitempty" jsonschema:"the saved papers"`
	Answer map[string]any `json:"answer,omitempty" jsonschema:"an ask result: its cited papers"`
	Format string         `json:"format,omitempty" jsonschema:"bibtex (default) or csl-json"`
	Budget
}

type exportOut struct {
	Format     string   `json:"format"`
	Papers     []string `json:"papers"` // the ids of the entries of text, in order
	Text       string   `json:"text"`   // BibTeX entries, or a CSL-JSON array
	Warnings   []string `json:"warnings"`
	NextCursor string   `json:"next_cursor,omitempty"`
}

func (s *Server) exportBibtex(ctx context.Context, _ *mcp.CallToolRequest, in exportIn) (exportOut, error) {
	out := exportOut{Format: cmpOr(in.Format, "bibtex"), Papers: []string{}, Warnings: []string{}}
	b := in.Budget
	in.Budget = Budget{}
	limit, at, err := b.start("export_bibtex", in, defaultBudget)
	if err != nil {
		return out, err
	}
	switch out.Format {
	case "bibtex", "csl-json":
	default:
		return out, fmt.Errorf("format must be bibtex or csl-json, got %q", in.Format)
	}
	refs := append([]string(nil), in.IDs...)
	if in.Answer != nil {
		b, err := jsonBytes(in.Answer)
		if err != nil {
			return out, err
		}
		res, err := ask.ReadResult(bytes.NewReader(b))
		if err != nil {
			return out, hint.With(fmt.Errorf("answer is %w", err), "pass the whole result of the ask tool")
		}
		cited := res.CitedPapers()
		if len(cited) == 0 {
			return out, errors.New("the answer cites no papers")
		}
		refs = append(refs, cited...)
	}
	selects := len(in.Topic) > 0 || len(in.Tag) > 0 || in.Saved
	if len(refs) == 0 && !selects {
		return out, hint.With(errors.New("nothing to export"), "give ids, a topic, a tag, saved or an answer")
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	sel := export.Selection{Refs: refs}
	if selects {
		f, err := resolve.Filter{Topics: in.Topic, Tags: in.Tag, Saved: in.Saved}.Resolve(ctx, lib, time.Now())
		if err != nil {
			return out, err
		}
		sel.Filter = &f
	}
	got, err := export.Select(ctx, lib, sel)
	if err != nil {
		return out, err
	}
	if len(got.Missing) > 0 {
		return out, hint.With(fmt.Errorf("not in the library: %s", strings.Join(got.Missing, ", ")),
			"ingest adds arXiv papers by id; list_papers shows the ids the library holds")
	}
	for _, v := range got.Versions {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%sv%d asked for, but the library holds %sv%d: exporting v%d", v.ID, v.Asked, v.ID, v.Held, v.Held))
	}
	if len(got.Papers) == 0 {
		return out, errors.New("no papers to export")
	}
	entries, err := exportEntries(out.Format, got.Papers, got.Keys)
	if err != nil {
		return out, err
	}
	return fitEntries(out, got.Papers, entries, at, limit, func(at int) string { return makeCursor("export_bibtex", in, at) })
}

// exportEntries renders papers in format (keys made over all of them, so
// that a page's keys are those of the whole export) and returns each
// paper's entry: a BibTeX entry, or a CSL-JSON item.
func exportEntries(format string, papers []store.Paper, keys map[string]string) ([]string, error) {
	var b bytes.Buffer
	if format == "csl-json" {
		if err := export.CSLJSON(&b, papers, keys); err != nil {
			return nil, err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(b.Bytes(), &items); err != nil {
			return nil, err
		}
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = string(it)
		}
		return out, nil
	}
	if err := export.BibTeX(&b, papers, keys); err != nil {
		return nil, err
	}
	var out []string
	for _, e := range strings.Split(b.String(), "\n@") {
		if len(out) > 0 {
			e = "@" + e
		}
		out = append(out, strings.TrimSpace(e)+"\n")
	}
	if len(out) != len(papers) {
		return nil, fmt.Errorf("export: %d entries for %d papers", len(out), len(papers))
	}
	return out, nil
}

// fitEntries fills out with the entries from at that fit in limit
// characters, and the cursor of the rest.
func fitEntries(out exportOut, papers []store.Paper, entries []string, at, limit int, cursorAt func(int) string) (exportOut, error) {
	text := func(es []string) string {
		if out.Format == "csl-json" {
			return "[" + strings.Join(es, ",") + "]"
		}
		return strings.Join(es, "\n")
	}
	out.NextCursor = cursorAt(len(entries))
	n := 0
	for i := at; i < len(entries); i++ {
		try := out
		try.Papers = append(append([]string{}, out.Papers...), papers[i].ID)
		try.Text = text(entries[at : i+1])
		if jsonLen(try) > limit {
			break
		}
		out, n = try, n+1
	}
	if n == 0 && at < len(entries) {
		return out, fmt.Errorf("max_chars %d is too small for one entry: give at least %d", limit, jsonLen(out)+jsonLen(entries[at]))
	}
	out.NextCursor = ""
	if at+n < len(entries) {
		out.NextCursor = cursorAt(at + n)
	}
	return out, nil
}
