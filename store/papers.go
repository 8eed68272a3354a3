package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store/index"
)

// PutResult says what Put did.
type PutResult int

const (
	// Added: the paper was not in the library.
	Added PutResult = iota + 1
	// Updated: the paper was there (maybe under an id it absorbed, see
	// Item.Absorb) and something stored changed (version, content, chunks
	// or metadata); its chunks were replaced.
	Updated
	// Unchanged: the paper was there with identical metadata and chunks;
	// nothing was written.
	Unchanged
)

func (r PutResult) String() string {
	switch r {
	case Added:
		return "added"
	case Updated:
		return "updated"
	case Unchanged:
		return "unchanged"
	}
	return "PutResult(" + strconv.Itoa(int(r)) + ")"
}

const paperColumns = `id, version, title, abstract, authors, affiliations, published, updated,
	categories, comment, journal_ref, doi, url, source, pages, chunks, content_hash, text_error, added_at,
	arxiv_id, type, venue, volume, issue, page_range, publisher, issued, meta_source`

// Put stores p with exactly the given chunks, replacing the paper's previous
// chunks (rows, vectors and full-text entries) in one transaction: after a
// crash the library holds either the old or the new paper, never a mix.
//
// Every chunk's PaperID must be p.ID or empty, seqs must be distinct, and
// every chunk must carry a vector of the manifest's dimensions (call
// EnsureEmbedder first, else ErrNoEmbedder); vectors are stored normalised. p.Chunks is set to len(chunks);
// p.AddedAt is kept from the first Put (set to now if zero). Which version
// wins (e.g. not replacing v3 by v2) is the caller's policy: Put replaces.
//
// It returns Unchanged, writing nothing, when the stored paper has identical
// metadata (AddedAt aside), version, content hash and chunks (texts, spans
// and sections; vectors are not compared, as the library has one embedder).
func (l *Library) Put(ctx context.Context, p Paper, chunks []Chunk) (PutResult, error) {
	rs, err := l.PutBatch(ctx, []Item{{Paper: p, Chunks: chunks}})
	if err != nil {
		return 0, err
	}
	return rs[0], nil
}

// Item is one paper with its chunks, for PutBatch, and what it brings
// together (see merge.go): chunks the library holds already, papers it
// replaces, identifiers.
type Item struct {
	Paper  Paper
	Chunks []Chunk
	// BodyFrom names a paper of the library, Paper.ID itself or one of
	// Absorb, whose body chunks (seq >= 1) become this paper's as stored,
	// vectors and all; Chunks then holds no body chunk. AbstractFrom does
	// the same for the title+abstract chunk (seq 0).
	BodyFrom, AbstractFrom string
	// Absorb lists papers this one replaces, duplicates of it found by a
	// shared identifier: their topic memberships, tags and identifiers
	// move to Paper.ID, each id becomes an IDAlias of it, and they are
	// deleted, all in the same transaction.
	Absorb []string
	// Identifiers are recorded for the paper besides those its fields
	// give (ArxivID, DOI, ContentHash; see Identifier).
	Identifiers []Identifier
	// Member, if not nil, makes the paper a member of a topic in the same
	// transaction that stores it (see Membership).
	Member *Membership
}

// Membership is a topic a paper joins as it is stored: a crash can then
// never leave a paper stored by a topic's update without its membership
// and provenance (an orphan that topic rm --purge would not find). The
// paper joins as brought by the topic (TopicMembers.Brought) when the Put
// adds it; with MarkStored, a paper added or updated records now as when
// the topic stored it (TopicMembers.Stored). The topic must exist.
type Membership struct {
	Topic      string
	MarkStored bool
}

// PutBatch stores several papers as Put does, all in ONE transaction: after
// a crash the library holds all of them or none. It saves the per-commit
// fsync when many small papers arrive at once (corpora of abstracts). The
// results are in the order of items.
func (l *Library) PutBatch(ctx context.Context, items []Item) ([]PutResult, error) {
	preps := make([]prepared, len(items))
	for i, it := range items {
		p, cs, err := prepare(it.Paper, it.Chunks)
		if err != nil {
			return nil, err
		}
		pr := prepared{p: p, cs: cs, item: it}
		if err := pr.checkReuse(); err != nil {
			return nil, err
		}
		if !pr.reuses() {
			pr.fp = fingerprint(p, cs)
		}
		preps[i] = pr
	}
	results := make([]PutResult, len(items))
	err := l.write(ctx, func(tx *sql.Tx) error {
		all := make([][]Chunk, len(preps))
		for i, pr := range preps {
			all[i] = pr.cs
		}
		if err := l.checkVectors(ctx, tx, all); err != nil {
			return err
		}
		changed := false
		for i, pr := range preps {
			r, err := l.putTx(ctx, tx, pr)
			if err != nil {
				return fmt.Errorf("put paper %s: %w", pr.p.ID, err)
			}
			if m := items[i].Member; m != nil {
				if err := joinTopic(ctx, tx, *m, pr.p.ID, r); err != nil {
					return fmt.Errorf("put paper %s: %w", pr.p.ID, err)
				}
			}
			results[i] = r
			changed = changed || r != Unchanged
		}
		if !changed {
			return nil
		}
		return bumpVectorsGen(ctx, tx)
	})
	if err != nil {
		if len(items) == 1 && !strings.HasPrefix(err.Error(), "put paper") && !errors.Is(err, ErrEmbedderMismatch) {
			err = fmt.Errorf("put paper %s: %w", items[0].Paper.ID, err)
		}
		return nil, err
	}
	return results, nil
}

