package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addTools registers every tool with its description.
func (s *Server) addTools() {
	addTool(s, &mcp.Tool{Name: "search", Annotations: readOnly("Search the library"),
		Description: "Find the passages of the user's paper library that best match a query, best first: each with the paper's id, version, title, pages, section, score and text. " +
			"Hybrid ranking (BM25 and the library's embedding vectors) by default. Filters narrow to papers, topics, tags, saved papers, categories, authors or dates. Offline; no key needed."}, s.search)
	addTool(s, &mcp.Tool{Name: "ask", Annotations: readOnly("Answer from the library"),
		Description: "Answer a question from the library with numbered citations [n] to paper, version and pages. Each citation carries the passage it rests on. " +
			"With a configured model the answer is written by it (its citations checked); otherwise (or mode extractive) it is the passages' own most relevant sentences. " +
			"abstained is true when the library holds no evidence: say so rather than guess."}, s.ask)
	addTool(s, &mcp.Tool{Name: "get_paper", Annotations: readOnly("Show a paper"),
		Description: "A paper's metadata (title, authors, dates, categories, DOI, venue, tags), abstract and sections with their pages and where each starts in the text (for read_paper)."}, s.getPaper)
	addTool(s, &mcp.Tool{Name: "read_paper", Annotations: readOnly("Read a paper's text"),
		Description: "Read a paper's full text, a bounded piece per call (max_chars, default 8000): by pages (page_start, page_end) or from a character offset (start). " +
			"Continue with start = next_start until it is null. Page marks [page N] show where pages start. " +
			"omit leaves out kinds of text (caption, table, figure, footnote, reference, equation), e.g. [\"table\", \"figure\", \"reference\"] for the prose alone."}, s.readPaper)
	addTool(s, &mcp.Tool{Name: "list_papers", Annotations: readOnly("List papers"),
		Description: "List the library's papers, newest published first, with the filters of search; page with limit and offset (next_offset)."}, s.listPapers)
	addTool(s, &mcp.Tool{Name: "related", Annotations: readOnly("Related papers"),
		Description: "The papers of the library most like a paper, by the cosine similarity of their vectors (each paper's is the mean of its passages'), most alike first. " +
			"Narrow with topic, category, year or since. What papers related prints; offline."}, s.related)
	addTool(s, &mcp.Tool{Name: "list_topics", Annotations: readOnly("List followed topics"),
		Description: "The followed topics (arXiv searches the user follows): query, description, papers held, last update and momentum from the library (last 4 weeks against the 4 before)."}, s.listTopics)
	addTool(s, &mcp.Tool{Name: "momentum", Annotations: online("Topic momentum"),
		Description: "How fast followed topics grow: new papers in the last 4 weeks against the 4 before, change in percent, share of all new arXiv papers and weekly counts for 12 weeks. " +
			"Counted on arXiv (a few requests, 3 s apart), or from the library with offline or when arXiv cannot be reached (source says which)."}, s.momentum)
	addTool(s, &mcp.Tool{Name: "digest", Annotations: readOnly("Digest of a topic"),
		Description: "Summarise the papers new to a followed topic since a date (default 7d): one or two sentences each with its citation, and with a configured model an overview grouping them into themes. " +
			"Also as markdown. Run update first for the newest papers."}, s.digest)
	addTool(s, &mcp.Tool{Name: "review", Annotations: readOnly("Literature-review table"),
		Description: "A literature-review table: papers (ids, topic, tag, saved, a search, with the filters) x columns (questions asked of every paper). " +
			"Each cell: a short answer, the sentence of the paper it rests on (checked verbatim) with page and section, stated false when the paper does not say (never a guess), and a score. " +
			"Offline by default; mode model has the configured model fill the cells. Pages of rows with offset and limit (next_offset); cells are cached, so later pages and re-runs are quick. " +
			"name runs a review saved with papers review --save."}, s.review)
	addTool(s, &mcp.Tool{Name: "export_bibtex", Annotations: readOnly("Export citations"),
		Description: "BibTeX (or CSL-JSON) entries for papers: by id, every paper of a topic or tag, the saved papers, or the papers an answer of ask cites (pass its whole result as answer)."}, s.exportBibtex)
	addTool(s, &mcp.Tool{Name: "ingest", Annotations: writes("Add papers"),
		Description: "Add papers to the library: arXiv ids, an arXiv search query (newest first, up to max) or local PDF paths. Downloads abstracts and PDFs at arXiv's pace (one request every 3 s), " +
			"extracts, chunks and embeds them; reports progress, and can be cancelled (what was stored is kept). Papers held at the same version are left alone. Refused on a read-only server."}, s.ingest)
	addTool(s, &mcp.Tool{Name: "update", Annotations: writes("Update followed topics"),
		Description: "Fetch what is new or revised on arXiv in followed topics since their last update and ingest it, as ingest does (progress, cancellation, arXiv's pace). Refused on a read-only server."}, s.update)
}
