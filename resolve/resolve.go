// Package resolve turns what a user names into what the library keys it
// by: a paper by any spelling of its id, a followed topic by its name, a
// date or a span back from today, a set of filters. Every way into papers
// (the command line's flags, the MCP server's tool arguments) resolves
// through it, so a name means the same thing, and a mistake reads the same,
// everywhere. Errors carry the hint naming the fix (package hint); a
// malformed value is an *InvalidError (errors.Is ErrInvalid), which the
// command line reports as a usage error.
package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/store"
)

// ErrInvalid is matched by every *InvalidError.
var ErrInvalid = errors.New("invalid value")

// InvalidError is a value that cannot mean anything: a malformed date,
// contradictory bounds. Nothing was looked up.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string        { return e.Msg }
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// Library is what resolving needs of the library; *store.Library
// satisfies it.
type Library interface {
	FindPaper(ctx context.Context, ref string, spellings ...string) (store.Paper, error)
	Topic(ctx context.Context, name string) (store.Topic, error)
	Topics(ctx context.Context) ([]store.Topic, error)
}

var _ Library = (*store.Library)(nil)

// Paper finds the one paper ref names: a paper stored under ref exactly
// (local PDFs, corpus records) or, for an arXiv id in any form (versions,
// "arXiv:", URLs), under its versionless id, or for a DOI in any form
// (bare, "doi:", a doi.org URL), the paper holding it; arXiv's own DOIs
// (10.48550/arXiv.ID) name that arXiv paper. A ref that names two papers
// is refused with both named, never taken as either; one the library does
// not hold is an error wrapping store.ErrNotFound.
func Paper(ctx context.Context, lib Library, ref string) (store.Paper, error) {
	ref = strings.TrimSpace(ref)
	aliases := spellings(ref)
	p, err := lib.FindPaper(ctx, ref, aliases...)
	var amb *store.AmbiguousError
	switch {
	case errors.Is(err, store.ErrNotFound):
		id := ref
		if len(aliases) > 0 {
			id = aliases[0]
		}
		return p, NotInLibrary(id, ref)
	case errors.As(err, &amb):
		return p, hint.With(err, "%s", ambiguityHint(amb))
	}
	return p, err
}

// spellings are the other ways ref names a paper: the versionless arXiv
// id of an arXiv id in any form, "doi:DOI" for a DOI in any form (and the
// arXiv id of an arXiv DOI).
func spellings(ref string) []string {
	var out []string
	if id, _, err := arxiv.ParseID(ref); err == nil {
		out = append(out, id)
	}
	if d, ok := doi.Parse(ref); ok {
		if id, _, err := arxiv.ParseID(doi.Arxiv(d)); err == nil {
			out = append(out, id)
		}
		out = append(out, "doi:"+d)
	}
	return out
}

