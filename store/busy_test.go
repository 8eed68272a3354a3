package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A writer that cannot get the lock within the busy timeout gets ErrBusy
// with a message people understand, while readers are never blocked.
func TestBusyWriterGetsErrBusy(t *testing.T) {
	old := busyTimeout
	busyTimeout = 300 * time.Millisecond
	t.Cleanup(func() { busyTimeout = old })

	ctx := context.Background()
	dir := t.TempDir()
	holder, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := holder.EnsureEmbedder(ctx, "e", 2); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	locked, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- holder.write(ctx, func(tx *sql.Tx) error {
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked

	if _, err := other.List(ctx, Filter{}); err != nil {
		t.Errorf("List while another handle writes: %v", err)
	}
	start := time.Now()
	_, err = other.Put(ctx, Paper{ID: "p"}, []Chunk{{Text: "t", Vector: []float32{1, 0}}})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Put while locked = %v, want ErrBusy", err)
	}
	if !strings.Contains(err.Error(), "another papers process holds the library") {
		t.Errorf("error does not say why: %v", err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Once the lock is free the same Put succeeds.
	if _, err := other.Put(ctx, Paper{ID: "p"}, []Chunk{{Text: "t", Vector: []float32{1, 0}}}); err != nil {
		t.Fatalf("Put after release: %v", err)
	}
}

// A write is all or nothing: a Put cancelled part-way leaves the previous
// state intact, and one that finished left the whole new state. The
// cancellation races the Put, so both outcomes are checked, each time, and
// the race is tried with shorter and shorter delays until it interrupts one.
func TestFailedPutKeepsPreviousState(t *testing.T) {
	ctx := context.Background()
	lib, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	lib.EnsureEmbedder(ctx, "e", 2)
	v := []float32{1, 0}
	interrupted := false
	for try, delay := range []time.Duration{5 * time.Millisecond, 2 * time.Millisecond, time.Millisecond, 200 * time.Microsecond, 0} {
		id := fmt.Sprintf("p%d", try)
		if _, err := lib.Put(ctx, Paper{ID: id, Version: 1}, []Chunk{{Seq: 0, Text: "old", Vector: v}, {Seq: 1, Text: "old1", Vector: v}}); err != nil {
			t.Fatal(err)
		}
		// A cancelled context aborts the transaction, after the old chunks
		// were deleted if it comes late enough (the inserts notice it).
		cctx, cancel := context.WithCancel(ctx)
		cs := []Chunk{{Seq: 0, Text: "new", Vector: v}}
		for i := 1; i < 2000; i++ {
			cs = append(cs, Chunk{Seq: i, Text: "new", Vector: v})
		}
		go func() { time.Sleep(delay); cancel() }()
		_, putErr := lib.Put(cctx, Paper{ID: id, Version: 2}, cs)
		cancel()
		p, err := lib.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := lib.Chunks(ctx, id)
		if putErr == nil {
			if p.Version != 2 || p.Chunks != len(cs) || len(got) != len(cs) {
				t.Fatalf("after a Put that succeeded: version %d, %d chunks (%d stored), want v2 with %d", p.Version, p.Chunks, len(got), len(cs))
			}
		} else {
			interrupted = true
			if p.Version != 1 || p.Chunks != 2 || len(got) != 2 || got[0].Text != "old" {
				t.Fatalf("after a Put that failed (%v): %+v, chunks %+v", putErr, p, got)
			}
		}
		if err := lib.Check(ctx); err != nil {
			t.Fatal(err)
		}
		if interrupted {
			break
		}
	}
	if !interrupted {
		t.Log("every Put finished before its cancellation: only the finished state was checked")
	}
}

// A refresh that cannot get the index's write lock within the busy timeout
// (another process refreshing on a saturated machine) does not fail the
// ingest that asked for it: the paper is in the library, searches find it
// from the change log, and the next refresh indexes it.
func TestRefreshBehindABusyIndexWriter(t *testing.T) {
	old := busyTimeout
	busyTimeout = 300 * time.Millisecond
	t.Cleanup(func() { busyTimeout = old })

	ctx := context.Background()
	dir := t.TempDir()
	lib, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if err := lib.EnsureEmbedder(ctx, "e", 2); err != nil {
		t.Fatal(err)
	}
	put := func(id, text string) {
		t.Helper()
		if _, err := lib.Put(ctx, Paper{ID: id, Title: id}, []Chunk{{Text: text, Vector: []float32{1, 0}}}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "plain words about ribosomes")
	if err := lib.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	holder, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	release, err := holder.ix.HoldWrite(ctx, busyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	put("b", "zymogen granules in acinar cells")
	if err := lib.Refresh(ctx); err != nil {
		t.Fatalf("Refresh while another handle writes the index = %v, want nil (the change waits in the log)", err)
	}
	found := func(when string) {
		t.Helper()
		hits, err := lib.SearchText(ctx, "zymogen", 5, Filter{}, Feedback{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].PaperID != "b" {
			t.Fatalf("search for the new paper %s: %+v, want paper b", when, hits)
		}
	}
	found("while the index is behind")
	release()

	if err := lib.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	found("after the next refresh")
	if err := lib.Check(ctx); err != nil {
		t.Errorf("Check after the index caught up: %v", err)
	}
}
