package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenRemovesLeftoverTemps: a temporary file of the index (a segment
// or a commit being written) that no process holds (its writer was
// killed) is deleted at the next Open, however recent; one a live writer
// holds stays.
func TestOpenRemovesLeftoverTemps(t *testing.T) {
	if !haveLocks {
		t.Skip("no advisory locks on this system: left-over temporaries are removed after a minute")
	}
	dir := t.TempDir()
	openWithEmbedder(t, dir, 8).Close()
	if err := os.MkdirAll(filepath.Join(dir, IndexDir), 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(dir, IndexDir, "s000001-abcd.seg"+tmpMarker+"12345")
	live := filepath.Join(dir, IndexDir, mergeTmpPrefix+"s000002-abcd.vec"+tmpMarker+"67890")
	for _, f := range []string{left, live} {
		if err := os.WriteFile(f, make([]byte, 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	release := holdTemp(live)
	defer release()
	openWithEmbedder(t, dir, 8)
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the left-over %s is still there after Open (%v)", filepath.Base(left), err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("Open removed the temporary a live writer holds: %v", err)
	}
}
