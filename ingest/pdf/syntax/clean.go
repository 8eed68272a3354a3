package syntax

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// WriteClean writes the file again as a plain PDF 1.7 that any reader can
// parse: one classic cross-reference table with every object numbered
// densely from 1, no object streams, no encryption, every stream either
// plain FlateDecode with a sound header or already decoded (no filter),
// image data left out, one flat page tree with inherited attributes pushed
// down to each page, strings written in hex, nesting capped. A reader then
// parses only a well-formed file whose size we chose: it cannot be made to
// allocate per a count in the file, recurse through an object stream, loop
// in a page tree, or meet a filter, predictor, escape or cipher it gets
// wrong. The cost is a parse of every object reachable from the catalog,
// the decoding of the streams a reader might not read, and the copy.
func (f *File) WriteClean() (out []byte, err error) {
	defer func() {
		if x := recover(); x != nil {
			a, ok := x.(Abort)
			if !ok {
				panic(x)
			}
			out, err = nil, a.Err
		}
	}()
	w := &writer{d: f.d, ids: map[uint32]int{}, content: map[uint32]bool{}}
	w.writeAll(f.root, f.pages)
	return w.buf.Bytes(), nil
}

// maxOutObjects caps the objects WriteClean writes.
const maxOutObjects = 1 << 21

// writer writes the clean file: objects are numbered in the order they
// are first referenced, from the catalog.
type writer struct {
	d             *document
	buf           bytes.Buffer
	offs          []int // offs[i]: offset of object i+1
	ids           map[uint32]int
	queue         []outObj
	content       map[uint32]bool // streams used as page contents
	images        int
	undecodable   int
	brokenContent int
}

type outObj struct {
	old uint32 // the object in the file, or 0 for val
	val any
}

// outRef is a reference already in the output's numbering.
type outRef int

// Keys whose values the library and our walker never read: left out, with
// everything only they reach (tagged-PDF structure trees can hold more
// objects than the rest of the file). The catalog's /Metadata (XMP) is
// read by readXMP.
var (
	skipCatalog = map[pdfName]bool{"StructTreeRoot": true, "PieceInfo": true, "Threads": true,
		"SpiderInfo": true, "Perms": true, "Legal": true, "DSS": true, "AF": true, "Collection": true, "Pages": true}
	skipPage = map[pdfName]bool{"PieceInfo": true, "Metadata": true, "Thumb": true, "B": true, "AF": true, "Parent": true}
)

func (w *writer) ref(old uint32) outRef {
	if n, ok := w.ids[old]; ok {
		return outRef(n)
	}
	w.queue = append(w.queue, outObj{old: old})
	n := len(w.queue)
	if n > maxOutObjects {
		panic(Abort{errorf(ErrTooLarge, "more than %d objects", maxOutObjects)})
	}
	w.ids[old] = n
	return outRef(n)
}

func (w *writer) add(v any) outRef {
	w.queue = append(w.queue, outObj{val: v})
	if len(w.queue) > maxOutObjects {
		panic(Abort{errorf(ErrTooLarge, "more than %d objects", maxOutObjects)})
	}
	return outRef(len(w.queue))
}