// checkVectors checks, inside the transaction about to store them, that
// the chunks' vectors fit the library's embedder as the manifest now
// records it: the dimensions, and the name this handle's EnsureEmbedder
// agreed to (a reindex in another process may have replaced it since the
// caller embedded them). The error wraps ErrEmbedderMismatch and names no
// paper: it is the run's, not one paper's.
func (l *Library) checkVectors(ctx context.Context, tx *sql.Tx, chunks [][]Chunk) error {
	if !slices.ContainsFunc(chunks, func(cs []Chunk) bool { return len(cs) > 0 }) {
		return nil // no chunks: nothing to check
	}
	m, err := readManifest(ctx, tx)
	if err != nil {
		return err
	}
	if m[keyDimensions] == "" {
		return ErrNoEmbedder
	}
	dims, _ := strconv.Atoi(m[keyDimensions])
	l.mu.Lock()
	agreed := l.embedder
	l.mu.Unlock()
	if agreed != "" && m[keyEmbedder] != agreed {
		return fmt.Errorf("%w: the library's embedder is now %q (%d dimensions), not %q that these chunks were embedded with: a papers reindex ran meanwhile; run again to embed with the new one",
			ErrEmbedderMismatch, m[keyEmbedder], dims, agreed)
	}
	for _, cs := range chunks {
		for _, c := range cs {
			if len(c.Vector) != dims {
				return fmt.Errorf("%w: chunk vectors of %d dimensions, but the library's embedder %q makes %d",
					ErrEmbedderMismatch, len(c.Vector), m[keyEmbedder], dims)
			}
		}
	}
	return nil
}

// prepare checks a paper's chunks and returns copies ready to store. Text
// comes from PDFs, feeds and corpora: what would act on a terminal is
// removed here, once for every reader (see safetext).
func prepare(p Paper, chunks []Chunk) (Paper, []Chunk, error) {
	if p.ID == "" {
		return p, nil, errors.New("put paper: empty id")
	}
	for _, f := range []*string{&p.Title, &p.Abstract, &p.Comment, &p.JournalRef, &p.DOI, &p.URL, &p.TextError,
		&p.Venue, &p.Volume, &p.Issue, &p.PageRange, &p.Publisher} {
		*f = safetext.Clean(*f)
	}
	p.Authors = cleanAll(p.Authors)
	p.Affiliations = cleanAll(p.Affiliations)
	p.Categories = cleanAll(p.Categories)
	p.Tags = cleanTags(p.Tags)
	p.Chunks = len(chunks)
	seen := make(map[int]bool, len(chunks))
	cs := make([]Chunk, len(chunks))
	for i, c := range chunks {
		if c.PaperID != "" && c.PaperID != p.ID {
			return p, nil, fmt.Errorf("put paper %s: chunk %d belongs to paper %q", p.ID, c.Seq, c.PaperID)
		}
		if seen[c.Seq] {
			return p, nil, fmt.Errorf("put paper %s: duplicate chunk seq %d", p.ID, c.Seq)
		}
		seen[c.Seq] = true
		c.PaperID = p.ID
		c.Section = safetext.Clean(c.Section)
		c.Text, c.PageBreaks = cleanPages(c.Text, c.PageBreaks)
		c.Vector = index.Normalized(c.Vector)
		cs[i] = c
	}
	return p, cs, nil
}

// cleanAll returns ss with every string cleaned (a copy if any changes).
func cleanAll(ss []string) []string {
	var out []string
	for i, v := range ss {
		if c := safetext.Clean(v); c != v && out == nil {
			out = slices.Clone(ss)
			out[i] = c
		} else if out != nil {
			out[i] = c
		}
	}
	if out == nil {
		return ss
	}
	return out
}

// prepared is an Item checked and cleaned by prepare.
type prepared struct {
	p    Paper
	cs   []Chunk
	fp   string // "" until known: computed in the transaction when chunks are reused
	item Item
}

