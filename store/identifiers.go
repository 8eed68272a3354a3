package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/papers-cli/papers/internal/doi"
)

// Identifier is a name another system (or an earlier papers) knows a paper
// by. The library holds each (Kind, Value) for at most one paper, which is
// how the same paper arriving from two sources is recognised (schema 3,
// table paper_identifiers; no foreign key to papers, like topic_papers).
type Identifier struct {
	Kind  string `json:"kind"`  // IDArxiv, IDDOI, IDSHA256, IDZotero, IDAlias or IDBibTeX
	Value string `json:"value"` // normalised, see NormalizeIdentifier
	// Stamp is the source's modification mark for the item (Zotero's
	// dateModified and attachment state), so a re-run can tell what
	// changed; "" when the source has none.
	Stamp string `json:"stamp,omitempty"`
}

// Identifier kinds.
const (
	IDArxiv  = "arxiv"  // versionless arXiv id: 2501.12948, astro-ph/0601001
	IDDOI    = "doi"    // lower case, without "https://doi.org/" or "doi:"
	IDSHA256 = "sha256" // SHA-256 (hex) of a PDF file whose text the paper holds or held
	IDZotero = "zotero" // a Zotero item: "<library>/<item key>" (see package zotero)
	IDAlias  = "alias"  // an id the paper had before it was merged into another or re-keyed
	IDBibTeX = "bibtex" // a BibTeX entry's citation key, as written in the .bib file it came from
)

// NormalizeIdentifier returns id with its value in the form the library
// keys it by: DOIs lower case without a resolver prefix, hashes lower case.
func NormalizeIdentifier(id Identifier) Identifier {
	v := strings.TrimSpace(id.Value)
	switch id.Kind {
	case IDDOI:
		v = NormalizeDOI(v)
	case IDSHA256:
		v = strings.ToLower(v)
	}
	id.Value = v
	return id
}

// NormalizeDOI is the form the library keys a DOI by (see doi.Normalize):
// lower case, without "https://doi.org/" or "doi:" and trailing
// punctuation.
func NormalizeDOI(s string) string { return doi.Normalize(s) }

// identifiersOf are the identifiers a paper's fields give, plus extra.
func identifiersOf(p Paper, extra []Identifier) []Identifier {
	var ids []Identifier
	if p.ArxivID != "" {
		ids = append(ids, Identifier{Kind: IDArxiv, Value: p.ArxivID})
	}
	if p.DOI != "" {
		ids = append(ids, Identifier{Kind: IDDOI, Value: p.DOI})
	}
	if p.ContentHash != "" && p.Source != "jsonl" { // a corpus record's hash is of its line, not a file
		ids = append(ids, Identifier{Kind: IDSHA256, Value: p.ContentHash})
	}
	ids = append(ids, extra...)
	out := ids[:0]
	for _, id := range ids {
		if id = NormalizeIdentifier(id); id.Kind != "" && id.Value != "" {
			out = append(out, id)
		}
	}
	return out
}

