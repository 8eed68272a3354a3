package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/beir"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/localfile"
	"github.com/papers-cli/papers/internal/people"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// ErrCorpusUnreadable is the failure of a corpus path that does not exist,
// cannot be opened or is a directory.
var ErrCorpusUnreadable = errors.New("cannot read corpus")

// corpusRecord is one line of a BEIR-style corpus.
type corpusRecord struct {
	ID       beir.ID        `json:"_id"`
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
	f, err := localfile.Open(ctx, path, 0) // streamed: no cap but the records'
	if err != nil {
		err = fmt.Errorf("%w: %w", ErrCorpusUnreadable, unwrapPathError(err))
		r.fail(0, path, err, false)
		return r.report(), err
	}
	defer f.Close()
	src, err := maybeGzip(f)
	if err != nil {
		err = fmt.Errorf("%w: %s: %w", ErrCorpusUnreadable, path, err)
		r.fail(0, path, err, false)
		return r.report(), err
	}
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
		lr := newLineReader(src, in.maxRecordBytes())
		firstLine := map[string]int{} // _id -> line of the record kept
		for line := 1; ; line++ {
			b, size, err := lr.next()
			if len(bytes.TrimSpace(b)) > 0 || size > 0 {
				item := fmt.Sprintf("%s:%d", filepath.Base(path), line)
				var p store.Paper
				var text string
				perr := recordTooLarge(size, in.maxRecordBytes())
				if perr == nil {
					p, text, perr = parseRecord(b)
				}
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
					if rc.p.ArxivID != "" || rc.p.DOI != "" {
						// a record of a paper known by other names: it joins the
						// paper held under them (see merge.go)
						if err := in.putRecord(gctx, r, rc.pos, rc.item, rc.p, rc.text); err != nil {
							if isCancel(gctx, err) {
								return gctx.Err()
							}
							if Systemic(err) {
								return err
							}
							r.fail(rc.pos, rc.item, err, false)
						}
						continue
					}
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
					// One record's failure fails its batch's transaction:
					// store them one by one, so that each fails (or not)
					// for its own reason.
					for _, p := range todo {
						if err := r.storeBatch(gctx, []pending{p}); err != nil {
							if isCancel(gctx, err) {
								return gctx.Err()
							}
							if Systemic(err) {
								return err
							}
							r.fail(p.pos, p.paper.ID, err, false)
						}
					}
				}
			}
			return nil
		})
	}
	err = g.Wait()
	return r.report(), err
}

// putRecord stores a corpus record that names its paper (an arXiv id or a
// DOI in its metadata), merged with what the library holds of that paper.
// A record the library holds unchanged costs no embedding.
func (in *Ingester) putRecord(ctx context.Context, r *run, pos int, item string, p store.Paper, text string) error {
	if rec, err := in.Lib.Identifier(ctx, store.IDAlias, p.ID); err == nil && rec.Stamp == p.ContentHash {
		r.record(pos, outcome{id: rec.PaperID, result: store.Unchanged, stored: true})
		r.emit(Event{Kind: Stored, Item: rec.PaperID, Result: store.Unchanged})
		return nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	c := candidate{pos: pos, item: item, paper: p, tagSource: "corpus"}
	c.chunks = recordChunks(p, text, in.Chunking)
	c.body = len(c.chunks) > 1
	if p.ArxivID != "" {
		c.paper.ID = p.ArxivID // keyed by the arXiv id
	}
	// The record's _id finds the paper it joined, and its stamp tells a
	// re-run the record is unchanged.
	c.ids = append(c.ids, store.Identifier{Kind: store.IDAlias, Value: p.ID, Stamp: p.ContentHash})
	_, err := r.embedAndPut(ctx, c, false)
	return err
}

// corpusBatch is how many corpus records are committed per transaction.
const corpusBatch = 64

// DefaultMaxRecordBytes bounds one corpus line (Ingester.MaxRecordBytes):
// a paper's full text is rarely over 1 MiB; a line is held whole while it
// is parsed, chunked and embedded, so without a bound one huge record
// (200 MB) costs gigabytes.
const DefaultMaxRecordBytes = 16 << 20

func (in *Ingester) maxRecordBytes() int {
	if in.MaxRecordBytes > 0 {
		return in.MaxRecordBytes
	}
	return DefaultMaxRecordBytes
}

// recordTooLarge is the failure of a line of size bytes over max (size is
// 0 for a line within it).
func recordTooLarge(size int64, max int) error {
	if size == 0 {
		return nil
	}
	return fmt.Errorf("record of %d MiB is larger than the %d MiB a record may be: split its text into several records (or leave it out)", (size+1<<20-1)>>20, max>>20)
}

// maybeGzip reads r through gzip when it starts with gzip's magic bytes
// (a corpus.jsonl.gz), else as it is.
func maybeGzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(2)
	if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return zr, nil
}

// lineReader reads lines of at most max bytes; the rest of a longer line is
// read past without being kept.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<20), max: max}
}