// putTx writes one prepared paper inside tx, unless it is unchanged; its
// identifiers are recorded either way.
func (l *Library) putTx(ctx context.Context, tx *sql.Tx, pr prepared) (PutResult, error) {
	p, cs := pr.p, pr.cs
	var result PutResult
	var oldFP, oldTitle string
	var oldAdded sql.NullInt64
	err := tx.QueryRowContext(ctx, "SELECT fingerprint, added_at, title FROM papers WHERE id = ?", p.ID).Scan(&oldFP, &oldAdded, &oldTitle)
	exists := err == nil
	switch {
	case errors.Is(err, sql.ErrNoRows):
		result = Added
	case err != nil:
		return 0, err
	default:
		result = Updated
		if oldAdded.Valid {
			p.AddedAt = time.Unix(0, oldAdded.Int64).UTC()
		}
	}
	fp := pr.fp
	if pr.reuses() {
		all, err := reusedChunks(ctx, tx, pr)
		if err != nil {
			return 0, err
		}
		p.Chunks = len(all)
		fp = fingerprint(p, all)
	}
	if exists && oldFP == fp && len(pr.item.Absorb) == 0 {
		return Unchanged, putIdentifiers(ctx, tx, p, pr.item.Identifiers)
	}
	if !exists && len(pr.item.Absorb) > 0 {
		result = Updated // the paper was there, under the id it had before
	}
	if p.AddedAt.IsZero() {
		p.AddedAt = time.Now()
	}
	if err := upsertPaper(ctx, tx, p, fp); err != nil {
		return 0, err
	}
	if err := dropOwnChunks(ctx, tx, pr); err != nil {
		return 0, err
	}
	for _, a := range pr.item.Absorb {
		if err := l.absorb(ctx, tx, p.ID, a, pr.item); err != nil {
			return 0, fmt.Errorf("merge paper %s into it: %w", a, err)
		}
	}
	if err := l.insertChunks(ctx, tx, p.Title, cs); err != nil {
		return 0, err
	}
	if l.eng != nil && pr.reuses() && (!exists || oldTitle != p.Title || pr.item.BodyFrom != p.ID && pr.item.BodyFrom != "" ||
		pr.item.AbstractFrom != p.ID && pr.item.AbstractFrom != "") {
		// The chunks kept or taken from an absorbed paper hold terms of
		// the title they were stored under.
		if err := l.eng.Retitle(ctx, tx, p.ID); err != nil {
			return 0, err
		}
	}
	if err := putTags(ctx, tx, p); err != nil {
		return 0, err
	}
	return result, putIdentifiers(ctx, tx, p, pr.item.Identifiers)
}

func bumpVectorsGen(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "UPDATE manifest SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = ?", keyVectorsGen)
	return err
}

// deletePaper removes a paper with everything stored for it: chunks and
// categories (by ON DELETE CASCADE), tags and identifiers. Topic
// memberships stay (see topics.go); a save goes with the paper.
func deletePaper(ctx context.Context, tx *sql.Tx, id string) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM papers WHERE id = ?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM paper_tags WHERE paper_id = ?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM saved_papers WHERE paper_id = ?", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM paper_identifiers WHERE paper_id = ?", id)
	return err
}

