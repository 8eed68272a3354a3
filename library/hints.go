package library

import (
	"context"
	"errors"
	"fmt"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// The hints of the errors a session returns are made here, where what was
// kept is known, so that every front end prints the same advice. Errors
// that come with a hint (a model or embedding server's, a paper or topic
// not found) keep theirs.

// Explain adds to err the hint naming its fix when err has none and the
// fix depends on the library: a full or read-only disk, a library another
// process holds. nil stays nil. Front ends call it on what they report.
func Explain(err error) error {
	if err == nil || hint.Of(err) != "" {
		return err
	}
	switch {
	case store.IsDamaged(err):
		if !errors.Is(err, store.ErrDamaged) {
			err = fmt.Errorf("%w: %w", store.ErrDamaged, err) // SQLite's words alone: "database disk image is malformed (11)"
		}
		return hint.With(err, "%s", RepairHint)
	case errors.Is(err, store.ErrDiskFull):
		return hint.With(err, "free some space on the disk holding the library (PAPERS_HOME), then run again: what was stored is kept, the failed write left nothing behind")
	case errors.Is(err, store.ErrReadOnly):
		return hint.With(err, "the library can be read here but not changed: to change it, copy the library directory to a writable disk and point PAPERS_HOME (--home) at the copy")
	case errors.Is(err, store.ErrBusy):
		return hint.With(err, "another papers process has held the library for over 30 s: run again once it is done; what was stored before is kept")
	}
	return err
}

// RepairHint is the way out of a damaged library file.
const RepairHint = "run `papers check --repair`: it copies every paper it can read into a new library file and keeps the damaged one beside it"

// Explain is the package's Explain for the errors of this session; a
// damaged library file is recorded (store.MarkDamaged), so that every
// later command says so until it is repaired.
func (s *Session) Explain(err error) error {
	if store.IsDamaged(err) && !s.cfg.ReadOnly {
		store.MarkDamaged(s.cfg.Dir, err)
	}
	return Explain(err)
}

// writeError adds to an error that stopped an ingest or an update the
// hint naming its fix; what was stored before it is kept, and the hint
// says so.
func writeError(err error) error {
	if err == nil || hint.Of(err) != "" || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrChunking) {
		return err
	}
	if errors.Is(err, ingest.ErrZoteroUnreadable) {
		return hint.With(err, "give Zotero's data directory, the one holding zotero.sqlite: papers ingest --zotero DIR (Zotero shows it in Settings > Advanced > Files and Folders)")
	}
	if errors.Is(err, ingest.ErrCrossref) {
		return hint.With(err, "check the network, or set PAPERS_CROSSREF_API_URL to a mirror; what was ingested before is kept")
	}
	if h := Explain(err); h != err {
		return h
	}
	if errors.Is(err, store.ErrEmbedderMismatch) {
		return hint.With(err, "run the same command again: it embeds with the library's embedder as it is now; what was ingested before is kept")
	}
	if ingest.Systemic(err) {
		return hint.For(err, "check the embedding server (OPENAI_BASE_URL, OPENAI_API_KEY, or OLLAMA_HOST for ollama:) and the model name, or use --embedder local; what was ingested before is kept",
			"the user fixes the embedding server (OPENAI_BASE_URL, OPENAI_API_KEY, OLLAMA_HOST) in papers mcp's configuration; what was ingested before is kept")
	}
	var api *arxiv.APIError
	if errors.As(err, &api) {
		return hint.For(err, "check the query syntax: ti:, abs:, au:, cat:, AND, OR, ANDNOT, \"phrases\" (https://info.arxiv.org/help/api/user-manual.html)",
			"check query's syntax: ti:, abs:, au:, cat:, AND, OR, ANDNOT, \"phrases\"")
	}
	return hint.For(err, "check the network, or set PAPERS_ARXIV_API_URL to a mirror; what was ingested before is kept",
		"arXiv could not be reached: try again later (what was ingested before is kept); the user can point papers at a mirror with PAPERS_ARXIV_API_URL")
}

// topicError adds to the error that stopped topic name's update the hint
// naming its fix: arXiv's rate limit and outages are waited out, not
// debugged.
func topicError(err error, name string) error {
	var status *arxiv.StatusError
	switch {
	case err == nil || hint.Of(err) != "":
		return err
	case errors.As(err, &status) && status.RateLimited():
		return hint.For(err, fmt.Sprintf("arXiv is limiting requests: wait a few minutes, then run `papers update %s` again; what was stored is kept", hint.Shell(name)),
			fmt.Sprintf("arXiv is limiting requests: wait a few minutes, then call update with topic [%q] again; what was stored is kept", name))
	case errors.As(err, &status) && status.Unavailable():
		return hint.For(err, fmt.Sprintf("arXiv is not answering for now: try `papers update %s` again later; what was stored is kept", hint.Shell(name)),
			fmt.Sprintf("arXiv is not answering for now: call update with topic [%q] again later; what was stored is kept", name))
	}
	return writeError(err)
}

// searchError adds to the error of a search whose embedder failed (its
// server, or a library whose embedder this version cannot build) that the
// search can go on without it.
func searchError(err error) error {
	var oe *openaicompat.Error
	fromEmbedder := errors.As(err, &oe) && oe.Service == openaicompat.Embeddings || errors.Is(err, retrieve.ErrUnknownEmbedder)
	if h := hint.Of(err); fromEmbedder && h != "" {
		return hint.For(err, h+"; or search without the embedder: --mode bm25", hint.ToolOf(err))
	}
	return err
}