func (w *writer) writeAll(root pdfDict, pages []page) {
	d := w.d
	w.buf.Grow(len(d.data) + len(d.data)/2)
	w.buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	cat := pdfDict{}
	for k, v := range root {
		if !skipCatalog[k] {
			cat[k] = v
		}
	}
	catRef := w.add(cat)
	kids := make(pdfArray, 0, len(pages))
	pagesRef := outRef(len(w.queue) + 1)
	cat["Pages"] = pagesRef
	w.add(pdfDict{"Type": pdfName("Pages"), "Count": int64(len(pages)), "Kids": &kids})
	for _, p := range pages {
		pd := pdfDict{"Parent": pagesRef}
		for k, v := range p.dict {
			if !skipPage[k] {
				pd[k] = v
			}
		}
		for _, c := range contentRefs(p.dict["Contents"], d) {
			w.content[c] = true
		}
		var r outRef
		if p.num != 0 {
			if n, ok := w.ids[p.num]; ok { // referenced earlier, e.g. by /OpenAction
				w.queue[n-1].val = pd
				r = outRef(n)
			} else {
				r = w.ref(p.num)
				w.queue[r-1].val = pd
			}
		} else {
			r = w.add(pd)
		}
		kids = append(kids, r)
	}
	var info outRef
	switch v := d.trailer["Info"].(type) {
	case pdfRef:
		if _, ok := d.resolve(v).(pdfDict); ok {
			info = w.ref(v.num)
		}
	case pdfDict:
		info = w.add(v)
	}
	for i := 0; i < len(w.queue); i++ {
		d.check()
		o := w.queue[i]
		w.offs = append(w.offs, w.buf.Len())
		w.buf.WriteString(strconv.Itoa(i + 1))
		w.buf.WriteString(" 0 obj\n")
		v := o.val
		if v == nil && o.old != 0 {
			v = d.object(o.old)
			// An object that is only a reference to another: the library
			// cannot resolve that, so the target is written in its place.
			for k := 0; k < 8; k++ {
				r, ok := v.(pdfRef)
				if !ok {
					break
				}
				v = d.object(r.num)
			}
		}
		if s, ok := v.(*pdfStream); ok {
			w.stream(s, o.old)
		} else {
			if w.content[o.old] {
				w.brokenContent++
			}
			w.value(v, 0)
		}
		w.buf.WriteString("\nendobj\n")
		w.queue[i] = outObj{} // written: let it be collected
	}
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f\r\n", len(w.offs)+1)
	for _, off := range w.offs {
		fmt.Fprintf(&w.buf, "%010d 00000 n\r\n", off)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root %d 0 R", len(w.offs)+1, catRef)
	if info != 0 {
		fmt.Fprintf(&w.buf, " /Info %d 0 R", info)
	}
	fmt.Fprintf(&w.buf, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
}

// contentRefs lists the objects of a page's /Contents (a stream or an array).
func contentRefs(v any, d *document) []uint32 {
	switch c := v.(type) {
	case pdfRef:
		if a, ok := d.object(c.num).(pdfArray); ok {
			return contentRefs(a, d)
		}
		return []uint32{c.num}
	case pdfArray:
		var out []uint32
		for _, x := range c {
			if r, ok := x.(pdfRef); ok {
				out = append(out, r.num)
			}
		}
		return out
	}
	return nil
}

// Streams whose data nothing downstream reads are written empty.
func skipData(dict pdfDict) bool {
	switch dict.name("Type") {
	case "EmbeddedFile", "XRef", "ObjStm":
		return true
	}
	return dict.name("Subtype") == "Image"
}

var streamKeys = map[pdfName]bool{"Length": true, "Filter": true, "DecodeParms": true, "DP": true, "DL": true, "F": true, "FFilter": true, "FDecodeParms": true}

func (w *writer) stream(s *pdfStream, old uint32) {
	if raw, ok := w.d.keepCompressed(s); ok {
		w.streamObject(s.dict, "/Filter /FlateDecode", raw)
		return
	}
	var data []byte
	if !skipData(s.dict) {
		var err error
		data, err = w.d.decodeStream(s, true, MaxStreamBytes)
		if err != nil && (w.content[old] || s.dict.name("Subtype") == "Form") {
			w.undecodable++
			if data == nil && w.content[old] {
				w.brokenContent++
			}
		}
	} else if s.dict.name("Subtype") == "Image" {
		w.images++
	}
	w.streamObject(s.dict, "", data)
}

// streamObject writes a stream: dict without its filter and length keys,
// then filter (written as is) and the length of data.
func (w *writer) streamObject(dict pdfDict, filter string, data []byte) {
	w.buf.WriteString("<<")
	for _, k := range sortedKeys(dict) {
		if !streamKeys[k] {
			w.name(k)
			w.buf.WriteByte(' ')
			w.value(dict[k], 1)
		}
	}
	fmt.Fprintf(&w.buf, "%s/Length %d>>\nstream\n", filter, len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream")
}

// keepCompressed returns the (decrypted) raw bytes of a stream that is
// plain FlateDecode (no predictor) with a sound zlib header: the library
// inflates those itself as it reads them, a page at a time, and every
// reader of ours caps what it reads (walk.go, font.go, fontfile.go,
// meta.go), so decoding them here would only hold the whole document's
// decoded content in memory at once.
func (d *document) keepCompressed(s *pdfStream) ([]byte, bool) {
	if skipData(s.dict) {
		return nil, false
	}
	f := filterList(d.resolve(s.dict["Filter"]))
	if len(f) != 1 || (f[0] != "FlateDecode" && f[0] != "Fl") {
		return nil, false
	}
	if p, ok := d.resolve(s.dict["DecodeParms"]).(pdfDict); ok {
		if pred, _ := intOf(p["Predictor"]); pred > 1 {
			return nil, false
		}
	} else if s.dict["DecodeParms"] != nil {
		return nil, false
	}
	raw := s.raw
	if d.crypt != nil {
		raw = d.crypt.stream(s)
	}
	if len(raw) < 2 || raw[0]&0x0f != 8 || raw[0]>>4 > 7 || raw[1]&0x20 != 0 || (int(raw[0])<<8|int(raw[1]))%31 != 0 {
		return nil, false
	}
	return raw, true
}

func sortedKeys(d pdfDict) []pdfName {
	keys := make([]pdfName, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// value writes v in the output's numbering.
func (w *writer) value(v any, depth int) {
	b := &w.buf
	if depth > maxObjDepth {
		b.WriteString("null")
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e18 {
			x = 0
		}
		s := strconv.FormatFloat(x, 'f', -1, 64)
		b.WriteString(s)
		if !bytes.ContainsRune([]byte(s), '.') {
			b.WriteString(".0") // stays a real for the library
		}
	case pdfString:
		b.WriteByte('<')
		const hexd = "0123456789abcdef"
		for i := 0; i < len(x); i++ {
			b.WriteByte(hexd[x[i]>>4])
			b.WriteByte(hexd[x[i]&15])
		}
		b.WriteByte('>')
	case pdfName:
		w.name(x)
	case pdfArray:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			w.value(e, depth+1)
		}
		b.WriteByte(']')
	case *pdfArray:
		w.value(*x, depth)
	case pdfDict:
		b.WriteString("<<")
		for _, k := range sortedKeys(x) {
			w.name(k)
			b.WriteByte(' ')
			w.value(x[k], depth+1)
		}
		b.WriteString(">>")
	case pdfRef:
		// A missing object is written as null: the same to a reader.
		fmt.Fprintf(b, "%d 0 R", w.ref(x.num))
	case outRef:
		fmt.Fprintf(b, "%d 0 R", int(x))
	case *pdfStream:
		b.WriteString("null") // a stream can only be an indirect object
	default:
		b.WriteString("null")
	}
}

// name writes /name with # escapes for anything but regular characters.
func (w *writer) name(n pdfName) {
	b := &w.buf
	b.WriteByte('/')
	const hexd = "0123456789ABCDEF"
	for i := 0; i < len(n); i++ {
		c := n[i]
		if c < 0x21 || c > 0x7e || c == '#' || isDelim(c) {
			b.WriteByte('#')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
			continue
		}
		b.WriteByte(c)
	}
}
