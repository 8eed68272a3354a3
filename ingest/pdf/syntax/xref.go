package syntax

import (
	"bytes"
	"context"
	"sort"

	"github.com/papers-cli/papers/internal/lazyre"
)

// Reading the cross-reference data of a file and resolving objects through
// it, without trusting anything the file claims: a subsection or xref
// stream is read only as far as its bytes go (a header claiming 2^32
// entries costs what the entries present cost), object numbers above the
// spec's limit are dropped, /Size is ignored (a /Size smaller than the
// highest object number cut the library's table short), object streams are
// read only when they are top-level objects (so one cannot contain or
// /Extends itself), and when the table is missing or wrong the objects are
// found by scanning the file for "num gen obj", as pdftotext does.

type xrefEntry struct {
	kind uint8 // 0 free, 1 at off in the file, 2 in object stream stm at index idx
	gen  uint16
	off  int64
	stm  uint32
	idx  int
}

// objStm is a decoded object stream: its data and where each object starts.
type objStm struct {
	data []byte
	offs map[uint32]int
}

// document is a PDF file being read.
type document struct {
	ctx     context.Context
	data    []byte
	shift   int64 // bytes of junk before "%PDF-": some writers count offsets from there
	xref    map[uint32]xrefEntry
	trailer pdfDict
	// scanned holds the objects found by scanning, built on first need.
	scanned   map[uint32]xrefEntry
	didScan   bool
	deferStms bool // scan leaves object streams to scanObjStms
	rebuilt   bool // the xref was unreadable and was rebuilt from a scan
	stms      map[uint32]*objStm
	stmBytes  int // decoded bytes held in stms
	resolving map[uint32]bool
	crypt     *decrypter
	budget    *budget
	steps     int
	notes     notes
}

// maxStmBytes bounds the decoded object streams held at once.
const maxStmBytes = 64 << 20

// maxXrefSections bounds a /Prev chain (a loop is caught by the visited set;
// this bounds a long chain of distinct sections).
const maxXrefSections = 512

func (d *document) check() {
	d.steps++
	if d.steps&255 == 0 {
		if err := d.ctx.Err(); err != nil {
			panic(Abort{context.Cause(d.ctx)})
		}
	}
}

// readXref reads the cross-reference sections from the last startxref and
// the trailer. It reports false when there is none that can be read.
func (d *document) readXref() bool {
	d.xref = map[uint32]xrefEntry{}
	// startxref is just before the last %%EOF, which may be followed by
	// junk (some servers and mailers append some).
	end := len(d.data)
	if e := lastEOF(d.data); e >= 0 {
		end = e
	}
	tail := d.data[max(0, end-4096):end]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return false
	}
	p := objParser{l: lexer{b: tail, i: i + len("startxref")}}
	p.l.skipSpace()
	off, ok := parseUint(p.word())
	if !ok {
		return false
	}
	seen := map[int64]bool{}
	var trailer pdfDict
	for n := 0; n < maxXrefSections; n++ {
		d.check()
		if seen[off] {
			break
		}
		seen[off] = true
		t, ok := d.readSection(off)
		if !ok && d.shift > 0 {
			t, ok = d.readSection(off + d.shift)
		}
		if !ok {
			if n == 0 {
				return false
			}
			break
		}
		if trailer == nil {
			trailer = t
		} else {
			for k, v := range t { // older trailers fill in what newer ones lack
				if _, has := trailer[k]; !has && k != "Prev" && k != "XRefStm" {
					trailer[k] = v
				}
			}
		}
		// A hybrid file's classic table points at an xref stream too.
		if x, ok := intOf(t["XRefStm"]); ok && !seen[x] {
			seen[x] = true
			d.readSection(x)
		}
		prev, ok := intOf(t["Prev"])
		if !ok {
			break
		}
		off = prev
	}
	d.trailer = trailer
	return trailer != nil
}

// readSection reads one classic xref table with its trailer, or one xref
// stream, at off. Entries already known (from newer sections) are kept.
func (d *document) readSection(off int64) (pdfDict, bool) {
	if off < 0 || off >= int64(len(d.data)) {
		return nil, false
	}
	p := objParser{l: lexer{b: d.data, i: int(off)}}
	if p.peekKeyword("xref") {
		p.l.i += 4
		return d.readTable(&p)
	}
	_, _, v, ok := p.indirect()
	s, isStream := v.(*pdfStream)
	if !ok || !isStream || s.dict.name("Type") != "XRef" {
		return nil, false
	}
	d.readXrefStream(s)
	return s.dict, true
}

