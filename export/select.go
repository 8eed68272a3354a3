package export

import (
	"context"
	"errors"
	"strings"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
)

// Library is what Select needs of the library; *store.Library satisfies it.
type Library interface {
	resolve.Library
	List(ctx context.Context, f store.Filter) ([]store.Paper, error)
	// Identifiers returns the identifiers of one kind with their papers
	// (the citation keys of BibTeX entries, IDBibTeX).
	Identifiers(ctx context.Context, kind string) (map[string]store.IdentifierRecord, error)
}

var _ Library = (*store.Library)(nil)

// Selection names the papers to export: by reference (anything
// resolve.Paper reads: arXiv ids with or without a version, arXiv URLs,
// DOIs, citation keys, the library's own ids) and, when Filter is not
// nil, the papers it selects (a topic's, say).
type Selection struct {
	Refs   []string
	Filter *store.Filter
}

// Selected is what a Selection found.
type Selected struct {
	// Papers are the papers to export: those of Refs in their order, then
	// those of Filter, each once.
	Papers []store.Paper
	// Missing are the Refs (as the library keys them) the library does not
	// hold; when there are any, Filter was not read.
	Missing []string
	// Versions are the Refs that asked for another version than the one
	// the library holds (it keeps one version of each paper).
	Versions []VersionAsked
	// Keys are the citation keys the Papers came with from a BibTeX file,
	// by paper id (see Keys).
	Keys map[string]string
}

// VersionAsked is a reference to a version of a paper other than the held
// one, which is exported instead.
type VersionAsked struct {
	ID          string
	Asked, Held int
}

// Select finds the papers s names. A reference naming two papers is an
// error (resolve.Paper's, with its hint).
func Select(ctx context.Context, lib Library, s Selection) (*Selected, error) {
	out := &Selected{}
	seen := map[string]bool{}
	asked := map[string]int{} // the version a reference names, by id
	for _, ref := range s.Refs {
		id := strings.TrimSpace(ref)
		if aid, v, err := arxiv.ParseID(ref); err == nil {
			id = aid
			if _, ok := asked[id]; !ok && v > 0 {
				asked[id] = v
			}
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		p, err := resolve.Paper(ctx, lib, ref)
		if errors.Is(err, store.ErrNotFound) {
			out.Missing = append(out.Missing, id)
			continue
		} else if err != nil {
			return nil, err
		}
		if seen[p.ID] && p.ID != id {
			continue // another reference to the same paper (an old id of it)
		}
		seen[p.ID] = true
		if v := asked[id]; v > 0 && p.Version > 0 && v != p.Version {
			out.Versions = append(out.Versions, VersionAsked{ID: id, Asked: v, Held: p.Version})
		}
		out.Papers = append(out.Papers, p)
	}
	if len(out.Missing) > 0 {
		return out, nil
	}
	if s.Filter != nil {
		ps, err := lib.List(ctx, *s.Filter)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if !seen[p.ID] {
				seen[p.ID] = true
				out.Papers = append(out.Papers, p)
			}
		}
	}
	keys, err := lib.Identifiers(ctx, store.IDBibTeX)
	if err != nil {
		return nil, err
	}
	out.Keys = map[string]string{}
	for key, rec := range keys {
		if seen[rec.PaperID] && (out.Keys[rec.PaperID] == "" || key < out.Keys[rec.PaperID]) {
			out.Keys[rec.PaperID] = key // a paper two .bib files name: the first key by sort order, every run the same
		}
	}
	return out, nil
}
