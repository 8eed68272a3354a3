package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/papers-cli/papers/ask"
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
	if why := lib.ReadOnly(); why != "" && g.io != nil {
		fmt.Fprintf(g.io.ErrOut, "note: the library at %s is read-only here (%s): reading works, changes fail\n", dir, why)
	}
	for _, n := range lib.MigrationNotes() { // said once: the next open has nothing to migrate
		fmt.Fprintf(g.io.ErrOut, "papers: library upgraded: %s\n", n)
	}
	return lib, nil
}

// storageHint names the fix for a write the library's disk refused; other
// errors are returned as they are.
func storageHint(err error) error {
	switch {
	case errors.Is(err, store.ErrDiskFull):
		return withHint(err, "free some space on the disk holding the library (PAPERS_HOME), then run again: what was stored is kept, the failed write left nothing behind")
	case errors.Is(err, store.ErrReadOnly):
		return withHint(err, "the library can be read here but not changed: to change it, copy the library directory to a writable disk and point PAPERS_HOME (--home) at the copy")
	}
	return err
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

// holdEmbedder keeps a papers reindex (in any process) from changing the
// library's embedder while this run embeds chunks with it. If a reindex is
// running it says so once and waits for it: the caller then picks the
// embedder, the new one.
func holdEmbedder(ctx context.Context, lib *store.Library, stderr io.Writer) (release func(), err error) {
	return lib.HoldEmbedder(ctx, func() {
		fmt.Fprintln(stderr, "waiting for the papers reindex running on this library to finish (Ctrl-C stops)...")
	})
}

// embedderFor returns the embedder a command uses on lib: the one named by
// spec, which must match the library's (a new library records it), or,
// when spec is empty, the one the library was built with (local for a new
// one).
func embedderFor(ctx context.Context, lib *store.Library, spec string, g *globalOptions) (embed.Embedder, error) {
	var e embed.Embedder
	if strings.TrimSpace(spec) != "" {
		var err error
		if e, err = (&embedderFlags{spec: spec}).parse(g); err != nil {
			return nil, err
		}
	} else {
		spec = "local"
	}
	e, err := ask.UseEmbedder(ctx, lib, e, embedOptions(0, g))
	if errors.Is(err, store.ErrEmbedderMismatch) {
		return nil, withHint(err, "run `papers reindex --embedder %s` to re-embed the library, or drop --embedder", spec)
	}
	return e, embedHint(libraryEmbedderHint(err))
}

// libraryEmbedder builds the embedder the library's vectors were made
// with, so that searching never needs --embedder.
func libraryEmbedder(ctx context.Context, lib *store.Library, g *globalOptions) (embed.Embedder, error) {
	e, err := ask.LibraryEmbedder(ctx, lib, embedOptions(0, g))
	return e, libraryEmbedderHint(err)
}

// libraryEmbedderHint names the fix for a library whose embedder this
// version cannot build.
func libraryEmbedderHint(err error) error {
	if errors.Is(err, ask.ErrUnknownEmbedder) {
		return withHint(err, "run `papers reindex --embedder local` to re-embed the library with this version")
	}
	return err
}
