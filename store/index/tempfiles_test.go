package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/papers-cli/papers/internal/diskfile"
)

// TestOpenRemovesLeftoverTemps: a temporary file of the index (a segment
// or a commit being written) that no process holds (its writer was
// killed) is deleted at the next Open, however recent; one a live writer
// holds stays, and so does everything in an index opened read-only.
func TestOpenRemovesLeftoverTemps(t *testing.T) {
	if !diskfile.HaveLocks {
		t.Skip("no advisory locks on this system: left-over temporaries are removed after a minute")
	}
	dir := t.TempDir()
	left := filepath.Join(dir, "s000001-abcd.seg"+tmpMarker+"12345")
	live := filepath.Join(dir, mergeTmpPrefix+"s000002-abcd.vec"+tmpMarker+"67890")
	for _, f := range []string{left, live} {
		if err := os.WriteFile(f, make([]byte, 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	release := diskfile.HoldTemp(live)
	defer release()
	Open(Config{Dir: dir, ReadOnly: true}).Close()
	if all, _ := TempFiles(dir); len(all) != 2 {
		t.Errorf("an index opened read-only removed temporaries: %v left", all)
	}
	Open(Config{Dir: dir}).Close()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the left-over %s is still there after Open (%v)", filepath.Base(left), err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("Open removed the temporary a live writer holds: %v", err)
	}
}
