package mcpserver

import (
	"bytes"
	"context"
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
	Topics []TopicInfo `json:"topics"`
	Note   string      `json:"note,omitempty"`
}

func (s *Server) listTopics(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (topicsOut, error) {
	out := topicsOut{Topics: []TopicInfo{}}
	lib, err := s.library(ctx, false)
	if err != nil {
		return out, err
	}
	ts, err := lib.Topics(ctx)
	if err != nil {
		return out, err
	}
	if len(ts) == 0 {
		out.Note = "no topics yet; follow one with: papers topic add NAME --query 'ARXIV QUERY'"
	}
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
		out.Topics = append(out.Topics, info)
	}
	return out, nil
}

type momentumIn struct {
	Topic   Names `json:"topic,omitempty" jsonschema:"the topics to measure (default: every followed topic)"`
	Offline bool  `json:"offline,omitempty" jsonschema:"count from the library only, with no request to arXiv"`
}

type momentumOut struct {
	Topics   []*topic.Momentum `json:"topics"`
	Warnings []string          `json:"warnings"`
}

func (s *Server) momentum(ctx context.Context, _ *mcp.CallToolRequest, in momentumIn) (momentumOut, error) {
	out := momentumOut{Topics: []*topic.Momentum{}, Warnings: []string{}}
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
	for _, t := range ts {
		m, unreachable, err := topic.Measure(ctx, client, lib, t, now, offline)
		if unreachable != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("arXiv could not be asked (%v); counting from the library instead", unreachable))
			offline = true // do not wait for it again for the next topics
		}
		if err != nil {
			return out, err
		}
		out.Topics = append(out.Topics, m)
	}
	return out, nil
}

type digestIn struct {
	Topic      string `json:"topic" jsonschema:"the followed topic"`
	Since      string `json:"since,omitempty" jsonschema:"papers new to the topic on or after this date: YYYY-MM-DD, or 1d, 7d, 4w back (default 7d)"`
	Rank       string `json:"rank,omitempty" jsonschema:"order: date (newest first, the default) or relevance (to the topic's query and description)"`
	Max        int    `json:"max,omitempty" jsonschema:"most papers (default 50)"`
	Extractive bool   `json:"extractive,omitempty" jsonschema:"summaries from the abstracts' key sentences even when a model is configured"`
}

type digestOut struct {
	topic.DigestResult
	Markdown string `json:"markdown" jsonschema:"the digest as papers digest prints it"`
}

func (s *Server) digest(ctx context.Context, _ *mcp.CallToolRequest, in digestIn) (digestOut, error) {
	since := cmpOr(in.Since, "7d")
	from, err := resolve.Date(since, time.Now())
	if err != nil {
		return digestOut{}, err
	}
	if in.Rank != "" && in.Rank != topic.RankDate && in.Rank != topic.RankRelevance {
		return digestOut{}, fmt.Errorf("rank must be date or relevance, got %q", in.Rank)
	}
	var model llm.LLM
	if !in.Extractive {
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
		d.Warnings = append(d.Warnings, fmt.Sprintf("topic %s was never updated; run the update tool (or papers update %s) first", t.Name, hint.Shell(t.Name)))
	}
	var md bytes.Buffer
	if err := topic.WriteMarkdown(&md, d); err != nil {
		return digestOut{}, err
	}
	return digestOut{DigestResult: *d, Markdown: md.String()}, nil
}

type exportIn struct {
	IDs    Names          `json:"ids,omitempty" jsonschema:"papers by id: arXiv ids with or without version, arXiv URLs, the library's ids"`
	Topic  Names          `json:"topic,omitempty" jsonschema:"every paper of these followed topics"`
	Tag    Names          `json:"tag,omitempty" jsonschema:"every paper with one of these tags (any source, case-insensitive)"`
	Saved  bool           `json:"saved,omitempty" jsonschema:"every paper the user saved"`
	Answer map[string]any `json:"answer,omitempty" jsonschema:"an answer of the ask tool (its whole result): the papers it cites"`
	Format string         `json:"format,omitempty" jsonschema:"bibtex (default) or csl-json"`
}

type exportOut struct {
	Format   string   `json:"format"`
	Papers   []string `json:"papers" jsonschema:"the ids exported, in order"`
	Text     string   `json:"text" jsonschema:"the BibTeX entries or the CSL-JSON array"`
	Warnings []string `json:"warnings"`
}

func (s *Server) exportBibtex(ctx context.Context, _ *mcp.CallToolRequest, in exportIn) (exportOut, error) {
	out := exportOut{Format: cmpOr(in.Format, "bibtex"), Papers: []string{}, Warnings: []string{}}
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
			"the ingest tool adds arXiv papers by id; list_papers shows the ids the library holds")
	}
	for _, v := range got.Versions {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%sv%d asked for, but the library holds %sv%d: exporting v%d", v.ID, v.Asked, v.ID, v.Held, v.Held))
	}
	if len(got.Papers) == 0 {
		return out, errors.New("no papers to export")
	}
	var b bytes.Buffer
	if out.Format == "csl-json" {
		err = export.CSLJSON(&b, got.Papers)
	} else {
		err = export.BibTeX(&b, got.Papers)
	}
	if err != nil {
		return out, err
	}
	for _, p := range got.Papers {
		out.Papers = append(out.Papers, p.ID)
	}
	out.Text = b.String()
	return out, nil
}
