package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// ingestProgress shows an ingest run on stderr: a live bar on a terminal,
// plain log lines otherwise. It never writes to stdout.
type ingestProgress struct {
	mu       sync.Mutex
	w        io.Writer
	verbose  bool
	bar      *progressbar.ProgressBar
	start    time.Time
	total    int
	finished int
	pdfs     int
	bytes    int64
	pages    int
	chunks   int
	hinted   map[string]bool // hints already shown: each is printed once
}

// newIngestProgress writes to the stderr of s.
func newIngestProgress(s *IOStreams, verbose bool) *ingestProgress {
	w := s.ErrOut
	p := &ingestProgress{w: w, verbose: verbose, start: time.Now(), hinted: map[string]bool{}}
	if s.ErrTTY {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("papers"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSpinnerType(14),
		)
	}
	return p
}

// println writes a line above the bar (or as a log line).
func (p *ingestProgress) println(format string, args ...any) {
	if p.bar != nil {
		p.bar.Clear()
	}
	// ids, paths and messages come from corpora, feeds, PDFs and file
	// names: nothing in them may act on the terminal or forge a line
	fmt.Fprintln(p.w, safetext.Line(fmt.Sprintf(format, args...)))
	if p.bar != nil {
		p.bar.RenderBlank()
	}
}

// logf prints a message of the arXiv client: a note, or a warning as it
// is when it says it is one.
func (p *ingestProgress) logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !strings.HasPrefix(format, "warning: ") {
		format = "note: " + format
	}
	p.println(format, args...)
}

func (p *ingestProgress) event(e ingest.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case ingest.Queued:
		p.total += e.N
		if p.bar != nil {
			p.bar.ChangeMax(p.total)
		}
	case ingest.Downloaded:
		p.pdfs++
		p.bytes += e.Bytes
		if p.verbose && p.bar == nil {
			p.println("downloaded %s (%.1f MB)", e.Item, float64(e.Bytes)/1e6)
		}
	case ingest.Extracted:
		p.pages += e.Pages
	case ingest.Embedded:
		p.chunks += e.Chunks
	case ingest.Stored:
		p.finished++
		if p.bar == nil && (e.Result != store.Unchanged || p.verbose) {
			what := map[store.PutResult]string{store.Added: "added", store.Updated: "updated", store.Unchanged: "unchanged"}[e.Result]
			line := fmt.Sprintf("%s %s", what, e.Item)
			switch {
			case e.Pages > 0:
				line += fmt.Sprintf(" (%s, %s)", textkit.Count(e.Pages, "page"), textkit.Count(e.Chunks, "chunk"))
			case e.Chunks > 0:
				line += " (" + textkit.Count(e.Chunks, "chunk") + ")"
			}
			if e.Msg != "" {
				line += ": " + e.Msg
			}
			p.println("%s", line)
		}
	case ingest.Failed:
		if !e.Kept {
			p.finished++
		}
		if e.Kept {
			p.println("error: %s: %s (abstract kept)", e.Item, e.Msg)
		} else {
			p.println("error: %s: %s", e.Item, e.Msg)
		}
		if h := itemHint(e.Err); h != "" && !p.hinted[h] {
			p.hinted[h] = true
			p.println("hint: %s", h)
		}
	case ingest.Skipped: // never queued, so not counted as finished
		p.println("skipped %s: %s", e.Item, e.Msg)
	case ingest.Warning:
		if e.Item != "" {
			p.println("warning: %s: %s", e.Item, e.Msg)
		} else {
			p.println("warning: %s", e.Msg)
		}
	case ingest.Note:
		if p.verbose {
			if e.Item != "" {
				p.println("note: %s: %s", e.Item, e.Msg)
			} else {
				p.println("note: %s", e.Msg)
			}
		} else if e.Item == "" {
			p.println("note: %s", e.Msg)
		}
	}
	if p.bar != nil {
		secs := time.Since(p.start).Seconds()
		desc := "papers"
		if p.pdfs > 0 {
			desc += fmt.Sprintf(" · %s (%.1f MB)", textkit.Count(p.pdfs, "PDF"), float64(p.bytes)/1e6)
		}
		desc += fmt.Sprintf(" · %s · %s (%.0f chunks/s)", textkit.Count(p.pages, "page"), textkit.Count(p.chunks, "chunk"), float64(p.chunks)/max(secs, 0.001))
		p.bar.Describe(desc)
		p.bar.Set(p.finished)
	}
}

func (p *ingestProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}
