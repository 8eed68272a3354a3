package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/textkit"
)

// schema3 is what version 3 adds to version 2: the bibliographic columns
// (Paper.ArxivID .. Paper.Issued, Paper.MetadataSource as JSON), tags
// (tags.go) and identifiers (identifiers.go).
const schema3 = `
ALTER TABLE papers ADD COLUMN arxiv_id    TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN type        TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN venue       TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN volume      TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN issue       TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN page_range  TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN publisher   TEXT NOT NULL DEFAULT '';
ALTER TABLE papers ADD COLUMN issued      TEXT NOT NULL DEFAULT '';  -- YYYY, YYYY-MM or YYYY-MM-DD
ALTER TABLE papers ADD COLUMN meta_source TEXT NOT NULL DEFAULT '{}'; -- JSON object: field -> source

CREATE TABLE paper_tags (
	paper_id TEXT NOT NULL,
	tag      TEXT NOT NULL COLLATE NOCASE,
	source   TEXT NOT NULL,               -- 'zotero', 'corpus', 'user'
	PRIMARY KEY (paper_id, source, tag)
) WITHOUT ROWID;
CREATE INDEX paper_tags_tag ON paper_tags (tag, paper_id);

CREATE TABLE paper_identifiers (
	kind     TEXT NOT NULL,               -- 'arxiv', 'doi', 'sha256', 'zotero', 'alias'
	value    TEXT NOT NULL,
	paper_id TEXT NOT NULL,
	stamp    TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (kind, value)
) WITHOUT ROWID;
CREATE INDEX paper_identifiers_paper ON paper_identifiers (paper_id);
`

// PDFCacheDir is where, inside the library directory, ingest keeps the
// arXiv PDFs it downloaded, one "<id>v<version>.pdf" each ("/" in old-style
// ids becomes "_").
const PDFCacheDir = "cache/pdf"

// oldArxivComment is how versions before 3 recorded a local PDF's arXiv
// stamp: the comment "arXiv:2303.11366v4".
var oldArxivComment = lazyre.New(`^arXiv:((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7}))(?:v(\d+))?$`)

// migrate3 brings a version 2 library to version 3 inside tx: it adds the
// new columns and tables, records the identifiers the papers' fields and
// cached PDFs give, and merges the papers that are one paper (a local PDF
// and its arXiv copy, by arXiv id or file hash), keyed by the arXiv id.
// It returns what it did, for the user.
func (l *Library) migrate3(ctx context.Context, tx *sql.Tx) ([]string, error) {
	dir := l.dir
	if _, err := tx.ExecContext(ctx, schema3); err != nil {
		return nil, err
	}
	ps, err := queryPapers(ctx, tx, "SELECT "+paperColumns+" FROM papers ORDER BY id")
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, nil
	}
	extra := make([][]Identifier, len(ps)) // identifiers besides the fields'
	for i := range ps {
		p := &ps[i]
		switch p.Source {
		case "arxiv":
			p.ArxivID = p.ID
			if p.Pages > 0 && dir != "" {
				name := strings.ReplaceAll(fmt.Sprintf("%sv%d", p.ID, p.Version), "/", "_") + ".pdf"
				if h, err := HashFile(filepath.Join(dir, PDFCacheDir, name)); err == nil {
					extra[i] = append(extra[i], Identifier{Kind: IDSHA256, Value: h})
				}
			}
		case "pdf":
			if m := oldArxivComment.FindStringSubmatch(p.Comment); m != nil {
				p.ArxivID = m[1]
				p.Version, _ = strconv.Atoi(m[2])
				p.Comment = ""
			}
		}
	}
	// Papers that share an identifier are one paper: union them.
	parent := make([]int, len(ps))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	holder := map[Identifier]int{}
	for i, p := range ps {
		for _, id := range identifiersOf(p, extra[i]) {
			id.Stamp = ""
			if j, ok := holder[id]; ok && id.Kind != IDDOI { // DOIs alone are not trusted to merge
				parent[find(i)] = find(j)
			} else if !ok {
				holder[id] = i
			}
		}
	}
	groups := map[int][]int{}
	for i := range ps {
		groups[find(i)] = append(groups[find(i)], i)
	}
	roots := make([]int, 0, len(groups))
	for r := range groups {
		roots = append(roots, r)
	}
	slices.Sort(roots)
	var merged, rekeyed []string
	for _, r := range roots {
		g := groups[r]
		members := make([]Paper, len(g))
		var ids []Identifier
		for k, i := range g {
			members[k] = ps[i]
			ids = append(ids, extra[i]...)
		}
		m, base := mergeMembers(members)
		if m.ID != members[base].ID && !slices.ContainsFunc(members, func(p Paper) bool { return p.ID == m.ID }) {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM papers WHERE id = ?", m.ID).Scan(&n); err != nil {
				return nil, err
			}
			if n > 0 { // another paper (a corpus record, say) has the arXiv id as its id: keep the old key
				m.ID = members[base].ID
			}
		}
		if len(g) == 1 && m.ID == members[0].ID {
			// nothing to merge: record the paper's new columns and identifiers
			if err := backfill(ctx, tx, m, ids); err != nil {
				return nil, fmt.Errorf("paper %s: %w", m.ID, err)
			}
			continue
		}
		if err := l.putMerged(ctx, tx, m, members, base, ids); err != nil {
			return nil, fmt.Errorf("merge %s: %w", m.ID, err)
		}
		for _, p := range members {
			if p.ID == m.ID {
				continue
			}
			if len(g) == 1 {
				rekeyed = append(rekeyed, p.ID+" -> "+m.ID)
			} else {
				merged = append(merged, p.ID+" -> "+m.ID)
			}
		}
	}
	var notes []string
	if len(merged) > 0 {
		notes = append(notes, fmt.Sprintf("merged %d duplicate %s into the %s %s (%s); chunks, topics and tags were kept",
			len(merged), textkit.Plural(len(merged), "paper", "papers"), textkit.Plural(len(merged), "paper", "papers"), textkit.Plural(len(merged), "it duplicates", "they duplicate"), strings.Join(merged, ", ")))
	}
	if len(rekeyed) > 0 {
		notes = append(notes, fmt.Sprintf("%d local %s now keyed by the arXiv id in %s (%s); the old ids still find them",
			len(rekeyed), textkit.Plural(len(rekeyed), "PDF is", "PDFs are"), textkit.Plural(len(rekeyed), "its stamp", "their stamps"), strings.Join(rekeyed, ", ")))
	}
	return notes, nil
}

