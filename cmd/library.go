package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/store"
)

// openLibrary opens (creating if needed) the library of this run.
func openLibrary(ctx context.Context, g *globalOptions) (*store.Library, error) {
	dir, err := g.libraryDir()
	if err != nil {
		return nil, err
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return nil, withHint(fmt.Errorf("open the library at %s: %w", dir, err),
			"check the directory is writable, or point PAPERS_HOME (--home) elsewhere")
	}
	return lib, nil
}

// openExisting opens the library for reading; an absent library is an
// error that says how to fill one, and nothing is created.
func openExisting(ctx context.Context, g *globalOptions) (*store.Library, error) {
	dir, err := g.libraryDir()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); errors.Is(err, os.ErrNotExist) {
		return nil, withHint(fmt.Errorf("no papers in the library (%s)", dir),
			"papers ingest 'abs:\"reinforcement learning\" AND abs:agent' --max 20   (or papers ingest ./paper.pdf)")
	}
	return openLibrary(ctx, g)
}

// embedderFor returns the embedder a command uses on lib: the one named by
// spec, which must match the library's (a new library records it), or, when
// spec is empty, the one the library was built with (local for a new one).
func embedderFor(ctx context.Context, lib *store.Library, spec string, errw io.Writer) (embed.Embedder, error) {
	var e embed.Embedder
	var err error
	if strings.TrimSpace(spec) == "" {
		spec = "local"
		_, chunks, cerr := lib.Count(ctx)
		if cerr != nil {
			return nil, cerr
		}
		if chunks == 0 { // nothing embedded yet (or only a failed first try): the default
			e = embed.NewLocal()
		} else {
			e, err = libraryEmbedder(ctx, lib, errw)
		}
	} else {
		e, err = newEmbedder(spec)
	}
	if err != nil {
		return nil, err
	}
	return e, checkEmbedder(ctx, lib, e, spec)
}

// checkEmbedder records e in a new library and refuses one that was built
// with a different embedder.
func checkEmbedder(ctx context.Context, lib *store.Library, e embed.Embedder, spec string) error {
	dims := e.Dimensions()
	if dims == 0 {
		// A model whose size is not in its name: the size the library
		// recorded for it, else ask the server.
		m, err := lib.Manifest(ctx)
		if err != nil {
			return err
		}
		if m.Embedder == e.Name() && m.Dimensions > 0 {
			dims = m.Dimensions
		} else if dims, err = embed.Dimensions(ctx, e); err != nil {
			return embedHint(err)
		}
	}
	err := lib.EnsureEmbedder(ctx, e.Name(), dims)
	if errors.Is(err, store.ErrEmbedderMismatch) {
		return withHint(err, "run `papers reindex --embedder %s` to re-embed the library, or drop --embedder", spec)
	}
	return err
}
