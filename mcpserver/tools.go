package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addTools registers every tool. Descriptions are short and exact: the
// whole tools/list is in every client's model context (TestToolsListSize
// measures it). What all tools share is said once, in the instructions.
func (s *Server) addTools() {
	addTool(s, &mcp.Tool{Name: "search", Annotations: readOnly(),
		Description: "Passages of the user's papers matching a query, best first: id, version, title, pages, text."}, s.search)
	addTool(s, &mcp.Tool{Name: "ask", Annotations: readOnly(),
		Description: "Answer from the library, citing [n] paper, version, pages, passage; filters as in search. abstained: no evidence, say so."}, s.ask)
	addTool(s, &mcp.Tool{Name: "get_paper", Annotations: readOnly(),
		Description: "A paper's record, abstract and sections (pages, and a start for read_paper)."}, s.getPaper)
	addTool(s, &mcp.Tool{Name: "read_paper", Annotations: readOnly(),
		Description: "A paper's text with [page N] marks: exactly pages page_start to page_end, or from a section's start."}, s.readPaper)
	addTool(s, &mcp.Tool{Name: "list_papers", Annotations: readOnly(),
		Description: "The library's papers, newest first; filters as in search. Rows: id, version, title, authors, date."}, s.listPapers)
	addTool(s, &mcp.Tool{Name: "related", Annotations: readOnly(),
		Description: "The library's papers most like a paper (cosine of paper vectors), with score; only topic, year..."}, s.related)
	addTool(s, &mcp.Tool{Name: "list_topics", Annotations: readOnly(),
		Description: "Followed topics (arXiv searches): query, papers held, last update, 4-week counts."}, s.listTopics)
	addTool(s, &mcp.Tool{Name: "momentum", Annotations: readOnly(),
		Description: "Topics' growth: papers in the last 4 weeks vs the 4 before, share of arXiv, 12 weekly counts."}, s.momentum)
	addTool(s, &mcp.Tool{Name: "digest", Annotations: readOnly(),
		Description: "Papers new to a followed topic since a date, each summarised, with an overview."}, s.digest)
	addTool(s, &mcp.Tool{Name: "review", Annotations: readOnly(),
		Description: "Papers x questions (columns): each cell an answer, its verbatim quote, page and section; filters as in search."}, s.review)
	addTool(s, &mcp.Tool{Name: "export_bibtex", Annotations: readOnly(),
		Description: "BibTeX or CSL-JSON for papers by id, topic, tag, saved, or the citations of an ask result."}, s.exportBibtex)
	addTool(s, &mcp.Tool{Name: "ingest", Annotations: writes(),
		Description: "Add papers by arXiv id, arXiv query or PDF path. Slow (arXiv: a request per 3 s); reports progress; cancellable."},
		fitted(s.ingest, func(in ingestIn) int { return in.MaxChars }))
	addTool(s, &mcp.Tool{Name: "update", Annotations: writes(),
		Description: "Fetch and add what is new on arXiv in followed topics. Slow; reports progress; cancellable."},
		fitted(s.update, func(in updateIn) int { return in.MaxChars }))
}
