package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/store"
)

// extract reads a PDF's text and cuts it into body chunks numbered from 1.
func (in *Ingester) extract(ctx context.Context, r *run, id, path string) ([]store.Chunk, int, error) {
	doc, err := extractPDF(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	for _, w := range doc.Warnings {
		r.emit(Event{Kind: Note, Item: id, Msg: w})
	}
	pages := toChunkPages(doc)
	r.emit(Event{Kind: Extracted, Item: id, Pages: len(doc.Pages)})
	return chunk.Body(id, pages, 1, in.Chunking), len(doc.Pages), nil
}

// extractPDF reads the text of the PDF at path. Its errors do not name the
// file: the failure is reported under the item, which does.
func extractPDF(ctx context.Context, path string) (*pdf.Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPathError(err))
	}
	doc, err := pdf.ExtractBytes(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("extract text: %w", err)
	}
	return doc, nil
}

func toChunkPages(doc *pdf.Document) []chunk.Page {
	pages := make([]chunk.Page, len(doc.Pages))
	for i, p := range doc.Pages {
		hs := make([]chunk.Heading, len(p.Headings))
		for k, h := range p.Headings {
			hs[k] = chunk.Heading{Offset: h.Offset, Text: h.Text}
		}
		pages[i] = chunk.Page{N: p.N, Text: p.Text, Headings: hs}
	}
	return pages
}