// upsertPaper writes p's row (inserting it or replacing every column but
// the id) and its categories. Its chunks are left as they are.
func upsertPaper(ctx context.Context, tx *sql.Tx, p Paper, fp string) error {
	meta, err := json.Marshal(p.MetadataSource)
	if err != nil || len(p.MetadataSource) == 0 {
		meta = []byte("{}")
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO papers (`+paperColumns+`, fingerprint)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, title = excluded.title, abstract = excluded.abstract,
			authors = excluded.authors, affiliations = excluded.affiliations, published = excluded.published,
			updated = excluded.updated, categories = excluded.categories, comment = excluded.comment,
			journal_ref = excluded.journal_ref, doi = excluded.doi, url = excluded.url, source = excluded.source,
			pages = excluded.pages, chunks = excluded.chunks, content_hash = excluded.content_hash,
			text_error = excluded.text_error, added_at = excluded.added_at, arxiv_id = excluded.arxiv_id,
			type = excluded.type, venue = excluded.venue, volume = excluded.volume, issue = excluded.issue,
			page_range = excluded.page_range, publisher = excluded.publisher, issued = excluded.issued,
			meta_source = excluded.meta_source, fingerprint = excluded.fingerprint`,
		p.ID, p.Version, p.Title, p.Abstract, jsonList(p.Authors), jsonList(p.Affiliations),
		timeValue(p.Published), timeValue(p.Updated), jsonList(p.Categories),
		p.Comment, p.JournalRef, p.DOI, p.URL, p.Source, p.Pages, p.Chunks,
		p.ContentHash, p.TextError, timeValue(p.AddedAt),
		p.ArxivID, p.Type, p.Venue, p.Volume, p.Issue, p.PageRange, p.Publisher, p.Issued, string(meta), fp)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM paper_categories WHERE paper_id = ?", p.ID); err != nil {
		return err
	}
	done := map[string]bool{}
	for _, c := range p.Categories {
		k := strings.ToLower(c)
		if c == "" || done[k] {
			continue
		}
		done[k] = true
		if _, err := tx.ExecContext(ctx, "INSERT INTO paper_categories (paper_id, category) VALUES (?, ?)", p.ID, c); err != nil {
			return err
		}
	}
	return nil
}

// insertChunks inserts cs, chunks of a paper titled title, with what the
// engine derives from them (its TermColumns).
func (l *Library) insertChunks(ctx context.Context, tx *sql.Tx, title string, cs []Chunk) error {
	if len(cs) == 0 {
		return nil
	}
	cols := []string{"paper_id", "seq", "page_start", "page_end", "section", "role", "vector", "text", "page_breaks"}
	if l.eng != nil {
		cols = append(cols, l.eng.TermColumns()...)
	}
	rows := make([][]any, len(cs))
	for i, c := range cs {
		rows[i] = []any{c.PaperID, c.Seq, c.PageStart, c.PageEnd, c.Section, chunkRole(c), l.encodeVec(c.Vector), c.Text, encodeBreaks(c.PageBreaks)}
		if l.eng != nil {
			rows[i] = append(rows[i], l.eng.Terms(title, c.Text)...)
		}
	}
	return l.insertRows(ctx, tx, "INSERT INTO chunks ("+strings.Join(cols, ", ")+") VALUES ", rows)
}

// Delete removes a paper and everything stored for it. It returns an error
// wrapping ErrNotFound if the paper is not in the library.
func (l *Library) Delete(ctx context.Context, id string) error {
	return l.DeleteAll(ctx, []string{id})
}

// DeleteAll removes the papers ids and everything stored for them in ONE
// transaction: after a crash, a full disk or any error the library holds
// all of them or none was removed. An id not in the library removes
// nothing and returns an error wrapping ErrNotFound that names it.
func (l *Library) DeleteAll(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var missing string
	err := l.write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM papers WHERE id = ?", id).Scan(&n); err != nil {
				return fmt.Errorf("delete paper %s: %w", id, err)
			}
			if n == 0 {
				missing = id
				return ErrNotFound
			}
			if err := deletePaper(ctx, tx, id); err != nil {
				return fmt.Errorf("delete paper %s: %w", id, err)
			}
		}
		return bumpVectorsGen(ctx, tx)
	})
	switch {
	case missing != "":
		return fmt.Errorf("delete paper %s: %w", missing, err)
	case err != nil && len(ids) == 1 && !strings.HasPrefix(err.Error(), "delete paper"):
		return fmt.Errorf("delete paper %s: %w", ids[0], err)
	case err != nil:
		return fmt.Errorf("delete %d papers: %w", len(ids), err)
	}
	return nil
}

// ErrAmbiguous is wrapped by the error of FindPaper when a reference names
// more than one paper.
var ErrAmbiguous = errors.New("names more than one paper")

// AmbiguousError is the error of FindPaper for a reference that names
// several papers: the candidates, by id.
type AmbiguousError struct {
	Ref        string
	Candidates []Paper
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s names %d papers:", e.Ref, len(e.Candidates))
	for i, p := range e.Candidates {
		if i > 0 {
			b.WriteString(" and")
		}
		fmt.Fprintf(&b, " %s (%s", p.ID, p.Source)
		if p.Version > 0 {
			fmt.Fprintf(&b, " v%d", p.Version)
		}
		fmt.Fprintf(&b, ", %q)", p.Title)
	}
	return b.String()
}

func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// FindPaper returns the one paper named by ref: the paper whose id is ref
// exactly, or one of spellings (other spellings of the same reference,
// such as the versionless arXiv id of "arXiv:2501.12948v1"), or that
// absorbed a paper known by one of them (an IDAlias; see Item.Absorb), or
// for "zotero:KEY" ("zotero:gGROUP/KEY") the paper that holds that Zotero
// item (an IDZotero), keyed by its arXiv id or merged into another, or for
// "doi:DOI" the paper that holds that DOI (an IDDOI); a BibTeX citation
// key names the paper its entry became (an IDBibTeX). None
// held: an error wrapping ErrNotFound; two different papers: an
// *AmbiguousError naming both (a corpus record stored under "2501.12948v1"
// and the arXiv paper 2501.12948, say), so that no command acts on the
// wrong one.
func (l *Library) FindPaper(ctx context.Context, ref string, spellings ...string) (Paper, error) {
	ids := []string{ref}
	for _, a := range spellings {
		if !slices.Contains(ids, a) {
			ids = append(ids, a)
		}
	}
	in := placeholders(len(ids))
	args := append(anys(ids), anys(ids)...)
	q := "SELECT " + paperColumns + " FROM papers WHERE id IN (" + in + `)
		OR id IN (SELECT paper_id FROM paper_identifiers WHERE kind IN ('alias', 'bibtex') AND value IN (` + in + "))"
	var items, dois []string // "zotero:KEY" names the paper holding Zotero item u/KEY, "doi:DOI" the one holding the DOI, whatever its id
	for _, id := range ids {
		if key, ok := strings.CutPrefix(id, "zotero:"); ok && key != "" {
			if !strings.Contains(key, "/") {
				key = "u/" + key
			}
			items = append(items, key)
		}
		if d, ok := strings.CutPrefix(id, "doi:"); ok && d != "" {
			dois = append(dois, NormalizeDOI(d))
		}
	}
	if len(items) > 0 {
		q += " OR id IN (SELECT paper_id FROM paper_identifiers WHERE kind = 'zotero' AND value IN (" + placeholders(len(items)) + "))"
		args = append(args, anys(items)...)
	}
	if len(dois) > 0 {
		q += " OR id IN (SELECT paper_id FROM paper_identifiers WHERE kind = 'doi' AND value IN (" + placeholders(len(dois)) + "))"
		args = append(args, anys(dois)...)
	}
	ps, err := l.queryPapers(ctx, q+" ORDER BY id", args...)
	switch {
	case err != nil:
		return Paper{}, fmt.Errorf("get paper %s: %w", ref, err)
	case len(ps) == 0:
		return Paper{}, fmt.Errorf("paper %s: %w", ref, ErrNotFound)
	case len(ps) > 1:
		return Paper{}, &AmbiguousError{Ref: ref, Candidates: ps}
	}
	return ps[0], nil
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Get returns the paper with the given versionless id, or an error wrapping
// ErrNotFound.
func (l *Library) Get(ctx context.Context, id string) (Paper, error) {
	ps, err := l.queryPapers(ctx, "SELECT "+paperColumns+" FROM papers WHERE id = ?", id)
	if err != nil {
		return Paper{}, fmt.Errorf("get paper %s: %w", id, err)
	}
	if len(ps) == 0 {
		return Paper{}, fmt.Errorf("paper %s: %w", id, ErrNotFound)
	}
	return ps[0], nil
}

// FindByHash returns a paper whose ContentHash is hash (the first by id if
// several), or an error wrapping ErrNotFound. Local PDFs are found this way.
func (l *Library) FindByHash(ctx context.Context, hash string) (Paper, error) {
	if hash == "" {
		return Paper{}, fmt.Errorf("content hash %q: %w", hash, ErrNotFound)
	}
	ps, err := l.queryPapers(ctx, "SELECT "+paperColumns+" FROM papers WHERE content_hash = ? ORDER BY id LIMIT 1", hash)
	if err != nil {
		return Paper{}, fmt.Errorf("find paper by hash %s: %w", hash, err)
	}
	if len(ps) == 0 {
		return Paper{}, fmt.Errorf("content hash %s: %w", hash, ErrNotFound)
	}
	return ps[0], nil
}

// Filter selects papers. Zero fields select everything; the kinds of
// criteria are ANDed, the values within one kind ORed.
//
//   - IDs: versionless paper ids.
//   - Categories: case-insensitive; "cs.CL" matches exactly, a category
//     without a dot ("cs", "astro-ph") matches its whole archive.
//   - Authors: case-insensitive substring of any author ("hinton").
//   - Since, Until: inclusive bounds on Published; papers with no publication
//     date are left out when either is set.
//   - Topics: papers belonging to any of these topics (case-insensitive
//     names; see AddToTopic). A topic that does not exist selects nothing.
//   - Tags: papers with any of these tags, of any source (case-insensitive;
//     a Zotero collection is the tag "zotero:Collection/Sub"); a tag from a
//     corpus also matches when it holds the asked tag as a run of whole
//     words, since corpora copied from feed pages glue a paper's tags into
//     one string.
//   - Saved: only saved papers (Library.Save).
//   - Limit: at most this many papers (List only; 0 = no limit).
//   - Offset: skip this many papers first (List only), for paging.
type Filter struct {
	IDs        []string
	Topics     []string
	Tags       []string
	Saved      bool
	Categories []string
	Authors    []string
	Since      time.Time
	Until      time.Time
	Limit      int
	Offset     int
	// Brief makes List leave Abstract empty: listing thousands of papers
	// then reads a fraction of the bytes.
	Brief bool
}

func (f Filter) empty() bool {
	return len(f.IDs) == 0 && len(f.Topics) == 0 && len(f.Tags) == 0 && !f.Saved &&
		len(f.Categories) == 0 && len(f.Authors) == 0 && f.Since.IsZero() && f.Until.IsZero()
}

// where returns an SQL condition over the papers table (alias-free column
// names prefixed by col) and its arguments.
//
// On a server (PostgreSQL) the authors' JSON list is read with its JSON
// functions rather than SQLite's json_each.
func (f Filter) where(col string, server bool) (string, []any) {
	var conds []string
	var args []any
	if len(f.IDs) > 0 {
		conds = append(conds, col+"id IN ("+placeholders(len(f.IDs))+")")
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if len(f.Topics) > 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM topic_papers tp WHERE tp.paper_id = "+col+"id AND tp.topic IN ("+placeholders(len(f.Topics))+"))")
		for _, t := range f.Topics {
			args = append(args, t)
		}
	}
	if len(f.Tags) > 0 {
		// A corpus tag is also matched as a phrase of whole words: research
		// feeds' pages copied as text glue a paper's tags into one string
		// ("World Model Learning Computer-Use Agents RL for LLM Agents"),
		// and the tag a user asks for is one run of words in it.
		var phrases []string
		for _, t := range f.Tags {
			args = append(args, t)
		}
		for _, t := range f.Tags {
			phrases = append(phrases, `(' ' || pt.tag || ' ') LIKE ? ESCAPE '\'`)
			args = append(args, "% "+likeEscape(strings.Join(strings.Fields(t), " "))+" %")
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM paper_tags pt WHERE pt.paper_id = "+col+"id AND (pt.tag IN ("+placeholders(len(f.Tags))+") OR (pt.source = 'corpus' AND ("+strings.Join(phrases, " OR ")+"))))")
	}
	if f.Saved {
		conds = append(conds, col+"id IN (SELECT paper_id FROM saved_papers)")
	}
	if len(f.Categories) > 0 {
		var or []string
		for _, c := range f.Categories {
			if strings.Contains(c, ".") {
				or = append(or, "pc.category = ?")
				args = append(args, c)
			} else {
				or = append(or, `(pc.category = ? OR pc.category LIKE ? ESCAPE '\')`)
				args = append(args, c, likeEscape(c)+".%")
			}
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM paper_categories pc WHERE pc.paper_id = "+col+"id AND ("+strings.Join(or, " OR ")+"))")
	}
	if len(f.Authors) > 0 {
		var or []string
		for _, a := range f.Authors {
			or = append(or, `a.value LIKE ? ESCAPE '\'`)
			args = append(args, "%"+likeEscape(a)+"%")
		}
		each := "json_each(" + col + "authors) a"
		if server {
			each = "jsonb_array_elements_text(CAST(" + col + "authors AS jsonb)) AS a(value)"
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM "+each+" WHERE "+strings.Join(or, " OR ")+")")
	}
	if !f.Since.IsZero() {
		conds = append(conds, col+"published >= ?")
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		conds = append(conds, col+"published <= ?")
		args = append(args, f.Until.UnixNano())
	}
	if len(conds) == 0 {
		return "1 = 1", nil
	}
	return strings.Join(conds, " AND "), args
}

