package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/store"
)

// One paper, one entry. Every source (arXiv, a local PDF, a Zotero item, a
// corpus record) describes a paper as a candidate; before it is stored the
// library is asked for the papers that share an identifier with it (arXiv
// id, DOI, file hash, Zotero key), and the candidate joins them:
//
//   - the paper is keyed by its arXiv id when one is known, else keeps the
//     key of the paper held (else the source's own key);
//   - each metadata field comes from the best source that has it: arXiv,
//     then Zotero, then a corpus record, then the PDF itself (XMP, Info,
//     layout); between equals the newer run wins. Where each field came
//     from is kept (Paper.MetadataSource);
//   - the text held stays, unless the paper had none or the candidate is a
//     newer version; an older version never replaces a newer one;
//   - the tags of the candidate's own source are replaced, the others kept;
//   - duplicates found are absorbed (store.Item.Absorb): their chunks,
//     topic memberships, tags and identifiers are kept.

// candidate is one paper as a source describes it.
type candidate struct {
	pos  int
	item string // for the report: path, arXiv id, "file:line", Zotero key
	// paper is what the source says; its ID is the source's key (the
	// arXiv id when known). Its MetadataSource names the fields that did
	// not come from paper.Source (e.g. "pdf:layout").
	paper store.Paper
	// chunks are the title+abstract chunk and, when body is true, the
	// body; all embedded (see run.putCandidate).
	chunks []store.Chunk
	body   bool
	pages  int
	ids    []store.Identifier // besides those the paper's fields give
	// tagSource is the tag source the candidate speaks for: its tags of
	// that source replace the held ones ("" when it has none).
	tagSource string
	// upgrade: the candidate improves a paper the run already stored
	// under pos (arXiv's record for a local PDF); the outcome reported
	// stays "added" if it was.
	upgrade bool
}

// identifiers are what the library is searched by for the candidate.
func (c candidate) identifiers() []store.Identifier {
	ids := slices.Clone(c.ids)
	if c.paper.ArxivID != "" {
		ids = append(ids, store.Identifier{Kind: store.IDArxiv, Value: c.paper.ArxivID})
	}
	if c.paper.DOI != "" {
		ids = append(ids, store.Identifier{Kind: store.IDDOI, Value: c.paper.DOI})
	}
	if c.paper.ContentHash != "" && c.paper.Source != "jsonl" {
		ids = append(ids, store.Identifier{Kind: store.IDSHA256, Value: c.paper.ContentHash})
	}
	return ids
}

// sourceRank orders the sources of metadata: arXiv's record, then the
// user's own (Zotero, a BibTeX file), Crossref's, a corpus record, then
// what the PDF says of itself.
func sourceRank(src string) int {
	switch strings.SplitN(src, ":", 2)[0] {
	case "arxiv":
		return 5
	case "zotero", "bibtex":
		return 4
	case "crossref":
		return 3
	case "jsonl", "corpus":
		return 2
	}
	return 1
}

// fieldSource is where field f of p came from.
func fieldSource(p store.Paper, f string) string {
	if s := p.MetadataSource[f]; s != "" {
		return s
	}
	return p.Source
}

// metaField is one metadata field of a paper, for merging.
type metaField struct {
	name  string
	empty func(p *store.Paper) bool
	copy  func(dst, src *store.Paper)
}

func strField(name string, f func(p *store.Paper) *string) metaField {
	return metaField{name: name, empty: func(p *store.Paper) bool { return strings.TrimSpace(*f(p)) == "" },
		copy: func(dst, src *store.Paper) { *f(dst) = *f(src) }}
}

func listField(name string, f func(p *store.Paper) *[]string) metaField {
	return metaField{name: name, empty: func(p *store.Paper) bool { return len(*f(p)) == 0 },
		copy: func(dst, src *store.Paper) { *f(dst) = slices.Clone(*f(src)) }}
}

func timeField(name string, f func(p *store.Paper) *time.Time) metaField {
	return metaField{name: name, empty: func(p *store.Paper) bool { return f(p).IsZero() },
		copy: func(dst, src *store.Paper) { *f(dst) = *f(src) }}
}