// readTable reads classic subsections ("first count" then 20-byte rows) up
// to "trailer", and the trailer dictionary.
func (d *document) readTable(p *objParser) (pdfDict, bool) {
	l := &p.l
	for {
		d.check()
		l.skipSpace()
		if p.peekKeyword("trailer") {
			l.i += len("trailer")
			t, _ := p.object(0)
			td, ok := t.(pdfDict)
			return td, ok
		}
		first, ok1 := parseUint(p.word())
		l.skipSpace()
		count, ok2 := parseUint(p.word())
		if !ok1 || !ok2 {
			return nil, false
		}
		// The rows are read while they are there, whatever count says.
		for k := int64(0); k < count; k++ {
			if k&1023 == 0 {
				d.check()
			}
			l.skipSpace()
			save := l.i
			o, ok1 := parseUint(p.word())
			l.skipSpace()
			g, ok2 := parseUint(p.word())
			l.skipSpace()
			t := p.word()
			if !ok1 || !ok2 || len(t) != 1 || (t[0] != 'n' && t[0] != 'f') {
				l.i = save // a short subsection: the next header or "trailer" follows
				break
			}
			num := first + k
			if num > maxObjNum {
				continue
			}
			if _, known := d.xref[uint32(num)]; known {
				continue
			}
			if t[0] == 'n' && o > 0 {
				d.xref[uint32(num)] = xrefEntry{kind: 1, off: o, gen: uint16(g)}
			} else {
				d.xref[uint32(num)] = xrefEntry{kind: 0}
			}
		}
	}
}

// readXrefStream reads the rows of an xref stream (PDF 1.5).
func (d *document) readXrefStream(s *pdfStream) {
	data, _ := d.decodeStream(s, false, MaxStreamBytes)
	var w [3]int
	ww, _ := s.dict["W"].(pdfArray)
	if len(ww) < 3 {
		return
	}
	row := 0
	for i := range w {
		n, ok := intOf(ww[i])
		if !ok || n < 0 || n > 8 {
			return
		}
		w[i] = int(n)
		row += w[i]
	}
	if row == 0 {
		return
	}
	index, _ := s.dict["Index"].(pdfArray)
	if len(index) == 0 {
		size, _ := intOf(s.dict["Size"])
		index = pdfArray{int64(0), size}
	}
	field := func(b []byte) int64 {
		var x int64
		for _, c := range b {
			x = x<<8 | int64(c)
		}
		return x
	}
	pos := 0
	for j := 0; j+1 < len(index); j += 2 {
		first, ok1 := intOf(index[j])
		count, ok2 := intOf(index[j+1])
		if !ok1 || !ok2 || first < 0 || count < 0 {
			return
		}
		// Rows are read while the decoded data lasts, whatever /Size
		// or /Index claim.
		for k := int64(0); k < count && pos+row <= len(data); k++ {
			if k&1023 == 0 {
				d.check()
			}
			r := data[pos : pos+row]
			pos += row
			num := first + k
			if num > maxObjNum {
				continue
			}
			typ := int64(1)
			if w[0] > 0 {
				typ = field(r[:w[0]])
			}
			f2 := field(r[w[0] : w[0]+w[1]])
			f3 := field(r[w[0]+w[1]:])
			if _, known := d.xref[uint32(num)]; known {
				continue
			}
			switch typ {
			case 0:
				d.xref[uint32(num)] = xrefEntry{kind: 0}
			case 1:
				d.xref[uint32(num)] = xrefEntry{kind: 1, off: f2, gen: uint16(f3)}
			case 2:
				if f2 <= maxObjNum && f2 != num {
					d.xref[uint32(num)] = xrefEntry{kind: 2, stm: uint32(f2), idx: int(f3)}
				}
			}
		}
	}
}

// scan finds every "num gen obj" in the file; a later definition replaces
// an earlier one, as in an incremental update. Objects inside object
// streams are added unless defined directly later in the file.
func (d *document) scan() map[uint32]xrefEntry {
	if d.didScan {
		return d.scanned
	}
	d.didScan = true
	found := map[uint32]xrefEntry{}
	b := d.data
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte("obj"))
		if j < 0 {
			break
		}
		k := i + j
		i = k + 3
		if k+3 < len(b) && !isSpace(b[k+3]) && !isDelim(b[k+3]) {
			continue
		}
		num, gen, start, ok := headerBefore(b, k)
		if !ok || num <= 0 || num > maxObjNum || gen > 65535 {
			continue
		}
		found[uint32(num)] = xrefEntry{kind: 1, off: int64(start), gen: uint16(gen)}
		if len(found)&1023 == 0 {
			d.check()
		}
	}
	d.scanned = found
	if !d.deferStms {
		d.scanObjStms()
	}
	return found
}

