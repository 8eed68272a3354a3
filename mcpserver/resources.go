package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// Each paper is a resource papers://ID: its metadata and whole text as
// markdown.

const scheme = "papers://"

// resourceURI is the resource of paper id: papers://ID when that is a URI
// whose host and path spell id (arXiv ids: papers://2501.12948,
// papers://hep-th/9901001); otherwise the id goes escaped in the path,
// after an empty host (papers:///pdf:af3b60c8ad85c10b), since a host
// cannot hold a colon, a space or a percent escape of either. Every URI
// made parses, as the SDK requires of a listed resource.
func resourceURI(id string) string {
	if u, err := url.Parse(scheme + id); err == nil && u.Host+u.Path == id && u.RawQuery == "" && u.Fragment == "" && u.User == nil && u.RawPath == "" {
		return scheme + id
	}
	return scheme + "/" + url.PathEscape(id)
}

// resourceID is the paper id of a resource URI (resourceURI reversed).
func resourceID(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, scheme)
	if !ok {
		return "", false
	}
	if rest, ok := strings.CutPrefix(id, "/"); ok {
		id = rest
	}
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	return id, id != ""
}

func (s *Server) addResources() {
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: scheme + "{+id}", Name: "paper", Title: "A paper of the library",
		Description: "A paper of the library by id (papers://2501.12948; ids that are no host name, such as pdf:... and zotero:..., escaped after an empty host: papers:///pdf:...): its metadata, abstract and full text as markdown.",
		MIMEType:    "text/markdown",
	}, s.readResource)
}

// addPaperResources lists the library's papers as resources, those not
// listed yet (at the start, and after an ingest).
func (s *Server) addPaperResources(ctx context.Context, lib *store.Library) {
	ps, err := lib.List(ctx, store.Filter{Brief: true})
	if err != nil {
		fmt.Fprintf(s.opts.Log, "papers mcp: list the papers as resources: %v\n", err)
		return
	}
	s.mu.Lock()
	if s.listed == nil {
		s.listed = map[string]bool{}
	}
	var add []*mcp.Resource
	for _, p := range ps {
		if !s.listed[p.ID] {
			s.listed[p.ID] = true
			desc := strings.Join(append(firstAuthor(p.Authors), textkit.Day(p.Published)), ", ")
			add = append(add, &mcp.Resource{URI: resourceURI(p.ID), Name: p.ID, Title: safetext.Line(p.Title), Description: desc, MIMEType: "text/markdown"})
		}
	}
	s.mu.Unlock()
	for _, r := range add {
		s.srv.AddResource(r, s.readResource)
	}
}

func firstAuthor(as []string) []string {
	switch len(as) {
	case 0:
		return nil
	case 1:
		return as[:1]
	}
	return []string{as[0] + " et al."}
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := resourceID(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	p, chunks, _, err := s.paper(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", safetext.Line(p.Title))
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "- %s: %s\n", k, safetext.Line(v))
		}
	}
	v := ""
	if p.Version > 0 {
		v = fmt.Sprintf("v%d", p.Version)
	}
	line("id", p.ID+" "+v)
	line("authors", strings.Join(p.Authors, ", "))
	line("published", textkit.Day(p.Published))
	line("categories", strings.Join(p.Categories, " "))
	line("venue", p.Venue)
	line("doi", p.DOI)
	line("url", p.URL)
	line("pages", fmt.Sprint(p.Pages))
	if p.TextError != "" {
		line("full text", "missing: "+p.TextError)
	}
	b.WriteString("\n")
	b.WriteString(string(textOf(chunks).runes))
	b.WriteString("\n")
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: b.String()}}}, nil
}