// next returns the next line (with its newline, if any) and 0, or, for a
// line over max bytes, nil and its size. err is io.EOF after the last line.
func (lr *lineReader) next() (line []byte, tooLong int64, err error) {
	lr.buf = lr.buf[:0]
	var size int64
	for {
		frag, err := lr.br.ReadSlice('\n')
		size += int64(len(frag))
		if size <= int64(lr.max) {
			lr.buf = append(lr.buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if size > int64(lr.max) {
			return nil, size, err
		}
		return lr.buf, 0, err
	}
}

// CorpusRecords reads the corpus file at path (JSONL, gzipped or not) as
// CorpusRecord reads each line, and calls fn with every paper whose ID
// keep accepts (every paper when keep is nil; the others are not cut into
// chunks). An error of a line names it; fn's error stops the reading and
// is returned.
func CorpusRecords(path string, opt chunk.Options, keep func(id string) bool, fn func(store.Paper, []store.Chunk) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := maybeGzip(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		p, text, err := parseRecord(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if keep != nil && !keep(p.ID) {
			continue
		}
		if err := fn(p, recordChunks(p, text, opt)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// CorpusRecord reads one line of a corpus and cuts it into the chunks JSONL
// ingest stores for it (chunk 0 the title and abstract), with no library:
// for tools that read a corpus as the library would hold it, such as the
// trainer of the answer model. The paper's ID is the record's _id.
func CorpusRecord(line []byte, opt chunk.Options) (store.Paper, []store.Chunk, error) {
	p, text, err := parseRecord(line)
	if err != nil {
		return store.Paper{}, nil, err
	}
	return p, recordChunks(p, text, opt), nil
}

// recordChunks cuts a corpus record: title and abstract first, then the
// body when the text is longer than the abstract kept.
// A text that opens with an "Abstract" heading is cut after it, so the
// abstract is not a passage twice; its headings start sections.
func recordChunks(p store.Paper, text string, opt chunk.Options) []store.Chunk {
	chunks := []store.Chunk{chunk.Abstract(p.ID, p.Title, p.Abstract)}
	if text == p.Abstract {
		return chunks
	}
	ct := parseCorpusText(text)
	if strings.TrimSpace(ct.Body.Text) != "" {
		chunks = append(chunks, chunk.Body(p.ID, []chunk.Page{ct.Body}, 1, opt)...)
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
	id, err := checkCorpusID(string(rc.ID))
	if err != nil {
		return store.Paper{}, "", err
	}
	if strings.TrimSpace(rc.Title) == "" && strings.TrimSpace(rc.Text) == "" {
		return store.Paper{}, "", fmt.Errorf("record %s has neither title nor text", id)
	}
	h := sha256.Sum256(line)
	p := store.Paper{
		ID: id, Title: strings.Join(strings.Fields(rc.Title), " "), Source: "jsonl",
		ContentHash: hex.EncodeToString(h[:]),
	}
	text := strings.TrimSpace(rc.Text)
	if words := strings.Fields(text); len(words) > longText {
		p.Abstract = strings.Join(words[:chunkAbstractWords], " ")
		if a := parseCorpusText(text).Abstract; a != "" {
			p.Abstract = a
		}
	} else {
		p.Abstract = text
	}
	if p.Title == "" {
		p.Title, _ = textkit.FirstWords(text, 12)
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
	p.Authors = people.SplitEach(metaList(md["authors"], "\x00")) // a string is one list; a list's entries may be lists too
	p.Affiliations = footnoted(metaList(md["affiliations"], ";·"))
	p.URL = metaString(md["url"])
	for _, t := range metaList(md["tags"], ",;|·") {
		p.Tags = append(p.Tags, store.Tag{Name: moreTags.ReplaceAllString(t, ""), Source: "corpus"})
	}
	p.DOI = store.NormalizeDOI(metaString(md["doi"]))
	for _, v := range []string{metaString(md["arxiv_id"]), metaString(md["arxiv"]), metaString(md["eprint"]), p.URL, doi.Arxiv(p.DOI)} {
		if id, _, err := arxiv.ParseID(v); err == nil {
			p.ArxivID = id
			break
		}
	}
	return p, text, nil
}

// footnoted strips the footnote numbers a paper's header puts before its
// affiliations ("1Oregon State University · 2Pennsylvania State
// University", as research feeds copy them): only when every affiliation
// starts with its own number, 1, 2, 3..., so that a name starting with a
// digit ("3M") is left alone.
func footnoted(as []string) []string {
	if len(as) < 2 {
		return as
	}
	for i, a := range as {
		n := strconv.Itoa(i + 1)
		rest, ok := strings.CutPrefix(a, n)
		if !ok || rest == "" || rest[0] >= '0' && rest[0] <= '9' {
			return as
		}
	}
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = strings.TrimSpace(strings.TrimPrefix(a, strconv.Itoa(i+1)))
	}
	return out
}

// moreTags is the "+2" a tag list ends with where it left tags out.
var moreTags = lazyre.New(`\s*\+\d+$`)

// checkCorpusID returns the library key of a corpus record's _id, trimmed,
// or why it cannot be one. The library keys arXiv papers by their bare
// versionless id, and every command that takes an id reads "2501.12948v1",
// "arXiv:2501.12948" or an arxiv.org URL as that arXiv paper: a record
// stored under such an id could never be shown or removed by it (and rm
// would remove the arXiv paper instead), so it is refused with the id to
// use. A bare arXiv id is accepted: it is the paper's own key (an arXiv
// paper already held under it makes the record an id clash). Control
// characters are refused: ids are printed as they are.
func checkCorpusID(raw string) (string, error) {
	id := strings.TrimSpace(raw)
	switch {
	case id == "":
		return "", errors.New(`record has no "_id"`)
	case strings.IndexFunc(id, unicode.IsControl) >= 0 || safetext.Clean(id) != id:
		return "", fmt.Errorf("_id %q has a control character: give the record an id of printable characters", safetext.Line(id))
	}
	if bare, _, err := arxiv.ParseID(id); err == nil && bare != id {
		return "", fmt.Errorf("_id %q is an arXiv id in another form than the library keys papers by, so ids would name the arXiv paper %s instead: "+
			"give the record the _id %q (or an id that is not an arXiv id, such as \"corpus:%s\")", id, bare, bare, id)
	}
	return id, nil
}

// chunkAbstractWords is how much of a long record becomes its first chunk.
const chunkAbstractWords = 250

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