// metaFields are the fields merged one by one. "published" carries
// Issued along: they are one date.
var metaFields = []metaField{
	strField("title", func(p *store.Paper) *string { return &p.Title }),
	listField("authors", func(p *store.Paper) *[]string { return &p.Authors }),
	listField("affiliations", func(p *store.Paper) *[]string { return &p.Affiliations }),
	strField("abstract", func(p *store.Paper) *string { return &p.Abstract }),
	{name: "published", empty: func(p *store.Paper) bool { return p.Published.IsZero() && p.Issued == "" },
		copy: func(dst, src *store.Paper) { dst.Published, dst.Issued = src.Published, src.Issued }},
	timeField("updated", func(p *store.Paper) *time.Time { return &p.Updated }),
	listField("categories", func(p *store.Paper) *[]string { return &p.Categories }),
	strField("comment", func(p *store.Paper) *string { return &p.Comment }),
	strField("journal_ref", func(p *store.Paper) *string { return &p.JournalRef }),
	strField("doi", func(p *store.Paper) *string { return &p.DOI }),
	strField("url", func(p *store.Paper) *string { return &p.URL }),
	strField("type", func(p *store.Paper) *string { return &p.Type }),
	strField("venue", func(p *store.Paper) *string { return &p.Venue }),
	strField("volume", func(p *store.Paper) *string { return &p.Volume }),
	strField("issue", func(p *store.Paper) *string { return &p.Issue }),
	strField("page_range", func(p *store.Paper) *string { return &p.PageRange }),
	strField("publisher", func(p *store.Paper) *string { return &p.Publisher }),
}

// mergeMeta returns held's record with inc's fields merged in (see the
// rules above). With fillOnly (inc is an older version) inc only fills
// what held lacks; with override (inc is a newer version) inc wins every
// field it has.
func mergeMeta(held, inc store.Paper, fillOnly, override bool) store.Paper {
	out := held
	out.MetadataSource = map[string]string{}
	for _, f := range metaFields {
		src := fieldSource(held, f.name)
		if f.empty(&inc) {
			if !f.empty(&held) {
				out.MetadataSource[f.name] = src
			}
			continue
		}
		isrc := fieldSource(inc, f.name)
		take := f.empty(&held) || !fillOnly && (override || sourceRank(isrc) >= sourceRank(src))
		if f.name == "url" && strings.HasPrefix(inc.URL, "file://") && !f.empty(&held) && !strings.HasPrefix(held.URL, "file://") {
			take = false // a web address beats a local path
		}
		if take {
			f.copy(&out, &inc)
			src = isrc
		}
		out.MetadataSource[f.name] = src
	}
	if out.ArxivID == "" {
		out.ArxivID = inc.ArxivID
	}
	// The record's source is the title's; fields from it need no entry.
	// A local PDF filled from Crossref stays a local PDF, with Crossref
	// named field by field.
	out.Source = strings.SplitN(out.MetadataSource["title"], ":", 2)[0]
	if out.Source == "" || out.Source == "crossref" && held.Source == "pdf" {
		out.Source = held.Source
	}
	for k, v := range out.MetadataSource {
		if v == out.Source || v == "" {
			delete(out.MetadataSource, k)
		}
	}
	if len(out.MetadataSource) == 0 {
		out.MetadataSource = nil
	}
	return out
}

