//go:build unix

package localfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/localfile/localfiletest"
)

// TestOpenRefusesWhatIsNotARegularFile: devices, a named pipe with no
// writer (whose ordinary open would block for ever), a socket and a
// directory are refused at once, each named for what it is.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo, sock := localfiletest.Specials(t)
	link := filepath.Join(dir, "zero.pdf")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{
		{"/dev/zero", "a character device"},
		{"/dev/urandom", "a character device"},
		{link, "a character device"},
		{fifo, "a named pipe (FIFO)"},
		{sock, "a socket"},
		{dir, "a directory"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			f, err := Open(context.Background(), c.path, 0)
			if err == nil {
				f.Close()
				t.Fatalf("%s opened", c.path)
			}
			var nr *NotRegularError
			if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) || nr.Kind != c.kind {
				t.Fatalf("%s: %v, want it refused as %s", c.path, err, c.kind)
			}
			if want := c.path + " is " + c.kind + ", not a file"; err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
			if _, err := ReadFile(context.Background(), c.path, 0); !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadFile: %v", err)
			}
		})
	}
}

// TestOpenCapsTheSize: a file over the cap is refused before it is read,
// naming its size and the cap; one at the cap is read whole.
func TestOpenCapsTheSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 3<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(context.Background(), path, 2<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "is 3 MiB, more than the 2 MiB papers reads") {
		t.Fatalf("over the cap: %v", err)
	}
	b, err := ReadFile(context.Background(), path, 3<<20)
	if err != nil || len(b) != 3<<20 {
		t.Fatalf("at the cap: %d bytes, %v", len(b), err)
	}
}

// TestReadStopsAtTheCapWhenTheFileGrows: a file that grows after it was
// opened is cut off at the cap, not followed.
func TestReadStopsAtTheCapWhenTheFileGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows.pdf")
	if err := os.WriteFile(path, []byte("%PDF-1.7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, make([]byte, 4<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := f.Read(make([]byte, 8<<20))
	total := int64(n)
	for err == nil {
		n, err = f.Read(make([]byte, 8<<20))
		total += int64(n)
	}
	if !errors.Is(err, ErrTooLarge) || total > 1<<20+1 {
		t.Fatalf("read %d bytes of a file grown past the cap, then %v", total, err)
	}
}

// TestReadHonoursTheContext: a read after the context ended returns its
// error instead of more bytes.
func TestReadHonoursTheContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.pdf")
	if err := os.WriteFile(path, make([]byte, 4<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, err := Open(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.Read(make([]byte, 8<<20)); n != chunk || err != nil {
		t.Fatalf("first read: %d bytes, %v (want one chunk of %d)", n, err, chunk)
	}
	cancel()
	if n, err := f.Read(make([]byte, 8<<20)); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %d bytes, %v", n, err)
	}
	if _, err := Open(ctx, path, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("open after cancel: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 2048: "2 KiB", 1536 * 1024: "1.5 MiB", 512 << 20: "512 MiB", 3 << 30: "3 GiB", 11<<30 + 1<<29: "12 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
