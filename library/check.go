package library

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/papers-cli/papers/store"
)

// CheckReport is what Check found and, with repair, did.
type CheckReport struct {
	Papers   int       `json:"papers"`
	Chunks   int       `json:"chunks"`
	Problems []Problem `json:"problems"` // found, before any repair
	// Repaired is what the repair of a damaged library file did (nil when
	// the file was whole or not repaired).
	Repaired *store.RepairReport `json:"repaired,omitempty"`
	// Rebuilt names the derived parts rebuilt: "index", "vectors".
	Rebuilt []string `json:"rebuilt,omitempty"`
	// OK is true when, after the repair if any, the library checks out.
	OK bool `json:"ok"`
}

// Problem is one thing wrong with the library and how it is fixed.
type Problem struct {
	Part string `json:"part"` // "library", "index" or "vectors"
	What string `json:"what"`
	Fix  string `json:"fix"`
}

// fixes of each part's problems, as Check words them.
var fixes = map[string]string{
	store.PartLibrary: RepairHint,
	store.PartIndex:   "run `papers check --repair` (or delete the index directory): the search index is rebuilt from the library file",
	store.PartVectors: "run `papers check --repair` (or delete papers.vec): the paper vectors are rebuilt from the library file",
}

// Check verifies the library (store.Library.Diagnose: the library file,
// the paper vectors, the search index against the library) and, with
// repair, fixes what it found: a damaged library file is copied, what can
// be read of it (store.Repair), into a new one, the damaged one kept
// beside it; a damaged index or paper vectors file is rebuilt from the
// library file. Then it checks again. Nothing is written without repair
// (but the damage record, see store.MarkDamaged).
func (s *Session) Check(ctx context.Context, repair bool) (*CheckReport, error) {
	lib, err := s.Store(ctx)
	if err != nil && !(repair && store.IsDamaged(err)) {
		return nil, err
	}
	rep := &CheckReport{}
	var parts []string
	if err != nil { // a file too damaged to open: repaired below
		rep.Problems = append(rep.Problems, Problem{Part: store.PartLibrary, What: err.Error(), Fix: fixes[store.PartLibrary]})
		parts = append(parts, store.PartLibrary)
	} else {
		for _, p := range lib.Diagnose(ctx) {
			rep.Problems = append(rep.Problems, Problem{Part: p.Part, What: p.What, Fix: fixes[p.Part]})
			parts = append(parts, p.Part)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if repair && len(parts) > 0 {
		if err := s.repair(ctx, parts, rep); err != nil {
			return rep, err
		}
		if lib, err = s.Store(ctx); err != nil {
			return rep, err
		}
		rep.Problems = rep.Problems[:len(rep.Problems):len(rep.Problems)]
		if again := lib.Diagnose(ctx); len(again) > 0 {
			return rep, fmt.Errorf("after the repair: %s", again[0].What)
		}
		rep.OK = true
	} else {
		rep.OK = len(parts) == 0
	}
	if lib != nil {
		rep.Papers, rep.Chunks, _ = lib.Count(ctx)
	}
	return rep, nil
}

// repair fixes the damaged parts: the library file first (its derived
// parts are rebuilt after it anyway), then the index and the vectors.
func (s *Session) repair(ctx context.Context, parts []string, rep *CheckReport) error {
	dir := s.cfg.Dir
	has := func(p string) bool {
		for _, x := range parts {
			if x == p {
				return true
			}
		}
		return false
	}
	if err := s.Close(); err != nil && !store.IsDamaged(err) {
		return err
	}
	if has(store.PartLibrary) {
		r, err := store.Repair(ctx, dir)
		if err != nil {
			return err
		}
		rep.Repaired = r
		rep.Rebuilt = append(rep.Rebuilt, store.PartIndex, store.PartVectors)
	} else {
		if has(store.PartIndex) {
			if err := os.RemoveAll(filepath.Join(dir, store.IndexDir)); err != nil {
				return err
			}
			rep.Rebuilt = append(rep.Rebuilt, store.PartIndex)
		}
		if has(store.PartVectors) {
			if err := os.Remove(filepath.Join(dir, store.PaperVectorsName)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			rep.Rebuilt = append(rep.Rebuilt, store.PartVectors)
		}
	}
	lib, err := s.Store(ctx)
	if err != nil {
		return err
	}
	if err := lib.Refresh(ctx); err != nil {
		return fmt.Errorf("rebuild the search index: %w", err)
	}
	pv, err := lib.PaperVectors(ctx)
	if err != nil {
		return fmt.Errorf("rebuild the paper vectors: %w", err)
	}
	return pv.Close()
}