// scanObjStms adds the objects of the object streams found by scan, in
// file order.
func (d *document) scanObjStms() {
	found := d.scanned
	// Object streams, in file order.
	type stmAt struct {
		num uint32
		off int64
	}
	var stms []stmAt
	for num, e := range found {
		head := d.data[e.off:min(int64(len(d.data)), e.off+512)]
		if bytes.Contains(head, []byte("/ObjStm")) {
			stms = append(stms, stmAt{num, e.off})
		}
	}
	sort.Slice(stms, func(i, j int) bool { return stms[i].off < stms[j].off })
	for _, s := range stms {
		st := d.objStm(s.num)
		if st == nil {
			continue
		}
		for num := range st.offs {
			if prev, ok := found[num]; ok && (prev.kind == 1 && prev.off > s.off) {
				continue
			}
			if _, isStm := found[num]; isStm && num == s.num {
				continue
			}
			found[num] = xrefEntry{kind: 2, stm: s.num}
		}
	}
}

// headerBefore parses "num gen " ending just before the "obj" at k and
// returns where num starts.
func headerBefore(b []byte, k int) (num, gen int64, start int, ok bool) {
	digits := func(end int) (v int64, start int, ok bool) {
		s := end
		for s > 0 && end-s < 10 && b[s-1] >= '0' && b[s-1] <= '9' {
			s--
		}
		if s == end || (s > 0 && b[s-1] >= '0' && b[s-1] <= '9') {
			return 0, 0, false
		}
		v, _ = parseUint(b[s:end])
		return v, s, true
	}
	spaces := func(end int) int {
		s := end
		for s > 0 && isSpace(b[s-1]) {
			s--
		}
		return s
	}
	e := spaces(k)
	if e == k {
		return 0, 0, 0, false
	}
	gen, gs, ok := digits(e)
	if !ok {
		return 0, 0, 0, false
	}
	e = spaces(gs)
	if e == gs {
		return 0, 0, 0, false
	}
	num, ns, ok := digits(e)
	if !ok || (ns > 0 && !isSpace(b[ns-1]) && !isDelim(b[ns-1])) {
		return 0, 0, 0, false
	}
	return num, gen, ns, true
}

// rebuild replaces the cross-reference data with a scan of the file and
// finds the trailer: the last trailer dictionary or xref stream with /Root,
// else the last /Type /Catalog object.
func (d *document) rebuild() error {
	d.rebuilt = true
	d.crypt = nil
	clear(d.stms)
	// Objects in object streams wait until the key is known: the streams
	// of an encrypted file are encrypted.
	d.didScan, d.deferStms = false, true
	d.xref = d.scan()
	d.deferStms = false
	var trailer pdfDict
	for _, m := range trailerRe.FindAllIndex(d.data, -1) {
		d.check()
		p := objParser{l: lexer{b: d.data, i: m[1] - 2}}
		t, _ := p.object(0)
		if td, ok := t.(pdfDict); ok && td["Root"] != nil {
			trailer = td
		}
	}
	if trailer == nil {
		for _, num := range d.sortedNums() {
			e := d.xref[num]
			head := d.data[e.off:min(int64(len(d.data)), e.off+512)]
			if !bytes.Contains(head, []byte("/XRef")) {
				continue
			}
			if s, ok := d.object(num).(*pdfStream); ok && s.dict.name("Type") == "XRef" && s.dict["Root"] != nil {
				trailer = s.dict
			}
		}
	}
	if trailer == nil {
		trailer = pdfDict{}
	}
	d.trailer = trailer
	if err := d.setupCrypt(); err != nil {
		return err
	}
	d.scanObjStms()
	if r, ok := trailer["Root"].(pdfRef); !ok || !d.isCatalog(d.resolve(r)) {
		delete(trailer, "Root")
		for _, num := range d.sortedNums() {
			if e := d.xref[num]; e.kind == 1 {
				head := d.data[e.off:min(int64(len(d.data)), e.off+1024)]
				if !bytes.Contains(head, []byte("Catalog")) && !bytes.Contains(head, []byte("/Pages")) {
					continue
				}
			}
			if v := d.object(num); d.isCatalog(v) {
				trailer["Root"] = pdfRef{num: num}
			}
		}
	}
	return nil
}

var trailerRe = lazyre.New(`trailer[ \t\r\n\f\x00]*<<`)

