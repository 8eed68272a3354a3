package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/papers-cli/papers/internal/sqlitefile"
)

// TestRepairRecoversReadablePapers damages pages of a library file of
// SciFact abstracts (random bytes over whole 4 KB pages, the first and
// last fifth of the file left alone) and repairs it: every paper whose
// row and chunks can be read from the damaged file is in the new one,
// exactly as it was (record, chunks, vectors, tags, topic, saved mark),
// no paper is there that was not whole, the new file passes Check, and
// the damaged one is kept beside it.
func TestRepairRecoversReadablePapers(t *testing.T) {
	ctx := context.Background()
	pristine := t.TempDir()
	lib := openWithEmbedder(t, pristine, 32)
	docs := sciFactAbstracts(t, 400)
	r := rand.New(rand.NewPCG(27, 11))
	if err := lib.AddTopic(ctx, Topic{Name: "bio", Query: "abs:cell"}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, d := range docs {
		id := fmt.Sprintf("sf%03d", i)
		var cs []Chunk
		for j, part := range splitSentences(d[1], 3) {
			v := make([]float32, 32)
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			cs = append(cs, Chunk{Seq: j, Text: part, Vector: v})
		}
		if _, err := lib.Put(ctx, Paper{ID: id, Version: 1, Title: d[0], Abstract: d[1], Categories: []string{"q-bio.CB"}}, cs); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if i%7 == 0 {
			if _, err := lib.AddTags(ctx, id, []string{"to-read"}); err != nil {
				t.Fatal(err)
			}
			if _, err := lib.Save(ctx, []string{id}); err != nil {
				t.Fatal(err)
			}
			if err := lib.AddToTopic(ctx, "bio", []string{id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	lib.Close() // a single file: the WAL checkpointed into it

	type whole struct {
		p  Paper
		cs []Chunk
	}
	original := map[string]whole{}
	{
		l, err := Open(ctx, pristine)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			p, err := l.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := l.ChunksWithVectors(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			original[id] = whole{p, cs}
		}
		l.Close()
	}

	for trial := range 3 {
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			dir := t.TempDir()
			b, err := os.ReadFile(filepath.Join(pristine, FileName))
			if err != nil {
				t.Fatal(err)
			}
			pages := len(b) / 4096
			for range 3 {
				p := pages/5 + r.IntN(pages*3/5)
				for i := p * 4096; i < (p+1)*4096; i++ {
					b[i] = byte(r.IntN(256))
				}
			}
			if err := os.WriteFile(filepath.Join(dir, FileName), b, 0o600); err != nil {
				t.Fatal(err)
			}
			readable := readablePapers(t, filepath.Join(dir, FileName), ids)
			rep, err := Repair(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d of %d papers readable by id; repaired %+v", len(readable), len(ids), rep)
			if _, err := os.Stat(rep.Damaged); err != nil {
				t.Errorf("the damaged file was not kept: %v", err)
			}
			l, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if err := l.Check(ctx); err != nil {
				t.Fatalf("the repaired library does not check out: %v", err)
			}
			got := map[string]bool{}
			err = l.EachPaper(ctx, Filter{}, func(p Paper) error {
				got[p.ID] = true
				w, ok := original[p.ID]
				if !ok {
					return fmt.Errorf("paper %s was never stored", p.ID)
				}
				cs, err := l.ChunksWithVectors(ctx, p.ID)
				if err != nil {
					return err
				}
				if p.Title != w.p.Title || p.Abstract != w.p.Abstract || !reflect.DeepEqual(p.Categories, w.p.Categories) || !reflect.DeepEqual(cs, w.cs) {
					return fmt.Errorf("paper %s is not as it was", p.ID)
				}
				if wantSaved := w.p.Saved; !p.Saved.Equal(wantSaved) {
					return fmt.Errorf("paper %s: saved %v, was %v", p.ID, p.Saved, wantSaved)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range readable {
				if !got[id] {
					t.Errorf("paper %s could be read whole from the damaged file and is not in the repaired one", id)
				}
			}
			if len(got)+len(rep.Lost) > len(ids) || rep.Recovered != len(got) {
				t.Errorf("%d recovered, %d listed lost, of %d", len(got), len(rep.Lost), len(ids))
			}
			members, err := l.List(ctx, Filter{Topics: []string{"bio"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range members {
				if n, _ := fmt.Sscanf(p.ID, "sf%d", new(int)); n != 1 || !slices.Contains(ids, p.ID) {
					t.Errorf("topic member %s", p.ID)
				}
			}
		})
	}
}

// readablePapers are the papers of ids whose row and every chunk can be
// read, by id, from the (damaged) library file at path.
func readablePapers(t *testing.T, path string, ids []string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", sqlitefile.URI(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, id := range ids {
		var n int
		if err := db.QueryRow("SELECT chunks FROM papers WHERE id = ?", id).Scan(&n); err != nil {
			continue
		}
		rows, err := db.Query("SELECT seq, text, vector FROM chunks WHERE paper_id = ?", id)
		if err != nil {
			continue
		}
		k := 0
		for rows.Next() {
			var seq int
			var text string
			var v []byte
			if rows.Scan(&seq, &text, &v) == nil {
				k++
			}
		}
		if rows.Err() == nil && k == n {
			out = append(out, id)
		}
		rows.Close()
	}
	return out
}