// mergeMembers decides what one paper made of duplicates holds: the arXiv
// record if there is one (else the member with full text, else the first),
// keyed by the arXiv id when one is known, with the empty fields filled
// from the others and the full text of the first member that has it.
func mergeMembers(ms []Paper) (Paper, int) {
	best := 0
	rank := func(p Paper) int {
		switch {
		case p.Source == "arxiv":
			return 3
		case p.Pages > 0:
			return 2
		}
		return 1
	}
	for i, p := range ms {
		if rank(p) > rank(ms[best]) {
			best = i
		}
	}
	m := ms[best]
	for _, p := range ms {
		if m.ArxivID == "" && p.ArxivID != "" {
			m.ArxivID, m.Version = p.ArxivID, p.Version
		}
		fill(&m.Title, p.Title)
		fill(&m.Abstract, p.Abstract)
		fill(&m.DOI, p.DOI)
		fill(&m.JournalRef, p.JournalRef)
		if len(m.Authors) == 0 {
			m.Authors = p.Authors
		}
		if m.Published.IsZero() {
			m.Published = p.Published
		}
		if m.URL == "" || strings.HasPrefix(m.URL, "file://") && !strings.HasPrefix(p.URL, "file://") {
			m.URL = p.URL
		}
		if m.AddedAt.IsZero() || !p.AddedAt.IsZero() && p.AddedAt.Before(m.AddedAt) {
			m.AddedAt = p.AddedAt
		}
	}
	if m.ArxivID != "" {
		m.ID = m.ArxivID
	}
	return m, best
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// putMerged writes the merged paper m in place of its members: the
// abstract chunk of members[base], which m was made from, and the body of
// the first member with full text (that one's first).
func (l *Library) putMerged(ctx context.Context, tx *sql.Tx, m Paper, members []Paper, base int, ids []Identifier) error {
	it := Item{Paper: m, Identifiers: ids}
	var body *Paper
	if members[base].Pages > 0 {
		body = &members[base]
	}
	for i := range members {
		if body == nil && members[i].Pages > 0 {
			body = &members[i]
		}
		if members[i].ID != m.ID {
			it.Absorb = append(it.Absorb, members[i].ID)
			it.Identifiers = append(it.Identifiers, identifiersOf(members[i], nil)...)
		}
	}
	it.AbstractFrom = members[base].ID
	if body != nil {
		it.BodyFrom = body.ID
		m.Pages, m.ContentHash, m.TextError = body.Pages, body.ContentHash, body.TextError
	}
	it.Paper = m
	pr := prepared{p: m, item: it}
	if err := pr.checkReuse(); err != nil {
		return err
	}
	_, err := l.putTx(ctx, tx, pr)
	return err
}

// backfill writes a paper's version 3 columns and identifiers in place.
func backfill(ctx context.Context, tx *sql.Tx, p Paper, extra []Identifier) error {
	if _, err := tx.ExecContext(ctx, "UPDATE papers SET arxiv_id = ?, version = ?, comment = ? WHERE id = ?",
		p.ArxivID, p.Version, p.Comment, p.ID); err != nil {
		return err
	}
	for _, id := range identifiersOf(p, extra) {
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO paper_identifiers (kind, value, paper_id) VALUES (?, ?, ?)",
			id.Kind, id.Value, p.ID); err != nil {
			return err
		}
	}
	return nil
}