func (d *document) sortedNums() []uint32 {
	nums := make([]uint32, 0, len(d.xref))
	for n := range d.xref {
		nums = append(nums, n)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	return nums
}

func (d *document) isCatalog(v any) bool {
	c, ok := v.(pdfDict)
	if !ok {
		return false
	}
	_, hasPages := c["Pages"].(pdfRef)
	return c.name("Type") == "Catalog" || (hasPages && c["Type"] == nil)
}

// resolve follows a reference (with the generation ignored, as readers do:
// files get it wrong); any other value is returned as is.
func (d *document) resolve(v any) any {
	r, ok := v.(pdfRef)
	if !ok {
		return v
	}
	return d.object(r.num)
}

// object returns object num, or nil when it is missing, free, malformed or
// being resolved already (a cycle).
func (d *document) object(num uint32) any {
	d.check()
	if d.resolving[num] {
		return nil
	}
	d.resolving[num] = true
	defer delete(d.resolving, num)
	e, ok := d.xref[num]
	if !ok && !d.rebuilt {
		e, ok = d.scan()[num] // not in a table that was read: look for it
		d.notes.scanUsed = d.notes.scanUsed || ok
	}
	if !ok || e.kind == 0 {
		return nil
	}
	if e.kind == 2 {
		return d.fromObjStm(num, e)
	}
	if v, ok := d.at(num, e.off); ok {
		return v
	}
	if d.shift > 0 {
		if v, ok := d.at(num, e.off+d.shift); ok {
			return v
		}
	}
	// The table points elsewhere: use the scan.
	if s, ok := d.scan()[num]; ok && s != e {
		d.notes.scanUsed = true
		if s.kind == 2 {
			return d.fromObjStm(num, s)
		}
		if v, ok := d.at(num, s.off); ok {
			return v
		}
	}
	return nil
}

// at parses the indirect object at off if it is object num, and decrypts
// its strings.
func (d *document) at(num uint32, off int64) (any, bool) {
	if off < 0 || off >= int64(len(d.data)) {
		return nil, false
	}
	p := objParser{l: lexer{b: d.data, i: int(off)}, length: d.streamLength}
	n, gen, v, ok := p.indirect()
	if !ok || n != num {
		return nil, false
	}
	if s, ok := v.(*pdfStream); ok {
		s.num, s.gen = num, gen
	}
	if d.crypt != nil {
		v = d.crypt.strings(v, num, gen)
	}
	return v, true
}

// streamLength resolves an indirect /Length; it must not be a stream.
func (d *document) streamLength(r pdfRef) (int64, bool) {
	v := d.object(r.num)
	n, ok := v.(int64)
	return n, ok && n >= 0
}

// objStm decodes object stream num (a top-level stream object) once.
func (d *document) objStm(num uint32) *objStm {
	if st, ok := d.stms[num]; ok {
		return st
	}
	d.stms[num] = nil // a stream reached again while being read is none
	e, ok := d.xref[num]
	if !ok || e.kind != 1 {
		if e, ok = d.scan()[num]; !ok || e.kind != 1 {
			return nil
		}
	}
	v, ok := d.at(num, e.off)
	if !ok && d.shift > 0 {
		v, ok = d.at(num, e.off+d.shift)
	}
	s, isStream := v.(*pdfStream)
	if !ok || !isStream || s.dict.name("Type") != "ObjStm" {
		return nil
	}
	data, _ := d.decodeStream(s, true, MaxStreamBytes)
	// Decoded object streams are kept for the objects read again, up to
	// maxStmBytes together; past that the cache starts again.
	if d.stmBytes += len(data); d.stmBytes > maxStmBytes {
		for k, st := range d.stms {
			if st != nil { // nil marks a stream being read: it stays
				delete(d.stms, k)
			}
		}
		d.stmBytes = len(data)
	}
	n, _ := intOf(s.dict["N"])
	first, _ := intOf(s.dict["First"])
	if first < 0 || first > int64(len(data)) {
		return nil
	}
	st := &objStm{data: data[first:], offs: map[uint32]int{}}
	p := objParser{l: lexer{b: data[:first]}}
	for k := int64(0); k < n && !p.eof(); k++ {
		p.l.skipSpace()
		on, ok1 := parseUint(p.word())
		p.l.skipSpace()
		o, ok2 := parseUint(p.word())
		if !ok1 || !ok2 {
			break
		}
		if on > 0 && on <= maxObjNum && o < int64(len(st.data)) {
			if _, dup := st.offs[uint32(on)]; !dup {
				st.offs[uint32(on)] = int(o)
			}
		}
	}
	d.stms[num] = st
	return st
}

func (d *document) fromObjStm(num uint32, e xrefEntry) any {
	st := d.objStm(e.stm)
	if st == nil {
		return nil
	}
	o, ok := st.offs[num]
	if !ok {
		return nil
	}
	p := objParser{l: lexer{b: st.data, i: o}}
	v, _ := p.object(0)
	if _, isRef := v.(pdfRef); isRef {
		return nil
	}
	return v
}