// plan decides what storing c does to the papers held that share an
// identifier with it: the item to put, whether its title+abstract chunk
// must be embedded anew (fresh), and a note for the report ("" if none).
func plan(c candidate, held []store.Paper) (it store.Item, fresh bool, note string) {
	// A held paper with another arXiv id is another paper, whatever else
	// it shares (a DOI copied wrong, say).
	held = slices.DeleteFunc(slices.Clone(held), func(p store.Paper) bool {
		return p.ArxivID != "" && c.paper.ArxivID != "" && p.ArxivID != c.paper.ArxivID
	})
	inc := c.paper
	if len(held) == 0 {
		return store.Item{Paper: inc, Chunks: stripIDs(c.chunks), Identifiers: c.ids}, false, ""
	}
	primary := 0
	for i, p := range held {
		switch {
		case p.ID == inc.ID:
			primary = i
		case held[primary].ID != inc.ID && p.ArxivID != "" && held[primary].ArxivID == "":
			primary = i
		}
	}
	h := held[primary]
	older := inc.Version > 0 && h.Version > inc.Version
	newer := inc.Version > 0 && h.Version > 0 && inc.Version > h.Version
	out := mergeMeta(h, inc, older, newer)
	out.Version = max(h.Version, inc.Version)
	if older {
		note = fmt.Sprintf("the library holds v%d of %s, newer than this v%d: its text and record are kept", h.Version, h.ID, inc.Version)
	}
	out.ID = h.ID
	if out.ArxivID != "" {
		out.ID = out.ArxivID
	}
	// Tags: the candidate's source speaks for its own tags.
	out.Tags = slices.Clone(inc.Tags)
	for _, p := range held {
		for _, t := range p.Tags {
			if t.Source != c.tagSource && t.Source != store.TagUser && !slices.Contains(out.Tags, t) {
				out.Tags = append(out.Tags, t)
			}
		}
	}
	it = store.Item{Identifiers: c.ids}
	for _, p := range held {
		if p.ID != out.ID {
			it.Absorb = append(it.Absorb, p.ID)
		}
		if !p.AddedAt.IsZero() && (out.AddedAt.IsZero() || p.AddedAt.Before(out.AddedAt)) {
			out.AddedAt = p.AddedAt // in the library since the first of them came
		}
	}
	// Text: the held body stays unless the candidate brings a newer one,
	// or the first one.
	var body *store.Paper
	for i := range held {
		if held[i].Pages > 0 && (body == nil || i == primary) {
			body = &held[i]
		}
	}
	// A Zotero item whose PDF changed since (replaced in Zotero) brings
	// its new text: the item is the record the text came from.
	replaced := body != nil && c.tagSource == "zotero" && body.Source == "zotero" && inc.ContentHash != "" && body.ContentHash != inc.ContentHash
	takeBody := c.body && !older && (body == nil || newer || replaced)
	switch {
	case takeBody:
		out.Pages, out.ContentHash, out.TextError = inc.Pages, inc.ContentHash, ""
		it.Chunks = stripIDs(c.chunks[1:])
	case body != nil:
		out.Pages, out.ContentHash, out.TextError = body.Pages, body.ContentHash, body.TextError
		it.BodyFrom = body.ID
	default:
		out.Pages, out.ContentHash = 0, ""
		if out.TextError == "" || inc.TextError != "" {
			out.TextError = inc.TextError
		}
	}
	// The title+abstract chunk: the candidate's when the record is its,
	// the held one's when unchanged, else made anew.
	switch {
	case out.Title == inc.Title && out.Abstract == inc.Abstract && len(c.chunks) > 0:
		it.Chunks = append([]store.Chunk{stripID(c.chunks[0])}, it.Chunks...)
	case out.Title == h.Title && out.Abstract == h.Abstract && h.Chunks > 0:
		it.AbstractFrom = h.ID
	default:
		it.Chunks = append([]store.Chunk{chunk.Abstract("", out.Title, out.Abstract)}, it.Chunks...)
		fresh = true
	}
	it.Paper = out
	return it, fresh, note
}

func stripID(c store.Chunk) store.Chunk {
	c.PaperID = ""
	return c
}

func stripIDs(cs []store.Chunk) []store.Chunk {
	out := make([]store.Chunk, len(cs))
	for i, c := range cs {
		out[i] = stripID(c)
	}
	return out
}

// putCandidate stores c, merged with what the library holds of the same
// paper, and records the outcome under c.pos. Its chunks must be embedded.
// Runs of one ingest serialise here, so two files of one paper in one run
// are merged rather than racing.
func (r *run) putCandidate(ctx context.Context, c candidate) (store.PutResult, string, error) {
	outs := r.putCandidates(ctx, []candidate{c})
	return outs[0].result, outs[0].id, outs[0].err
}

// embedAndPut embeds c's chunks and stores it (putCandidate). With
// abstract, c's title+abstract chunk is made first, ahead of its body.
func (r *run) embedAndPut(ctx context.Context, c candidate, abstract bool) (string, error) {
	if abstract {
		c.chunks = append([]store.Chunk{chunk.Abstract(c.paper.ID, c.paper.Title, c.paper.Abstract)}, c.chunks...)
	}
	if err := embedChunks(ctx, r.in.Embedder, c.chunks); err != nil {
		return "", fmt.Errorf("embed %s: %w", c.paper.ID, err)
	}
	r.emit(Event{Kind: Embedded, Item: c.paper.ID, Chunks: len(c.chunks)})
	_, id, err := r.putCandidate(ctx, c)
	return id, err
}

// itemErr settles an item's error: a cancellation or a failure every
// other item would meet too (Systemic) stops the run and is returned; any
// other fails the item alone, reported under its name.
func (r *run) itemErr(ctx context.Context, pos int, item string, err error) error {
	switch {
	case err == nil:
		return nil
	case isCancel(ctx, err):
		return ctx.Err()
	case Systemic(err):
		return err
	}
	r.fail(pos, item, err, false)
	return nil
}

// putOutcome is what storing one candidate did.
type putOutcome struct {
	result store.PutResult
	id     string
	err    error
}

