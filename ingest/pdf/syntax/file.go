package syntax

import (
	"bytes"
	"context"
	"errors"
	"fmt"
)

// MaxDecodedBytes caps the stream data decoded for one file, all streams
// together: a bound on the work, as MaxStreamBytes bounds what one stream
// holds. A document's content streams are decoded page by page and let go.
var MaxDecodedBytes = int64(2 << 30)

type budget struct{ decoded int64 }

type notes struct {
	pageLoop bool
	dupPages int
	scanUsed bool
}

// File is a PDF file opened for reading; its objects are read (and read
// again) on demand through Values. It holds the file's bytes, its
// cross-reference data and a bounded cache of decoded object streams. A
// File is not safe for concurrent use.
type File struct {
	d     *document
	root  pdfDict
	pages []page
	// Warnings say what was repaired: a rebuilt cross-reference table, a
	// file that ends early, a page tree that loops or lists pages twice.
	Warnings []string
}

// Open reads the structure of the PDF in data (a whole file, which the File
// keeps and never modifies): header, cross-reference data, encryption,
// catalog and page tree. Damaged cross-reference data is rebuilt from a scan
// of the file. Errors wrap ErrNotPDF, ErrTruncated, ErrEncrypted,
// ErrUnsupported, ErrMalformed or ErrTooLarge (or ctx's cause), and never
// quote bytes of the file.
func Open(ctx context.Context, data []byte) (f *File, err error) {
	defer func() {
		if x := recover(); x != nil {
			a, ok := x.(Abort)
			if !ok {
				panic(x) // a bug in this layer, not in the file: let it show
			}
			f, err = nil, a.Err
		}
	}()
	start, err := headerOffset(data)
	if err != nil {
		return nil, err
	}
	d := &document{
		ctx: ctx, data: data, shift: int64(start),
		stms: map[uint32]*objStm{}, resolving: map[uint32]bool{}, budget: &budget{},
	}
	truncated := lastEOF(data) < 0
	ok := d.readXref()
	if ok {
		if err := d.setupCrypt(); err != nil {
			if !errors.Is(err, errNoEncryptDict) {
				return nil, err
			}
			ok = false
		}
	}
	if !ok || !d.isCatalog(d.resolve(d.trailer["Root"])) {
		if err := d.rebuild(); err != nil {
			return nil, err
		}
	}
	root, ok := d.resolve(d.trailer["Root"]).(pdfDict)
	if !ok || !d.isCatalog(root) {
		if truncated {
			return nil, errorf(ErrTruncated, "no document catalog before the end")
		}
		return nil, errorf(ErrMalformed, "no document catalog (the file is damaged or not a document)")
	}
	pages := d.flattenPages(root)
	if len(pages) == 0 {
		switch {
		case truncated:
			return nil, errorf(ErrTruncated, "no pages before the end")
		case d.notes.pageLoop:
			return nil, errorf(ErrMalformed, "the page tree loops back on itself and holds no page")
		}
		return nil, errorf(ErrMalformed, "the page tree holds no page")
	}
	f = &File{d: d, root: root, pages: pages}
	if d.rebuilt || d.notes.scanUsed {
		f.Warnings = append(f.Warnings, "the cross-reference table was damaged and has been rebuilt")
	}
	if truncated {
		f.Warnings = append(f.Warnings, "the file ends early (an incomplete download?): pages or text may be missing")
	}
	if d.notes.pageLoop {
		f.Warnings = append(f.Warnings, "the page tree loops back on itself: the pages it reaches were read")
	}
	if d.notes.dupPages > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("the page tree lists %d pages more than once: each was read once", d.notes.dupPages))
	}
	if len(pages) >= MaxPages {
		f.Warnings = append(f.Warnings, fmt.Sprintf("only the first %d pages were read", MaxPages))
	}
	return f, nil
}

// NumPages is the number of pages of the page tree (at most MaxPages).
func (f *File) NumPages() int { return len(f.pages) }

// Page is page i (from 0): its dictionary, with the attributes it inherits
// from the page tree (Resources, MediaBox, CropBox, Rotate) filled in.
func (f *File) Page(i int) Value { return Value{f: f, v: f.pages[i].dict, num: f.pages[i].num} }

// Root is the document catalog.
func (f *File) Root() Value { return Value{f: f, v: f.root} }

// Trailer is the file's trailer dictionary (Info, ID, ...).
func (f *File) Trailer() Value { return Value{f: f, v: f.d.trailer} }

var errNoEncryptDict = errorf(ErrMalformed, "the encryption dictionary is missing")

// setupCrypt reads the trailer's /Encrypt, if any, and sets up decryption.
// Object streams decoded before the key was known are dropped.
func (d *document) setupCrypt() error {
	d.crypt = nil
	enc := d.trailer["Encrypt"]
	if enc == nil {
		return nil
	}
	ed, ok := d.resolve(enc).(pdfDict)
	if !ok {
		return errNoEncryptDict
	}
	var id []byte
	if ids, ok := d.resolve(d.trailer["ID"]).(pdfArray); ok && len(ids) > 0 {
		s, _ := ids[0].(pdfString)
		id = []byte(s)
	}
	c, err := newDecrypter(ed, id)
	if err != nil {
		return err
	}
	if r, ok := enc.(pdfRef); ok {
		c.encryptNum = r.num
	}
	d.crypt = c
	clear(d.stms)
	return nil
}

// headerOffset finds "%PDF-" in the first 1 KB, as readers do.
func headerOffset(data []byte) (int, error) {
	if len(data) < 8 {
		return 0, ErrNotPDF
	}
	i := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-"))
	if i < 0 {
		return 0, ErrNotPDF
	}
	return i, nil
}

