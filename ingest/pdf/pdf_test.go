package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/pdf/score"
	"github.com/papers-cli/papers/ingest/pdf/syntax"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/role"
)

// dataDir is the shared test data (see package shareddata).
var dataDir = shareddata.Root()

// needData is the folder sub of the shared test data; without it the
// test is left out, saying so.
func needData(t testing.TB, sub string) string {
	t.Helper()
	return shareddata.Path(t, strings.Split(sub, "/")...)
}

func pdfsIn(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDFs in %s: %v", dir, err)
	}
	sort.Strings(files)
	return files
}

// TestQualityAgainstPdftotext scores the extraction of every paper against
// pdftotext's output. Rerun with -v to see the figures.
func TestQualityAgainstPdftotext(t *testing.T) {
	dir := needData(t, "pdfs/papers")
	refs := needData(t, "pdfs/reference-text")
	files := pdfsIn(t, dir)
	var sumW, sumB float64
	minW := 1.0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pdf")
		ref, err := os.ReadFile(filepath.Join(refs, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := extractShared(f)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		r := score.Compare(doc.Text(), string(ref))
		t.Logf("%-44s word P %.3f R %.3f F1 %.3f | bigram P %.3f R %.3f F1 %.3f", name, r.WordP, r.WordR, r.WordF1, r.BigramP, r.BigramR, r.BigramF1)
		// No ligature glyph is lost: a word with fi, fl or ff that
		// pdftotext prints and we do not is one pdftotext joined at a
		// line end ("task-" + "specific": "taskspecific"), which ours has
		// broken at a hyphen.
		for _, w := range score.LigatureMisses(doc.Text(), string(ref)) {
			if !brokenAtHyphen(doc.Text(), w) {
				t.Errorf("%s: %q of pdftotext's text is not in ours, not even broken at a hyphen", name, w)
			}
		}
		sumW += r.WordF1
		sumB += r.BigramF1
		minW = min(minW, r.WordF1)
		if r.WordF1 < 0.95 {
			t.Errorf("%s: word F1 %.3f < 0.95", name, r.WordF1)
		}
	}
	n := float64(len(files))
	t.Logf("mean word F1 %.4f, min %.4f, mean bigram F1 %.4f over %d papers", sumW/n, minW, sumB/n, len(files))
	if sumW/n < 0.98 {
		t.Errorf("mean word F1 %.4f < 0.98", sumW/n)
	}
	if sumB/n < 0.95 {
		t.Errorf("mean bigram F1 %.4f < 0.95", sumB/n)
	}
}

// brokenAtHyphen reports whether text has word w (as score.Words gives
// it) in two parts, the first ending in a hyphen: "task-specific", or
// "sci-" and "entific" read apart where a table's cells meet.
func brokenAtHyphen(text, w string) bool {
	words := map[string]bool{}
	for _, x := range score.Words(text) {
		words[x] = true
	}
	lower := strings.ToLower(text)
	for i := 2; i < len(w)-1; i++ {
		if words[w[i:]] && strings.Contains(lower, w[:i]+"-") {
			return true
		}
	}
	return false
}

// TestAwkward asserts the outcome for each hard PDF.
func TestAwkward(t *testing.T) {
	dir := needData(t, "pdfs/awkward")
	cases := []struct {
		file    string
		err     error  // nil: text expected
		garbled bool   // ErrGarbled or a garbled warning
		want    string // a phrase the text must contain
		pages   int
	}{
		{file: "DA-619p_large_pagecount.pdf", pages: 619},
		{file: "autogen_excerpt_markitdown_test.pdf", want: "multiple agents"},
		{file: "doclaynet_2206.01062_pg3_user_password_1234.pdf", err: ErrEncrypted},
		{file: "french_paper_olap_pdftex.pdf", want: "données"},
		{file: "layoutparser_2p_copy_protected_aes.pdf", want: "layout"},
		{file: "reflexion_2303.11366v4_ios_resaved.pdf", want: "Reflexion"},
		{file: "scanned_chinese_book_image_only.pdf", err: ErrNoText},
		{file: "scanned_memo_with_bad_ocr_layer.pdf", garbled: true},
		{file: "user_password_is_password.pdf", err: ErrEncrypted},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			if c.pages > 100 && raceDetector {
				// The page tree only (see race_test.go): package
				// syntax finds every page.
				data, err := os.ReadFile(filepath.Join(dir, c.file))
				if err != nil {
					t.Fatal(err)
				}
				f, err := syntax.Open(context.Background(), data)
				if err != nil {
					t.Fatal(err)
				}
				if f.NumPages() != c.pages {
					t.Errorf("%d pages, want %d", f.NumPages(), c.pages)
				}
				return
			}
			start := time.Now()
			doc, err := extractShared(filepath.Join(dir, c.file))
			t.Logf("%v, err=%v", time.Since(start).Round(time.Millisecond), err)
			switch {
			case c.garbled:
				if !errors.Is(err, ErrGarbled) && (doc == nil || !hasWarning(doc, "garbled")) {
					t.Fatalf("want ErrGarbled or a garbled warning, got err=%v doc=%v", err, doc != nil)
				}
				return
			case c.err != nil:
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want text", err)
			}
			if c.pages > 0 && len(doc.Pages) != c.pages {
				t.Errorf("%d pages, want %d", len(doc.Pages), c.pages)
			}
			if c.want != "" && !strings.Contains(doc.Text(), c.want) {
				t.Errorf("text lacks %q", c.want)
			}
			if len(strings.Fields(doc.Text())) < 100 {
				t.Errorf("only %d words", len(strings.Fields(doc.Text())))
			}
		})
	}
}