// putCandidates stores cs as putCandidate does, in as few transactions as
// their overlaps allow: one, unless two of them are one paper (the later
// then meets the earlier as held). A failed commit fails the candidates it
// held; an error of one candidate (an id clash) fails only that one.
func (r *run) putCandidates(ctx context.Context, cs []candidate) []putOutcome {
	r.mergeMu.Lock()
	defer r.mergeMu.Unlock()
	outs := make([]putOutcome, len(cs))
	type planned struct {
		i     int
		it    store.Item
		fresh bool
		note  string
	}
	var batch []planned
	taken := map[string]bool{}              // papers the batch writes or absorbs
	takenIDs := map[store.Identifier]bool{} // identifiers the batch's papers hold (a DOI twice: one paper)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		var fresh []store.Chunk
		for _, b := range batch {
			if b.fresh {
				fresh = append(fresh, b.it.Chunks[0])
			}
		}
		err := embedChunks(ctx, r.in.Embedder, fresh)
		items := make([]store.Item, 0, len(batch))
		for _, b := range batch {
			if b.fresh && err == nil {
				b.it.Chunks[0].Vector, fresh = fresh[0].Vector, fresh[1:]
			}
			b.it.Member = r.in.Topic // a topic's update: the paper joins it in the same transaction
			items = append(items, b.it)
		}
		var results []store.PutResult
		if err == nil {
			if results, err = r.in.Lib.PutBatch(ctx, items); err != nil {
				err = fmt.Errorf("store: %w", err)
			}
		} else {
			err = fmt.Errorf("embed: %w", err)
		}
		for k, b := range batch {
			c, id := cs[b.i], b.it.Paper.ID
			if err != nil {
				outs[b.i] = putOutcome{id: id, err: err}
				continue
			}
			outs[b.i] = putOutcome{result: results[k], id: id}
			if c.upgrade {
				r.upgrade(c.pos, id, results[k])
			} else {
				r.record(c.pos, outcome{id: id, result: results[k], stored: true, pages: c.pagesIf(b.it), chunks: len(b.it.Chunks)})
				r.emit(Event{Kind: Stored, Item: id, Result: results[k], Pages: c.pagesIf(b.it), Chunks: len(b.it.Chunks)})
			}
			if b.note != "" {
				r.emit(Event{Kind: Note, Item: c.item, Msg: b.note})
			}
		}
		batch, taken, takenIDs = nil, map[string]bool{}, map[store.Identifier]bool{}
	}
	for i, c := range cs {
		ids := c.identifiers()
		for k := range ids {
			ids[k] = store.NormalizeIdentifier(ids[k])
			ids[k].Stamp = ""
		}
		held, err := r.held(ctx, c)
		if err == nil && slices.ContainsFunc(held, func(p store.Paper) bool { return taken[p.ID] }) || taken[c.paper.ID] ||
			slices.ContainsFunc(ids, func(id store.Identifier) bool { return takenIDs[id] }) {
			flush() // one paper twice: the earlier must be held first
			held, err = r.held(ctx, c)
		}
		if err != nil {
			outs[i] = putOutcome{err: err}
			continue
		}
		it, fresh, note := plan(c, held)
		if it.Paper.AddedAt.IsZero() {
			it.Paper.AddedAt = time.Now().UTC()
		}
		batch = append(batch, planned{i: i, it: it, fresh: fresh, note: note})
		taken[it.Paper.ID], taken[c.paper.ID] = true, true
		for _, a := range it.Absorb {
			taken[a] = true
		}
		for _, id := range ids {
			takenIDs[id] = true
		}
	}
	flush()
	return outs
}

// held returns the papers of the library that are c's paper: those that
// share an identifier with it, and the one holding its key.
func (r *run) held(ctx context.Context, c candidate) ([]store.Paper, error) {
	held, err := r.in.Lib.FindByIdentifiers(ctx, c.identifiers())
	if err != nil {
		return nil, err
	}
	p, err := r.in.Lib.Get(ctx, c.paper.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	case !slices.ContainsFunc(held, func(h store.Paper) bool { return h.ID == p.ID }):
		// The key is taken by a paper no identifier found: the same paper
		// again, unless one of the two is a corpus record and the other
		// is not (a corpus _id that is an arXiv id, say).
		if (p.Source == "jsonl") != (c.paper.Source == "jsonl") {
			return nil, &IDClashError{ID: p.ID, Held: p.Source, Incoming: c.paper.Source}
		}
		held = append(held, p)
	}
	return held, nil
}

// pagesIf is the pages of text the candidate brought, if the item took
// its body.
func (c candidate) pagesIf(it store.Item) int {
	if c.body && it.BodyFrom == "" {
		return c.pages
	}
	return 0
}
