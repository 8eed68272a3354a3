package store

import (
	"context"
	"database/sql"
	"errors"
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

// A write that fails part-way leaves the previous state intact.
func TestFailedPutKeepsPreviousState(t *testing.T) {
	ctx := context.Background()
	lib, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	lib.EnsureEmbedder(ctx, "e", 2)
	v := []float32{1, 0}
	if _, err := lib.Put(ctx, Paper{ID: "p", Version: 1}, []Chunk{{Seq: 0, Text: "old", Vector: v}, {Seq: 1, Text: "old1", Vector: v}}); err != nil {
		t.Fatal(err)
	}
	// A cancelled context aborts the transaction after the old chunks were
	// deleted (the cancellation is noticed by the inserts).
	cctx, cancel := context.WithCancel(ctx)
	cs := []Chunk{{Seq: 0, Text: "new", Vector: v}}
	for i := 1; i < 2000; i++ {
		cs = append(cs, Chunk{Seq: i, Text: "new", Vector: v})
	}
	go func() { time.Sleep(5 * time.Millisecond); cancel() }()
	if _, err := lib.Put(cctx, Paper{ID: "p", Version: 2}, cs); err == nil {
		t.Skip("Put finished before the cancellation; nothing to check")
	}
	p, err := lib.Get(ctx, "p")
	if err != nil || p.Version != 1 || p.Chunks != 2 {
		t.Fatalf("after failed Put: %+v, %v", p, err)
	}
	got, _ := lib.Chunks(ctx, "p")
	if len(got) != 2 || got[0].Text != "old" {
		t.Errorf("chunks after failed Put: %+v", got)
	}
	if err := lib.Check(ctx); err != nil {
		t.Error(err)
	}
}