// List returns the papers that match f, newest published first (papers with
// no date last), ties by id. It reads only the papers table.
func (l *Library) List(ctx context.Context, f Filter) ([]Paper, error) {
	q, args := f.listQuery(l.eng != nil)
	ps, err := l.queryPapers(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list papers: %w", err)
	}
	return ps, nil
}

// listQuery is the query of List and EachPaper.
func (f Filter) listQuery(server bool) (string, []any) {
	cond, args := f.where("", server)
	cols := paperColumns
	if f.Brief {
		cols = strings.Replace(cols, "abstract,", "'',", 1)
	}
	q := "SELECT " + cols + " FROM papers WHERE " + cond + " ORDER BY published DESC, id" // the papers_published index; NULLs sort last in DESC
	if f.Limit > 0 || f.Offset > 0 {
		q += " LIMIT " + strconv.Itoa(cmp.Or(f.Limit, -1)) // -1: no limit
	}
	if f.Offset > 0 {
		q += " OFFSET " + strconv.Itoa(f.Offset)
	}
	return q, args
}

// EachPaper calls fn with every paper that matches f, in List's order,
// reading them in batches as it goes: memory stays flat however many
// papers match (List holds them all). The papers come from one
// consistent snapshot. An error from fn stops the walk and is returned.
func (l *Library) EachPaper(ctx context.Context, f Filter, fn func(Paper) error) error {
	q, args := f.listQuery(l.eng != nil)
	// On a connection of its own that reads through SQLite's page cache
	// rather than the memory map: mapped pages of a whole library's file
	// (and the neighbours the kernel maps with each) count as the
	// process's memory, 0.7 GB for 200k papers.
	err := l.readLarge(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		const batch = 500
		ps := make([]Paper, 0, batch)
		flush := func() error {
			if err := loadMarks(ctx, tx, ps); err != nil {
				return err
			}
			for _, p := range ps {
				if err := fn(p); err != nil {
					return err
				}
			}
			ps = ps[:0]
			return nil
		}
		for rows.Next() {
			p, err := scanPaper(rows)
			if err != nil {
				return err
			}
			if ps = append(ps, p); len(ps) == batch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return flush()
	})
	if err != nil {
		return fmt.Errorf("list papers: %w", err)
	}
	return nil
}