func hasWarning(d *Document, s string) bool {
	for _, w := range d.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestBadInput: files that are not PDFs or are cut short give clear errors.
func TestBadInput(t *testing.T) {
	dir := needData(t, "pdfs/papers")
	paper, err := os.ReadFile(filepath.Join(dir, "toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		path string
		want error
	}{
		{"html instead of pdf", write("a.pdf", []byte("<!DOCTYPE html><html><body>rate limited</body></html>")), ErrNotPDF},
		{"empty", write("b.pdf", nil), ErrNotPDF},
		{"truncated half", write("c.pdf", paper[:len(paper)/2]), ErrTruncated},
		{"truncated header only", write("d.pdf", paper[:20]), ErrTruncated},
	}
	// A PDF 2.0 header, junk before the header and junk after %%EOF (not
	// a truncation) are read: package syntax finding all 17 pages is the
	// test (the content walk of a paper costs seconds under the race
	// detector).
	v2 := append([]byte(nil), paper...)
	copy(v2, "%PDF-2.0")
	junk := append(append([]byte(nil), paper...), []byte("\n<html>appended by a proxy</html>\n")...)
	for name, b := range map[string][]byte{"PDF 2.0": v2, "junk before the header": append([]byte("\r\n\r\n"), paper...), "junk after %%EOF": junk} {
		f, err := syntax.Open(context.Background(), b)
		if err != nil {
			t.Errorf("%s: err = %v", name, err)
		} else if f.NumPages() != 17 {
			t.Errorf("%s: %d pages, want 17", name, f.NumPages())
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ExtractFile(context.Background(), c.path)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
	if _, err := ExtractFile(context.Background(), filepath.Join(tmp, "missing.pdf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestCancel: a cancelled context stops extraction promptly.
func TestCancel(t *testing.T) {
	dir := needData(t, "pdfs/awkward")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ExtractFile(ctx, filepath.Join(dir, "DA-619p_large_pagecount.pdf"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v after cancellation", el)
	}
}

// TestMetadata: title, arXiv stamp and headings of a known paper.
func TestMetadata(t *testing.T) {
	dir := needData(t, "pdfs/papers")
	doc, err := extractShared(filepath.Join(dir, "toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Title, "Toolformer") {
		t.Errorf("title = %q", doc.Title)
	}
	if doc.ArxivID != "2302.04761v1" || doc.ArxivDate != "9 Feb 2023" {
		t.Errorf("arXiv = %q %q", doc.ArxivID, doc.ArxivDate)
	}
	if strings.Contains(bodyText(doc), "arXiv:2302.04761v1") || lineRoles(doc)["arXiv:2302.04761v1 [cs.CL] 9 Feb 2023"] != role.Furniture {
		t.Error("the arXiv stamp is not furniture")
	}
	var heads []string
	for _, p := range doc.Pages {
		for _, h := range p.Headings {
			if !strings.HasPrefix(p.Text[h.Offset:], h.Text) {
				t.Errorf("page %d: heading %q not at offset %d", p.N, h.Text, h.Offset)
			}
			heads = append(heads, h.Text)
		}
	}
	t.Logf("headings: %q", heads)
	for _, want := range []string{"1 Introduction", "2 Approach"} {
		found := false
		for _, h := range heads {
			found = found || h == want
		}
		if !found {
			t.Errorf("heading %q not detected", want)
		}
	}
}

func TestCleanAndDehyphenate(t *testing.T) {
	if got := clean("ef\ufb01cient  \ufb02ow pseudo\u00adAvicenne"); got != "efficient flow pseudo-Avicenne" {
		t.Errorf("clean = %q", got)
	}
	vocab := map[string]bool{"multi-turn": true, "industry": true, "tracemonkey": true}
	cases := []struct{ a, b, wantA, wantB string }{
		{"a multi-", "turn dialogue", "a multi-turn", "dialogue"},
		{"an exam-", "ple here", "an example", "here"},
		{"GPT-", "4 model", "GPT-", "4 model"},
		{"see Smith-", "Jones", "see Smith-", "Jones"},
		{"impressive zero-", "and few-shot", "impressive zero-", "and few-shot"},
		{"the current state-of-", "the-art image", "the current state-of-the-art", "image"},
		{"a state-of-", "the art", "a state-of-the", "art"},
		{"Image Com-", "munication,2013,28(5):522-530.", "Image Communication,2013,28(5):522-530.", ""},
		{"the indus-", "try-level data", "the industry-level", "data"},
		{"the resulting VM Trace-", "Monkey. It", "the resulting VM TraceMonkey.", "It"},
		{"the resulting VM Spider-", "Monkey. It", "the resulting VM Spider-", "Monkey. It"},
	}
	for _, c := range cases {
		ls := []*line{{text: c.a}, {text: c.b}}
		dehyphenate(ls, vocab)
		if ls[0].text != c.wantA || ls[1].text != c.wantB {
			t.Errorf("%q|%q -> %q|%q, want %q|%q", c.a, c.b, ls[0].text, ls[1].text, c.wantA, c.wantB)
		}
	}
}

func BenchmarkExtractPapers(b *testing.B) {
	files := pdfsIn(b, needData(b, "pdfs/papers"))
	var data [][]byte
	total := 0
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
		total += len(d)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range data {
			if _, err := Extract(context.Background(), bytes.NewReader(d), int64(len(d))); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestFormXObjects: AdaRefiner's body is drawn inside Form XObjects; the
// library's own walker found 39 of its ~8,900 words.
func TestFormXObjects(t *testing.T) {
	doc, err := extractShared(filepath.Join(needData(t, "pdfs/papers"), "adarefiner_naacl2024findings.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(score.Words(doc.Text())); n < 8000 {
		t.Errorf("%d words, want over 8,000", n)
	}
}

// TestRebuildXref: a file whose startxref points to the wrong place is read
// after rebuilding its cross-reference table, with a warning
// (two papers: the others are built the same way).
func TestRebuildXref(t *testing.T) {
	dir := needData(t, "pdfs/papers")
	for _, f := range []string{filepath.Join(dir, "arxiv_1111.2011v2.pdf"), filepath.Join(dir, "toolformer_2302.04761v1.pdf")} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := extractShared(f)
			if err != nil {
				t.Fatal(err)
			}
			i := bytes.LastIndex(data, []byte("startxref"))
			broken := append([]byte(nil), data...)
			for j := i + len("startxref"); j < len(broken); j++ {
				if c := broken[j]; c >= '0' && c <= '9' {
					broken[j] = '1' // every digit: the offset now points elsewhere
				} else if c == '%' {
					break
				}
			}
			doc, err := Extract(context.Background(), bytes.NewReader(broken), int64(len(broken)))
			if err != nil {
				t.Fatalf("broken xref: %v", err)
			}
			if !hasWarning(doc, "rebuilt") || len(doc.Pages) != len(want.Pages) {
				t.Errorf("pages %d (want %d), warnings %q", len(doc.Pages), len(want.Pages), doc.Warnings)
			}
			if a, b := len(score.Words(doc.Text())), len(score.Words(want.Text())); a != b {
				t.Errorf("%d words after rebuilding, %d before", a, b)
			}
		})
	}
}
