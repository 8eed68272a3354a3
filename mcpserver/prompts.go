package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/topic"
)

// Prompts: a literature review of a question, a digest of a topic. Each
// brings the library's evidence into the prompt, so the model starts from
// it and cites it.

func (s *Server) addPrompts() {
	s.srv.AddPrompt(&mcp.Prompt{Name: "literature_review", Title: "Literature review from the library",
		Description: "A literature review of a question or theme from the papers of the library, with the best passages found and citations to paper, version and page.",
		Arguments: []*mcp.PromptArgument{
			{Name: "question", Description: "the question or theme to review", Required: true},
			{Name: "topic", Description: "only papers of this followed topic"},
			{Name: "since", Description: "only papers published since: YYYY-MM-DD or 6m, 1y back"},
		}}, s.reviewPrompt)
	s.srv.AddPrompt(&mcp.Prompt{Name: "topic_digest", Title: "Digest of a followed topic",
		Description: "A digest of the papers new to a followed topic: themes, what each paper contributes, with citations.",
		Arguments: []*mcp.PromptArgument{
			{Name: "topic", Description: "the followed topic (see list_topics)", Required: true},
			{Name: "since", Description: "papers new since: YYYY-MM-DD or 7d, 4w back (default 7d)"},
		}}, s.digestPrompt)
}

// promptError is what a prompt that cannot be made returns: the command
// line's message (prompts have no isError; the client shows the error).
func (s *Server) promptError(ctx context.Context, name string, err error) error {
	return s.fail(ctx, name, err)
}

func (s *Server) reviewPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	q := strings.TrimSpace(args["question"])
	if q == "" {
		return nil, s.promptError(ctx, "literature_review", fmt.Errorf("the question is empty"))
	}
	in := searchIn{Query: q, K: 20}
	per := 2
	in.PerPaper = &per
	if t := args["topic"]; t != "" {
		in.Topic = Names{t}
	}
	in.Since = args["since"]
	found, err := s.find(ctx, in)
	if err != nil {
		return nil, s.promptError(ctx, "literature_review", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write a literature review on: %s\n\n", q)
	b.WriteString("Use only the papers of my library. Below are the passages of my library that best match; search, read_paper and get_paper find more. " +
		"Group the work into themes, compare methods and results, say what is unsettled, and cite every claim as (id vVERSION, p. PAGES). " +
		"End with the references, as export_bibtex gives them for the papers cited.\n\n")
	if len(found.passages) == 0 {
		fmt.Fprintf(&b, "The library holds nothing on this (%s). Say so, and suggest what to ingest.\n", found.note)
	}
	for _, p := range found.passages {
		where := p.PaperID
		if p.Paper.Version > 0 {
			where += fmt.Sprintf("v%d", p.Paper.Version)
		}
		if pg := p.Pages(); pg != "" {
			where += ", p. " + pg
		} else {
			where += ", abstract"
		}
		fmt.Fprintf(&b, "[%d] %s (%s)\n%s\n\n", p.Rank, safetext.Line(p.Paper.Title), where, p.Text)
	}
	return &mcp.GetPromptResult{Description: "Literature review: " + q,
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}}}, nil
}

func (s *Server) digestPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	lib, err := s.library(ctx, false)
	if err != nil {
		return nil, s.promptError(ctx, "topic_digest", err)
	}
	t, err := resolve.Topic(ctx, lib, args["topic"])
	if err != nil {
		return nil, s.promptError(ctx, "topic_digest", err)
	}
	since := cmpOr(args["since"], "7d")
	from, err := resolve.Date(since, time.Now())
	if err != nil {
		return nil, s.promptError(ctx, "topic_digest", err)
	}
	d, err := topic.Digest(ctx, lib, t, topic.DigestOptions{Since: from}) // offline: the client's model writes
	if err != nil {
		return nil, s.promptError(ctx, "topic_digest", err)
	}
	var md bytes.Buffer
	if err := topic.WriteMarkdown(&md, d); err != nil {
		return nil, s.promptError(ctx, "topic_digest", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write a digest of my followed topic %q", t.Name)
	if t.Description != "" {
		fmt.Fprintf(&b, " (%s)", t.Description)
	}
	fmt.Fprintf(&b, " for the papers new to it since %s.\n\n", d.Since)
	b.WriteString("Open with a short overview that groups the papers into themes and cites them as [n]; then one or two sentences per paper on what it contributes, with its citation. " +
		"Use get_paper or read_paper where an abstract is not enough.\n\n")
	if len(d.Papers) == 0 {
		fmt.Fprintf(&b, "No paper is new to the topic since then. Say so; the update tool (topic %q) fetches what is new.\n\n", t.Name)
	}
	b.WriteString(md.String())
	return &mcp.GetPromptResult{Description: "Digest of " + t.Name,
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}}}, nil
}
