package netlog

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLedgerWrite is the cost a request pays to be recorded: one
// JSON line appended to the ledger file (no fsync: the ledger is a record
// of what happened, not the store of record).
func BenchmarkLedgerWrite(b *testing.B) {
	tr := New(Options{Ledger: filepath.Join(b.TempDir(), LedgerName)})
	defer tr.Close()
	r := &Record{Time: time.Now().UTC(), Host: "export.arxiv.org", Method: "GET", Path: "/api/query",
		Purpose: "arxiv api", Status: 200, Sent: 0, Received: 48213, Millis: 812}
	b.ReportAllocs()
	for b.Loop() {
		tr.record(r)
	}
}
