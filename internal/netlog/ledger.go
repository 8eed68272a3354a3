package netlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// LedgerName is the ledger's file in the library directory: one JSON
// object per line, one line per request, appended as requests end.
// OldLedgerName holds the records before the last rotation.
const (
	LedgerName    = "network.jsonl"
	OldLedgerName = "network.1.jsonl"
)

// MaxLedgerBytes is the size past which the ledger is rotated: the file
// becomes OldLedgerName (replacing the one before) when a process opens it.
// Two files of at most this size hold about 100,000 requests.
const MaxLedgerBytes = 16 << 20

// Record is one request as the ledger keeps it. Sent and Received count
// the bytes of the request and response bodies as they went over the
// connection's HTTP layer (after decompression), not the headers.
type Record struct {
	Time      time.Time `json:"time"` // when the request was sent, UTC
	Host      string    `json:"host"` // host[:port]
	Method    string    `json:"method"`
	Path      string    `json:"path"`    // the URL's path, never its query
	Purpose   string    `json:"purpose"` // "arxiv api", "arxiv pdf", "model", "embeddings", ...
	Status    int       `json:"status"`  // HTTP status; 0 when no response came
	Sent      int64     `json:"bytes_sent"`
	Received  int64     `json:"bytes_received"`
	Millis    int64     `json:"ms"`                   // from sending to the end of the response
	Error     string    `json:"error,omitempty"`      // why it failed, in a word or two
	Model     string    `json:"model,omitempty"`      // the model that answered, for model servers
	TokensIn  int       `json:"tokens_in,omitempty"`  // prompt (input) tokens, as the server counted them
	TokensOut int       `json:"tokens_out,omitempty"` // completion (output) tokens
}

// ledger appends records to the ledger file. Each record is one write(2)
// of one line on a file opened O_APPEND, so processes writing to one
// library at once interleave whole lines; a process killed mid-write
// leaves at most a torn last line, which Read skips.
type ledger struct {
	path string
	warn func(string)

	mu     sync.Mutex
	f      *os.File
	warned bool
	buf    []byte
}

func (l *ledger) append(r *Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := json.Marshal(r)
	if err == nil {
		l.buf = append(append(l.buf[:0], b...), '\n')
		err = l.write(l.buf)
	}
	if err != nil && !l.warned {
		l.warned = true
		if l.warn != nil {
			l.warn(fmt.Sprintf("the network ledger %s could not be written (requests go on unrecorded): %v", l.path, err))
		}
	}
}

func (l *ledger) write(line []byte) error {
	if l.f == nil {
		if err := l.open(); err != nil {
			return err
		}
	}
	_, err := l.f.Write(line)
	return err
}

// open opens the ledger for appending, rotating it first when it has
// grown past MaxLedgerBytes, and creating the library directory (as the
// first ingest would) when there is none.
func (l *ledger) open() error {
	if fi, err := os.Stat(l.path); err == nil && fi.Size() > MaxLedgerBytes {
		old := filepath.Join(filepath.Dir(l.path), OldLedgerName)
		if err := os.Rename(l.path, old); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// A line torn by a crash must not swallow the next record: end it.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil && last[0] != '\n' {
			f.Write([]byte{'\n'})
		}
	}
	l.f = f
	return nil
}

func (l *ledger) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Read returns the records of the ledger in the library directory dir
// (the rotated file's first) sent at or after since (zero: all), oldest
// first. A line that is not a record (a write torn by a crash) is
// skipped; a ledger that does not exist yet holds no records.
func Read(dir string, since time.Time) ([]Record, error) {
	var out []Record
	for _, name := range []string{OldLedgerName, LedgerName} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out, err = readRecords(f, since, out)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, name), err)
		}
	}
	return out, nil
}

func readRecords(r io.Reader, since time.Time, out []Record) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var rec Record
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Time.IsZero() {
			continue
		}
		if !since.IsZero() && rec.Time.Before(since) {
			continue
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return out, err
	}
	return out, nil
}