// putIdentifiers records the paper's identifiers. One held by another paper
// that still exists is refused with ErrIdentifierTaken, except an alias
// (an old id may be reused by a new paper) and a DOI, which sources get
// wrong often enough that a clash keeps the first holder and is not an
// error.
func putIdentifiers(ctx context.Context, tx *sql.Tx, p Paper, extra []Identifier) error {
	for _, id := range identifiersOf(p, extra) {
		var holder string
		err := tx.QueryRowContext(ctx, `SELECT i.paper_id FROM paper_identifiers i JOIN papers p ON p.id = i.paper_id
			WHERE i.kind = ? AND i.value = ?`, id.Kind, id.Value).Scan(&holder)
		switch {
		case errors.Is(err, sql.ErrNoRows), err == nil && holder == p.ID:
		case err != nil:
			return err
		case id.Kind == IDDOI:
			continue
		case id.Kind != IDAlias:
			return fmt.Errorf("%w: %s %s is paper %s's", ErrIdentifierTaken, id.Kind, id.Value, holder)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO paper_identifiers (kind, value, paper_id, stamp) VALUES (?, ?, ?, ?)
			ON CONFLICT (kind, value) DO UPDATE SET paper_id = excluded.paper_id,
				stamp = CASE WHEN excluded.stamp != '' THEN excluded.stamp ELSE paper_identifiers.stamp END`,
			id.Kind, id.Value, p.ID, id.Stamp); err != nil {
			return err
		}
	}
	return nil
}

// FindByIdentifiers returns the papers holding any of ids (normalised
// here), each once, by id. Identifiers left by papers since deleted are
// ignored.
func (l *Library) FindByIdentifiers(ctx context.Context, ids []Identifier) ([]Paper, error) {
	var conds []string
	var args []any
	for _, id := range ids {
		if id = NormalizeIdentifier(id); id.Kind != "" && id.Value != "" {
			conds = append(conds, "(kind = ? AND value = ?)")
			args = append(args, id.Kind, id.Value)
		}
	}
	if len(conds) == 0 {
		return nil, nil
	}
	ps, err := l.queryPapers(ctx, "SELECT "+paperColumns+" FROM papers WHERE id IN (SELECT paper_id FROM paper_identifiers WHERE "+
		strings.Join(conds, " OR ")+") ORDER BY id", args...)
	if err != nil {
		return nil, fmt.Errorf("find papers by identifier: %w", err)
	}
	return ps, nil
}

// IdentifierRecord is an identifier of one kind with the paper holding it.
type IdentifierRecord struct {
	PaperID string
	Stamp   string
}

// Identifiers returns every identifier of the kind whose paper is in the
// library, by value: e.g. all Zotero items imported, with their stamps.
func (l *Library) Identifiers(ctx context.Context, kind string) (map[string]IdentifierRecord, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT i.value, i.paper_id, i.stamp FROM paper_identifiers i
		JOIN papers p ON p.id = i.paper_id WHERE i.kind = ?`, kind)
	if err != nil {
		return nil, fmt.Errorf("identifiers %s: %w", kind, wrapBusy(err))
	}
	defer rows.Close()
	out := map[string]IdentifierRecord{}
	for rows.Next() {
		var v string
		var r IdentifierRecord
		if err := rows.Scan(&v, &r.PaperID, &r.Stamp); err != nil {
			return nil, fmt.Errorf("identifiers %s: %w", kind, err)
		}
		out[v] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("identifiers %s: %w", kind, err)
	}
	return out, nil
}

// Identifier returns the paper holding one identifier (normalised here)
// and its stamp, or an error wrapping ErrNotFound.
func (l *Library) Identifier(ctx context.Context, kind, value string) (IdentifierRecord, error) {
	id := NormalizeIdentifier(Identifier{Kind: kind, Value: value})
	var r IdentifierRecord
	err := l.db.QueryRowContext(ctx, `SELECT i.paper_id, i.stamp FROM paper_identifiers i JOIN papers p ON p.id = i.paper_id
		WHERE i.kind = ? AND i.value = ?`, id.Kind, id.Value).Scan(&r.PaperID, &r.Stamp)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%s %s: %w", kind, value, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("identifier %s %s: %w", kind, value, wrapBusy(err))
	}
	return r, nil
}

// WithoutArxivRecord returns the papers that carry an arXiv id (ArxivID)
// but not arXiv's record: their source is not arXiv (a local PDF or a
// Zotero item stored while arXiv was out of reach), or their version came
// from elsewhere (MetadataSource["version"]). By id. It reads every paper
// row once (no index serves it): a cost for `papers update`, not for
// searches.
func (l *Library) WithoutArxivRecord(ctx context.Context) ([]Paper, error) {
	ps, err := l.queryPapers(ctx, "SELECT "+paperColumns+` FROM papers
		WHERE arxiv_id != '' AND (source != 'arxiv' OR meta_source LIKE '%"version":%') ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("find papers without arXiv's record: %w", err)
	}
	out := ps[:0]
	for _, p := range ps {
		if p.Source != "arxiv" || p.MetadataSource["version"] != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// PapersFrom returns the papers whose record comes from source
// (Paper.Source: "pdf" for local files that hold only what they say of
// themselves), by id. Like WithoutArxivRecord it reads the papers table
// without an index: for papers update, not for searches.
func (l *Library) PapersFrom(ctx context.Context, source string) ([]Paper, error) {
	ps, err := l.queryPapers(ctx, "SELECT "+paperColumns+" FROM papers WHERE source = ? ORDER BY id", source)
	if err != nil {
		return nil, fmt.Errorf("find papers from %s: %w", source, err)
	}
	return ps, nil
}
