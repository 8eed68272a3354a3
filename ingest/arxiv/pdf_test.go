package arxiv_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/shareddata"
)

// TestDownloadPDFContentChecks serves bodies the fake arXiv does not: HTML
// labelled as a PDF, non-PDF bytes, leading whitespace, and a body cut off
// mid-transfer.
func TestDownloadPDFContentChecks(t *testing.T) {
	pdf, err := os.ReadFile(shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		serve   func(w http.ResponseWriter)
		wantErr error
		errText string
		tries   int32
	}{
		{
			name:  "leading whitespace",
			serve: func(w http.ResponseWriter) { w.Write([]byte("\r\n ")); w.Write(pdf) },
			tries: 1,
		},
		{
			name: "HTML labelled as PDF",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/pdf")
				w.Write([]byte("\n<!DOCTYPE html><html>busy</html>"))
			},
			wantErr: arxiv.ErrHTML, errText: "arxiv returned HTML instead of a PDF", tries: 2,
		},
		{
			name:    "not a PDF",
			serve:   func(w http.ResponseWriter) { w.Write([]byte("GIF89a.....")) },
			errText: "not a PDF", tries: 1,
		},
		{
			name: "connection lost mid-body",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Length", strconv.Itoa(len(pdf)))
				w.Write(pdf[:len(pdf)/3])
				// returning early with a short body makes net/http close the connection
			},
			wantErr: arxiv.ErrTruncatedPDF, errText: "connection lost", tries: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tc.serve(w)
			}))
			defer srv.Close()
			c := arxiv.New()
			c.PDFURL, c.Delay, c.Backoff, c.MaxTries = srv.URL+"/pdf/", time.Millisecond, time.Millisecond, 2
			path := filepath.Join(t.TempDir(), "p.pdf")
			n, err := c.DownloadPDF(context.Background(), "2302.04761v1", path)
			if hits.Load() != tc.tries {
				t.Errorf("%d requests, want %d", hits.Load(), tc.tries)
			}
			if tc.errText == "" {
				if err != nil || n != int64(len(pdf)+3) {
					t.Errorf("n, err = %d, %v; want %d, nil", n, err, len(pdf)+3)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errText) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Errorf("err = %v, want %v containing %q", err, tc.wantErr, tc.errText)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("failed download left a file: %v", err)
			}
		})
	}
}