// lastEOF returns the offset of the last "%%EOF" in the final 64 KB of the
// file, or -1: a file without one was cut short.
func lastEOF(data []byte) int {
	from := max(0, len(data)-64<<10)
	i := bytes.LastIndex(data[from:], []byte("%%EOF"))
	if i < 0 {
		return -1
	}
	return from + i
}

// filterList returns the filter names of a /Filter value.
func filterList(v any) []pdfName {
	switch f := v.(type) {
	case pdfName:
		return []pdfName{f}
	case pdfArray:
		out := make([]pdfName, 0, len(f))
		for _, x := range f {
			if n, ok := x.(pdfName); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

// decodeStream decrypts (when decrypt is set and the file is encrypted)
// and decodes stream s, keeping at most limit bytes (and MaxStreamBytes;
// ErrStreamTooLarge says the data went on). It returns what was decoded
// before an error; an image codec or unknown filter returns nil data and an
// error. A run of FlateDecode filters (a stream compressed twice, as the
// compression bombs are) is inflated as one pipe: no stage but the last is
// held whole.
func (d *document) decodeStream(s *pdfStream, decrypt bool, limit int) ([]byte, error) {
	data := s.raw
	if decrypt && d.crypt != nil {
		data = d.crypt.stream(s)
	}
	filters := filterList(d.resolve(s.dict["Filter"]))
	pv := d.resolve(s.dict["DecodeParms"])
	if pv == nil {
		pv = d.resolve(s.dict["DP"])
	}
	parmsOf := func(i int) pdfDict {
		switch p := pv.(type) {
		case pdfDict:
			if i == 0 {
				return p
			}
		case pdfArray:
			if i < len(p) {
				q, _ := d.resolve(p[i]).(pdfDict)
				return q
			}
		}
		return nil
	}
	limit = min(limit, MaxStreamBytes)
	var err error
	for i := 0; i < len(filters); {
		left := MaxDecodedBytes - d.budget.decoded
		if left <= 0 {
			panic(Abort{errorf(ErrTooLarge, "its streams decode to more than %d MB", MaxDecodedBytes>>20)})
		}
		// intermediate stages are held up to MaxStreamBytes, the last up
		// to limit
		stage := MaxStreamBytes
		j := i
		for j < len(filters) && isFlate(filters[j]) && !predicted(parmsOf(j)) {
			j++
		}
		if j == len(filters) || j == i && i+1 == len(filters) {
			stage = limit
		}
		stage = int(min(int64(stage), left))
		var out []byte
		if j > i {
			out, err = inflateChain(data, j-i, stage)
			i = j
		} else {
			out, err = decodeFilter(filters[i], parmsOf(i), data, stage)
			i++
		}
		if errors.Is(err, errImageFilter) || errors.Is(err, errUnknownFilter) {
			return nil, err
		}
		d.budget.decoded += int64(len(out))
		data = out
		if errors.Is(err, ErrStreamTooLarge) && int64(stage) == left && left < int64(MaxStreamBytes) {
			panic(Abort{errorf(ErrTooLarge, "its streams decode to more than %d MB", MaxDecodedBytes>>20)})
		}
		if err != nil {
			break // keep what was decoded, as pdftotext does
		}
	}
	if len(data) > limit {
		return data[:limit], ErrStreamTooLarge
	}
	return data, err
}

var errNotStream = errors.New("not a stream")

func isFlate(n pdfName) bool { return n == "FlateDecode" || n == "Fl" }

// predicted says whether a filter's parameters ask for a predictor.
func predicted(p pdfDict) bool {
	pred, _ := intOf(p["Predictor"])
	return pred > 1
}

// pageAttrs are the attributes a page inherits from its ancestors.
var pageAttrs = []pdfName{"Resources", "MediaBox", "CropBox", "Rotate"}

// page is a leaf of the page tree: its object number (0 for a direct
// dictionary) and its dictionary with inherited attributes filled in.
type page struct {
	num  uint32
	dict pdfDict
}

// flattenPages walks the page tree with a visited set, so that a loop or a
// node listed twice is read once (the library's own Page(n) loops forever
// on a cyclic tree).
func (d *document) flattenPages(root pdfDict) []page {
	var pages []page
	seen, onPath := map[uint32]bool{}, map[uint32]bool{}
	var walk func(v any, inherited pdfDict, depth int)
	walk = func(v any, inherited pdfDict, depth int) {
		if len(pages) >= MaxPages || depth > 64 {
			return
		}
		var num uint32
		if r, ok := v.(pdfRef); ok {
			num = r.num
			switch {
			case onPath[num]:
				d.notes.pageLoop = true
				return
			case seen[num]:
				d.notes.dupPages++
				return
			}
			seen[num], onPath[num] = true, true
			defer delete(onPath, num)
		}
		node, ok := d.resolve(v).(pdfDict)
		if !ok {
			return
		}
		kids, hasKids := d.resolve(node["Kids"]).(pdfArray)
		typ := node.name("Type")
		if typ == "Page" || (!hasKids && typ != "Pages" && node["Contents"] != nil) {
			p := pdfDict{}
			for k, x := range node {
				p[k] = x
			}
			for _, k := range pageAttrs {
				if _, has := p[k]; !has && inherited[k] != nil {
					p[k] = inherited[k]
				}
			}
			pages = append(pages, page{num: num, dict: p})
			return
		}
		inh := pdfDict{}
		for _, k := range pageAttrs {
			if x, has := node[k]; has {
				inh[k] = x
			} else if x, has := inherited[k]; has {
				inh[k] = x
			}
		}
		for _, k := range kids {
			walk(k, inh, depth+1)
		}
	}
	walk(root["Pages"], nil, 0)
	return pages
}