// Paths ingests local PDFs; directories are walked recursively for *.pdf.
// A directory that cannot be read is skipped with a Warning; one that yields
// no PDF at all is also reported as failed.
// Files are keyed by content hash, so a renamed or copied file is the same
// paper: a second file with the content of one before it in the run is
// reported as skipped, with the first one's name.
func (in *Ingester) Paths(ctx context.Context, paths []string) (*Report, error) {
	r := in.newRun()
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			r.fail(len(files), p, fmt.Errorf("cannot read: %w", unwrapPathError(err)), false)
			files = append(files, "") // keep positions aligned with failures
			continue
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				r.emit(Event{Kind: Warning, Item: path, Msg: "skipped: " + unwrapPathError(err).Error()})
				return nil
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".pdf") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			// a directory given to be ingested that yields nothing is a
			// mistake worth a warning, and a failure of the run
			r.emit(Event{Kind: Warning, Item: p, Msg: "nothing to ingest: no readable PDF files in it"})
			r.lost(len(files), p, errors.New("no readable PDF files in it"))
			files = append(files, "") // keep positions aligned with failures
			continue
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	// hash first, so a file given twice (or copied) is one paper
	type item struct {
		pos  int
		path string
		hash string
	}
	var items []item
	byHash := map[string]int{}
	for i, f := range files {
		if f == "" {
			continue
		}
		hash, err := hashFile(f)
		if err != nil {
			r.fail(i, f, fmt.Errorf("cannot read: %w", unwrapPathError(err)), false)
			continue
		}
		if first, dup := byHash[hash]; dup {
			if filepath.Clean(f) != filepath.Clean(files[first]) { // not merely given twice
				r.skip(i, f, "same content as "+files[first])
			}
			continue
		}
		byHash[hash] = i
		items = append(items, item{pos: i, path: f, hash: hash})
	}
	r.emit(Event{Kind: Queued, N: len(items)})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(in.workers())
	for _, it := range items {
		g.Go(func() error {
			if err := in.ingestFile(gctx, r, it.pos, it.path, it.hash); err != nil {
				if isCancel(gctx, err) {
					return gctx.Err()
				}
				if Systemic(err) {
					return err
				}
				r.fail(it.pos, it.path, err, false)
			}
			return nil
		})
	}
	err := g.Wait()
	return r.report(), err
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ingestFile stores one local PDF.
func (in *Ingester) ingestFile(ctx context.Context, r *run, pos int, path, hash string) error {
	if prev, err := in.Lib.FindByHash(ctx, hash); err == nil {
		r.record(pos, outcome{id: prev.ID, result: store.Unchanged, stored: true})
		r.emit(Event{Kind: Stored, Item: prev.ID, Result: store.Unchanged})
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	id := "pdf:" + hash[:16]
	if prev, err := in.Lib.Get(ctx, id); err == nil {
		if err := checkSource(prev, "pdf"); err != nil {
			return err
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	doc, err := extractPDF(ctx, path)
	if err != nil {
		return err
	}
	r.emit(Event{Kind: Extracted, Item: path, Pages: len(doc.Pages)})
	for _, w := range doc.Warnings {
		r.emit(Event{Kind: Note, Item: path, Msg: w})
	}
	pages := toChunkPages(doc)
	p := store.Paper{
		ID: id, Title: localTitle(doc, path), Source: "pdf", Pages: len(doc.Pages),
		ContentHash: hash, URL: "file://" + absPath(path),
	}
	p.Abstract = findAbstract(pages)
	if doc.ArxivID != "" {
		p.Comment = "arXiv:" + doc.ArxivID
		if t, err := time.Parse("2 Jan 2006", doc.ArxivDate); err == nil {
			p.Published = t
		}
	}
	chunks := append([]store.Chunk{chunk.Abstract(id, p.Title, p.Abstract)}, chunk.Body(id, pages, 1, in.Chunking)...)
	return r.store(ctx, pos, p, chunks, len(doc.Pages))
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// localTitle is the PDF's title, else its first non-trivial line, else the
// file name.
func localTitle(doc *pdf.Document, path string) string {
	if t := strings.Join(strings.Fields(doc.Title), " "); t != "" {
		return t
	}
	if len(doc.Pages) > 0 {
		for _, line := range strings.Split(doc.Pages[0].Text, "\n") {
			line = strings.TrimSpace(line)
			if len(strings.Fields(line)) >= 2 && len(line) <= 200 {
				return line
			}
		}
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

var abstractHead = regexp.MustCompile(`(?i)(^|\n)\s*abstract[\s.:—-]*`)

// findAbstract returns the text after an "Abstract" heading on the first two
// pages, up to the next blank line that follows at least 40 words (or 350
// words), or "" when there is no such heading.
func findAbstract(pages []chunk.Page) string {
	for _, p := range pages[:min(2, len(pages))] {
		loc := abstractHead.FindStringIndex(p.Text)
		if loc == nil {
			continue
		}
		var words []string
		for _, para := range strings.Split(p.Text[loc[1]:], "\n\n") {
			words = append(words, strings.Fields(para)...)
			if len(words) >= 40 {
				break
			}
		}
		return strings.Join(words[:min(len(words), 350)], " ")
	}
	return ""
}

// ErrCorpusUnreadable is the failure of a corpus path that does not exist,
// cannot be opened or is a directory.
var ErrCorpusUnreadable = errors.New("cannot read corpus")

// corpusRecord is one line of a BEIR-style corpus.
type corpusRecord struct {
	ID       string         `json:"_id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

// JSONL ingests a BEIR-style corpus: one {"_id","title","text","metadata"}
// object per line, one paper each, keyed by "_id". Optional metadata:
// published (YYYY-MM-DD), categories, authors (comma-separated or lists),
// url. A line that is not a valid record is reported and skipped. When an
// _id comes twice, the first record is kept and the later one skipped with
// a Warning (the file is read once, as it streams). A path
// that is not a readable file is reported as failed and returned as an
// error wrapping ErrCorpusUnreadable, with the report.
func (in *Ingester) JSONL(ctx context.Context, path string) (*Report, error) {
	r := in.newRun()
	f, err := os.Open(path)
	if err == nil {
		if st, serr := f.Stat(); serr != nil {
			err = serr
		} else if st.IsDir() {
			err = errors.New("is a directory")
		}
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		err = fmt.Errorf("%w: %w", ErrCorpusUnreadable, unwrapPathError(err))
		r.fail(0, path, err, false)
		return r.report(), err
	}
	defer f.Close()
	type rec struct {
		pos  int
		item string
		p    store.Paper
		text string
	}
	recs := make(chan rec, 64)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(recs)
		br := bufio.NewReaderSize(f, 1<<20)
		firstLine := map[string]int{} // _id -> line of the record kept
		for line := 1; ; line++ {
			b, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(b)) > 0 {
				item := fmt.Sprintf("%s:%d", filepath.Base(path), line)
				p, text, perr := parseRecord(b)
				first, dup := firstLine[p.ID]
				switch {
				case perr != nil:
					r.fail(line, item, perr, false)
				case dup:
					r.emit(Event{Kind: Warning, Item: item, Msg: fmt.Sprintf("_id %q again (first at line %d): kept line %d, skipped line %d", p.ID, first, first, line)})
				default:
					firstLine[p.ID] = line
					r.emit(Event{Kind: Queued, N: 1}) // the total is known only at the end
					select {
					case recs <- rec{pos: line, item: item, p: p, text: text}:
					case <-gctx.Done():
						return gctx.Err()
					}
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
		}
	})
	// workers take batches of records: embedded together, committed in one
	// transaction (one fsync per batch, not per record)
	batches := make(chan []rec)
	g.Go(func() error {
		defer close(batches)
		var b []rec
		for rc := range recs {
			b = append(b, rc)
			if len(b) == corpusBatch {
				select {
				case batches <- b:
				case <-gctx.Done():
					return gctx.Err()
				}
				b = nil
			}
		}
		if len(b) > 0 {
			select {
			case batches <- b:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for w := 0; w < in.workers(); w++ {
		g.Go(func() error {
			for b := range batches {
				var todo []pending
				for _, rc := range b {
					if prev, err := in.Lib.Get(gctx, rc.p.ID); err == nil {
						if err := checkSource(prev, "jsonl"); err != nil {
							r.fail(rc.pos, rc.item, err, false)
							continue
						}
						if prev.ContentHash == rc.p.ContentHash {
							r.record(rc.pos, outcome{id: rc.p.ID, result: store.Unchanged, stored: true})
							r.emit(Event{Kind: Stored, Item: rc.p.ID, Result: store.Unchanged})
							continue
						}
					}
					todo = append(todo, pending{pos: rc.pos, paper: rc.p, chunks: recordChunks(rc.p, rc.text, in.Chunking)})
				}
				if err := r.storeBatch(gctx, todo); err != nil {
					if isCancel(gctx, err) {
						return gctx.Err()
					}
					if Systemic(err) {
						return err
					}
					for _, p := range todo {
						r.fail(p.pos, p.paper.ID, err, false)
					}
				}
			}
			return nil
		})
	}
	err = g.Wait()
	return r.report(), err
}

// corpusBatch is how many corpus records are committed per transaction.
const corpusBatch = 64

// recordChunks cuts a corpus record: title and abstract first, then the
// body when the text is longer than the abstract kept.
func recordChunks(p store.Paper, text string, opt chunk.Options) []store.Chunk {
	chunks := []store.Chunk{chunk.Abstract(p.ID, p.Title, p.Abstract)}
	if text != p.Abstract {
		chunks = append(chunks, chunk.Body(p.ID, []chunk.Page{{N: 0, Text: text}}, 1, opt)...)
	}
	return chunks
}

// longText is the number of words above which a record's text is chunked
// as a body rather than kept whole as its abstract.
const longText = 400

// parseRecord turns one corpus line into a paper and its full text.
func parseRecord(line []byte) (store.Paper, string, error) {
	var rc corpusRecord
	if err := json.Unmarshal(line, &rc); err != nil {
		return store.Paper{}, "", fmt.Errorf("not a JSON record: %w", err)
	}
	rc.ID = strings.TrimSpace(rc.ID)
	if rc.ID == "" {
		return store.Paper{}, "", errors.New(`record has no "_id"`)
	}
	if strings.TrimSpace(rc.Title) == "" && strings.TrimSpace(rc.Text) == "" {
		return store.Paper{}, "", fmt.Errorf("record %s has neither title nor text", rc.ID)
	}
	h := sha256.Sum256(line)
	p := store.Paper{
		ID: rc.ID, Title: strings.Join(strings.Fields(rc.Title), " "), Source: "jsonl",
		ContentHash: hex.EncodeToString(h[:]),
	}
	text := strings.TrimSpace(rc.Text)
	if words := strings.Fields(text); len(words) > longText {
		p.Abstract = strings.Join(words[:chunkAbstractWords], " ")
	} else {
		p.Abstract = text
	}
	if p.Title == "" {
		p.Title = firstWords(text, 12)
	}
	md := rc.Metadata
	if s := metaString(md["published"]); s != "" {
		for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01-02T15:04:05", "2006-01", "2006"} {
			if t, err := time.Parse(layout, s); err == nil {
				p.Published = t
				break
			}
		}
	}
	p.Categories = metaList(md["categories"], " ,")
	p.Authors = metaList(md["authors"], ",")
	p.Affiliations = metaList(md["affiliations"], ";")
	p.URL = metaString(md["url"])
	return p, text, nil
}

// chunkAbstractWords is how much of a long record becomes its first chunk.
const chunkAbstractWords = 250

func firstWords(s string, n int) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(n, len(w))], " ")
}

func metaString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return fmt.Sprint(x)
	}
	return ""
}

// metaList accepts a string split on any of seps, or a JSON list of strings.
func metaList(v any, seps string) []string {
	var parts []string
	switch x := v.(type) {
	case string:
		parts = strings.FieldsFunc(x, func(r rune) bool { return strings.ContainsRune(seps, r) })
	case []any:
		for _, e := range x {
			parts = append(parts, metaString(e))
		}
	}
	var out []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