// Papers turns references (see Paper) into the library's keys, each once,
// in order; one the library does not hold, or one naming two papers, is
// an error naming it, not an empty result.
func Papers(ctx context.Context, lib Library, refs []string) ([]string, error) {
	ids := make([]string, 0, len(refs))
	for _, ref := range refs {
		p, err := Paper(ctx, lib, ref)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ids, p.ID) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// Held is Papers for the commands that change papers (rm, tag, untag,
// save, unsave): an arXiv id with a version must name the version the
// library holds. One that names another version touches nothing: the
// error (wrapping store.ErrNotFound) says which version is held. Reading
// commands take any version and say which one they show.
func Held(ctx context.Context, lib Library, refs []string) ([]string, error) {
	ids := make([]string, 0, len(refs))
	for _, ref := range refs {
		p, err := HeldPaper(ctx, lib, ref)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ids, p.ID) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// HeldPaper is Paper for a command that changes the paper (see Held).
func HeldPaper(ctx context.Context, lib Library, ref string) (store.Paper, error) {
	p, err := Paper(ctx, lib, ref)
	if err != nil {
		return p, err
	}
	if id, v, perr := arxiv.ParseID(strings.TrimSpace(ref)); perr == nil && v > 0 && p.Version > 0 && v != p.Version && id == p.ID {
		return store.Paper{}, hint.With(notFound(fmt.Sprintf("%sv%d is not in the library: it holds %sv%d", id, v, id, p.Version)),
			"name the version held (%sv%d) or the paper without a version (%s)", id, p.Version, id)
	}
	return p, nil
}

// NotInLibrary is the error for a paper id the library does not hold
// (ref as the user gave it); it wraps store.ErrNotFound.
func NotInLibrary(id, ref string) error {
	h := "papers list shows what is there; papers ingest " + hint.Shell(ref) + " adds it"
	tool := fmt.Sprintf("list_papers shows what is there; ingest with ids [%q] adds it", id)
	if d, ok := doi.Parse(ref); ok {
		h = "papers list shows what is there; papers ingest " + hint.Shell(d) + " adds it from Crossref"
		tool = fmt.Sprintf("list_papers shows what is there; ingest with ids [%q] adds it from Crossref", d)
	} else if !arxiv.LooksLikeID(id) {
		h = "papers list shows what is there (ids of local PDFs and corpus records come from ingesting the file)"
		tool = "list_papers shows the ids the library holds (ids of local PDFs and corpus records come from ingesting the file)"
	}
	return hint.For(notFound(fmt.Sprintf("%s is not in the library", id)), h, tool)
}

// notFound is an error about something the library does not hold, in a
// sentence of its own; it matches store.ErrNotFound.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == store.ErrNotFound }

// ambiguityHint says how to name each paper of an ambiguous reference: the
// arXiv paper by its bare id; the other, stored under an arXiv-form id by
// an older papers (ingest now refuses such corpus ids), once the arXiv
// paper is out of the way.
func ambiguityHint(amb *store.AmbiguousError) string {
	var arxivID string
	var others []string
	for _, p := range amb.Candidates {
		if p.Source == "arxiv" {
			arxivID = p.ID
		} else {
			others = append(others, p.ID)
		}
	}
	if arxivID == "" {
		return "papers list (the list_papers tool) shows the ids as stored"
	}
	return fmt.Sprintf("%s alone names the arXiv paper; %s was stored under an arXiv-like id before papers refused those: "+
		"to remove it, `papers rm %s`, then `papers rm %s`, then `papers ingest %s` brings the arXiv paper back",
		arxivID, strings.Join(others, ", "), arxivID, hint.Shell(others[0]), arxivID)
}

// Topic reads a followed topic; an unknown name is an error (wrapping
// store.ErrNotFound) naming the topics there are.
func Topic(ctx context.Context, lib Library, name string) (store.Topic, error) {
	tp, err := lib.Topic(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		ts, _ := lib.Topics(ctx)
		var names []string
		for _, t := range ts {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			return tp, hint.For(notFound(fmt.Sprintf("no topic %q: no topics are followed yet", name)),
				fmt.Sprintf("papers topic add %s --query 'ARXIV QUERY'", hint.Shell(name)),
				fmt.Sprintf("no tool follows a topic: the user can, in a terminal, with papers topic add %s --query 'ARXIV QUERY'", hint.Shell(name)))
		}
		return tp, hint.For(notFound(fmt.Sprintf("no topic %q", name)),
			fmt.Sprintf("the topics are: %s (papers topic list)", strings.Join(names, ", ")),
			fmt.Sprintf("the topics are: %s (list_topics)", strings.Join(names, ", ")))
	}
	return tp, err
}

// Topics returns the named topics, or every followed topic when no name is
// given; an empty selection is an error saying how to follow one.
func Topics(ctx context.Context, lib Library, names []string) ([]store.Topic, error) {
	if len(names) == 0 {
		topics, err := lib.Topics(ctx)
		if err != nil {
			return nil, err
		}
		if len(topics) == 0 {
			return nil, hint.For(errors.New("no topics are followed yet"), "follow one first: papers topic add NAME --query 'ARXIV QUERY'",
				"no tool follows a topic: the user can, in a terminal, with papers topic add NAME --query 'ARXIV QUERY'")
		}
		return topics, nil
	}
	var topics []store.Topic
	for _, n := range names {
		tp, err := Topic(ctx, lib, n)
		if err != nil {
			return nil, err
		}
		topics = append(topics, tp)
	}
	return topics, nil
}