// Count returns how many papers and chunks the library holds.
func (l *Library) Count(ctx context.Context) (papers, chunks int, err error) {
	err = l.db.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(chunks), 0) FROM papers").Scan(&papers, &chunks)
	if err != nil {
		return 0, 0, fmt.Errorf("count library: %w", wrapBusy(err))
	}
	return papers, chunks, nil
}

func (l *Library) queryPapers(ctx context.Context, q string, args ...any) ([]Paper, error) {
	return queryPapers(ctx, l.db, q, args...)
}

// queryPapers runs q, which selects paperColumns, on db or a transaction.
func queryPapers(ctx context.Context, db querier, q string, args ...any) ([]Paper, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	var ps []Paper
	for rows.Next() {
		p, err := scanPaper(rows)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return ps, loadMarks(ctx, db, ps)
}

// scanPaper reads one row of paperColumns.
func scanPaper(rows *sql.Rows) (Paper, error) {
	var p Paper
	var authors, affs, cats, meta string
	var pub, upd, added sql.NullInt64
	if err := rows.Scan(&p.ID, &p.Version, &p.Title, &p.Abstract, &authors, &affs, &pub, &upd,
		&cats, &p.Comment, &p.JournalRef, &p.DOI, &p.URL, &p.Source, &p.Pages, &p.Chunks,
		&p.ContentHash, &p.TextError, &added,
		&p.ArxivID, &p.Type, &p.Venue, &p.Volume, &p.Issue, &p.PageRange, &p.Publisher, &p.Issued, &meta); err != nil {
		return p, err
	}
	if meta != "{}" && meta != "" {
		_ = json.Unmarshal([]byte(meta), &p.MetadataSource) // written by upsertPaper; a bad value reads as none
	}
	p.Authors = parseList(authors)
	p.Affiliations = parseList(affs)
	p.Categories = parseList(cats)
	p.Published = timeOf(pub)
	p.Updated = timeOf(upd)
	p.AddedAt = timeOf(added)
	return p, nil
}

// Chunks returns the chunks of a paper in seq order, with text but without
// vectors (see ChunksWithVectors). The paper must exist (else ErrNotFound).
func (l *Library) Chunks(ctx context.Context, paperID string) ([]Chunk, error) {
	return l.chunks(ctx, paperID, false)
}

// ChunksWithVectors is Chunks with each chunk's (normalised) vector.
func (l *Library) ChunksWithVectors(ctx context.Context, paperID string) ([]Chunk, error) {
	return l.chunks(ctx, paperID, true)
}

func (l *Library) chunks(ctx context.Context, paperID string, vectors bool) ([]Chunk, error) {
	var cs []Chunk
	err := l.read(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM papers WHERE id = ?", paperID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		vcol := "NULL"
		if vectors {
			vcol = "vector"
		}
		rows, err := tx.QueryContext(ctx, "SELECT seq, page_start, page_end, section, role, text, page_breaks, "+vcol+" FROM chunks WHERE paper_id = ? ORDER BY seq", paperID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c := Chunk{PaperID: paperID}
			var blob []byte
			var breaks string
			if err := rows.Scan(&c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Role, &c.Text, &breaks, &blob); err != nil {
				return err
			}
			c.PageBreaks = decodeBreaks(breaks)
			var err error
			if c.Vector, err = l.decodeVec(blob); err != nil {
				return err
			}
			cs = append(cs, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("chunks of paper %s: %w", paperID, err)
	}
	return cs, nil
}

// ChunkTexts returns the chunks (text, spans, section; no vectors) with the
// given ChunkIDs, keyed by ChunkID. Ids not in the library are absent from
// the map; malformed ids are an error.
func (l *Library) ChunkTexts(ctx context.Context, ids []string) (map[string]Chunk, error) {
	out := make(map[string]Chunk, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var args []any
	var vals []string
	for _, id := range ids {
		pid, seq, err := ParseChunkID(id)
		if err != nil {
			return nil, err
		}
		vals = append(vals, "(?, CAST(? AS INTEGER))")
		args = append(args, pid, seq)
	}
	rows, err := l.db.QueryContext(ctx, `WITH want (paper_id, seq) AS (VALUES `+strings.Join(vals, ", ")+`)
		SELECT c.paper_id, c.seq, c.page_start, c.page_end, c.section, c.role, c.text
		FROM want JOIN chunks c ON c.paper_id = want.paper_id AND c.seq = want.seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("chunk texts: %w", wrapBusy(err))
	}
	defer rows.Close()
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.PaperID, &c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Role, &c.Text); err != nil {
			return nil, fmt.Errorf("chunk texts: %w", err)
		}
		out[ChunkID(c.PaperID, c.Seq)] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("chunk texts: %w", err)
	}
	return out, nil
}

// ParseChunkID splits a ChunkID ("<paper id>#<seq>") into its parts.
func ParseChunkID(id string) (paperID string, seq int, err error) {
	i := strings.LastIndexByte(id, '#')
	if i <= 0 {
		return "", 0, fmt.Errorf("malformed chunk id %q (want <paper id>#<seq>)", id)
	}
	seq, err = strconv.Atoi(id[i+1:])
	if err != nil || seq < 0 {
		return "", 0, fmt.Errorf("malformed chunk id %q (want <paper id>#<seq>)", id)
	}
	return id[:i], seq, nil
}

// read runs fn in a read-only (deferred) transaction: one consistent
// snapshot that never waits for writers (WAL).
func (l *Library) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return l.readOn(ctx, l.db, fn)
}

// readOn is read on db or one connection of it. On a server the
// transaction is REPEATABLE READ: one snapshot for all its statements, as
// SQLite's read transaction is.
func (l *Library) readOn(ctx context.Context, db interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if l.eng != nil {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return wrapBusy(err)
	}
	defer tx.Rollback()
	return wrapBusy(fn(tx))
}

// fingerprint hashes everything Put stores except AddedAt and the vectors,
// so that an identical re-ingest is recognised without reading the chunks
// back. Vectors are left out because they follow from the texts and the
// library's one embedder (EnsureEmbedder), and Reindex replaces them without
// making every paper look changed.
func fingerprint(p Paper, cs []Chunk) string {
	p.AddedAt = time.Time{}
	p.Published, p.Updated = p.Published.UTC(), p.Updated.UTC() // as read back
	p.Tags = sourcedTags(p.Tags)                                // user tags are not Put's to change
	h := sha256.New()
	meta, _ := json.Marshal(p)
	h.Write(meta)
	var buf [8]byte
	num := func(v int) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	str := func(s string) {
		num(len(s))
		h.Write([]byte(s))
	}
	for _, c := range cs {
		num(c.Seq)
		num(c.PageStart)
		num(c.PageEnd)
		str(c.Section)
		if r := chunkRole(c); r != string(role.Body) {
			// body text hashes as before roles were stored
			num(-1)
			str(r)
		}
		str(c.Text)
		if len(c.PageBreaks) > 0 { // absent, the hash of a chunk stored before schema 6
			num(len(c.PageBreaks))
			for _, b := range c.PageBreaks {
				num(b)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// encodeBreaks and decodeBreaks store Chunk.PageBreaks as "120,844".
func encodeBreaks(bs []int) string {
	var b strings.Builder
	for i, v := range bs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

func decodeBreaks(s string) []int {
	if s == "" {
		return nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil // not written by encodeBreaks: unknown
		}
		out = append(out, v)
	}
	return out
}

func jsonList(s []string) string {
	if s == nil {
		s = []string{}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func parseList(s string) []string {
	// Fast path for what jsonList writes when no string needs escaping.
	if len(s) >= 4 && s[0] == '[' && s[1] == '"' && s[len(s)-2] == '"' && s[len(s)-1] == ']' && !strings.ContainsRune(s, '\\') {
		return strings.Split(s[2:len(s)-2], `","`)
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || len(out) == 0 {
		return nil
	}
	return out
}

func timeValue(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func timeOf(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(0, v.Int64).UTC()
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// cleanPages is safetext.Clean of a chunk's text with its page breaks
// moved along: each page's text is cleaned on its own. Breaks that are
// not in order within the text are dropped (unknown).
func cleanPages(text string, breaks []int) (string, []int) {
	if len(breaks) == 0 {
		return safetext.Clean(text), nil
	}
	var b strings.Builder
	out := make([]int, 0, len(breaks))
	prev := 0
	for _, at := range breaks {
		if at < prev || at > len(text) {
			return safetext.Clean(text), nil
		}
		b.WriteString(safetext.Clean(text[prev:at]))
		out = append(out, b.Len())
		prev = at
	}
	b.WriteString(safetext.Clean(text[prev:]))
	return b.String(), out
}
