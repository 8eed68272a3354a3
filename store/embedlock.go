package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/papers-cli/papers/internal/diskfile"
)

// LockFileName is the file beside the database that HoldEmbedder and
// Reindex lock (an advisory lock: the kernel drops it when a process
// dies, kill -9 included, so it is never left stale).
const LockFileName = "embedder.lock"

// lockPoll is how often a waiting lock is tried again.
const lockPoll = 100 * time.Millisecond

// HoldEmbedder keeps the library's embedder from changing until release
// is called: Reindex in any process waits for every holder. Commands that
// embed chunks with the library's embedder (ingest, update) hold it from
// choosing the embedder to their last Put, so their vectors always match
// the manifest; any number of them may hold it at once. If a Reindex is
// running, HoldEmbedder calls waiting once (with nil it waits silently)
// and blocks until the reindex ends or ctx is done; the caller should then
// read the manifest afresh.
//
// A library that cannot be written (a read-only medium, say) needs no
// holding: HoldEmbedder returns a no-op release. On systems without
// advisory file locks it is a no-op, and a change of embedder under a
// running ingest is caught by PutBatch (ErrEmbedderMismatch).
func (l *Library) HoldEmbedder(ctx context.Context, waiting func()) (release func(), err error) {
	return l.lockEmbedder(ctx, false, waiting)
}

// lockEmbedder takes the embedder lock, shared or exclusive, polling while
// another process holds it in a conflicting mode.
func (l *Library) lockEmbedder(ctx context.Context, exclusive bool, waiting func()) (func(), error) {
	if l.eng != nil {
		return l.eng.HoldEmbedder(ctx, exclusive, waiting)
	}
	path := filepath.Join(l.dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if f, err = os.Open(path); err != nil {
			return func() {}, nil // cannot be written: nothing can change the embedder here either
		}
	}
	for notified := false; ; {
		err := diskfile.TryLock(f, exclusive)
		if err == nil {
			return func() { diskfile.Unlock(f); f.Close() }, nil
		}
		if !errors.Is(err, diskfile.ErrWouldBlock) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !notified && waiting != nil {
			waiting()
		}
		notified = true
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}
