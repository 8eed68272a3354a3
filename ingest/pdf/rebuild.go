package pdf

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
)

// Rebuilding a damaged cross-reference table, as pdftotext does: when the
// xref offsets are wrong (a file edited by a tool, line endings converted),
// find every "N G obj" in the file and every object inside object streams,
// and append a fresh xref stream pointing at them. The library then reads the
// file as usual.

var (
	objRe     = regexp.MustCompile(`(\d{1,10})[ \t\r\n\f\x00]+(\d{1,5})[ \t\r\n\f\x00]+obj\b`)
	rootRe    = regexp.MustCompile(`/Root[ \t\r\n]*(\d+)[ \t\r\n]+(\d+)[ \t\r\n]+R`)
	infoRe    = regexp.MustCompile(`/Info[ \t\r\n]*(\d+)[ \t\r\n]+(\d+)[ \t\r\n]+R`)
	encryptRe = regexp.MustCompile(`/Encrypt[ \t\r\n]*(\d+)[ \t\r\n]+(\d+)[ \t\r\n]+R`)
	idRe      = regexp.MustCompile(`/ID[ \t\r\n]*\[[ \t\r\n]*<[0-9A-Fa-f \t\r\n]*>[ \t\r\n]*<[0-9A-Fa-f \t\r\n]*>[ \t\r\n]*\]`)
	catalogRe = regexp.MustCompile(`/Type[ \t\r\n]*/Catalog\b`)
	nRe       = regexp.MustCompile(`/N[ \t\r\n]+(\d+)`)
	firstRe   = regexp.MustCompile(`/First[ \t\r\n]+(\d+)`)
	lengthRe  = regexp.MustCompile(`/Length[ \t\r\n]+(\d+)(?:[ \t\r\n]+\d+[ \t\r\n]+R)?`)
)

type xrefEntry struct {
	typ    byte // 1 in the file, 2 in an object stream
	offset int64
	gen    int
	strm   int // object stream number (typ 2)
	index  int // index in the object stream (typ 2)
}

const maxRebuildObjects = 1 << 20

// rebuildXref returns data with a new cross-reference stream appended, or an
// error if no document catalog can be found.
func rebuildXref(data []byte) ([]byte, error) {
	entries := map[int]xrefEntry{}
	texts := map[int][]byte{} // the start of each object's body, to find the catalog
	matches := objRe.FindAllSubmatchIndex(data, maxRebuildObjects)
	for _, m := range matches {
		num, err1 := strconv.Atoi(string(data[m[2]:m[3]]))
		gen, err2 := strconv.Atoi(string(data[m[4]:m[5]]))
		if err1 != nil || err2 != nil || num <= 0 || num >= maxRebuildObjects {
			continue
		}
		entries[num] = xrefEntry{typ: 1, offset: int64(m[2]), gen: gen}
		end := m[1] + 2048
		if end > len(data) {
			end = len(data)
		}
		texts[num] = data[m[1]:end]
	}
	// Objects inside object streams, in file order: a later definition of
	// an object (an incremental update) replaces an earlier one.
	var stms []int
	for num, e := range entries {
		if e.typ == 1 {
			stms = append(stms, num)
		}
	}
	sort.Slice(stms, func(i, j int) bool { return entries[stms[i]].offset < entries[stms[j]].offset })
	isStm := map[int]bool{}
	for _, num := range stms {
		head := texts[num]
		if si := bytes.Index(head, []byte("stream")); si >= 0 && bytes.Contains(head[:si], []byte("/ObjStm")) {
			isStm[num] = true
		}
	}
	for _, num := range stms {
		e := entries[num]
		head := texts[num]
		si := bytes.Index(head, []byte("stream"))
		if si < 0 || !bytes.Contains(head[:si], []byte("/ObjStm")) {
			continue
		}
		dict := head[:si]
		n, first := intOf(nRe, dict), intOf(firstRe, dict)
		body := streamBody(data, int(e.offset)+bytes.Index(data[e.offset:], []byte("stream")), dict)
		if body == nil || n <= 0 || first <= 0 {
			continue
		}
		if bytes.Contains(dict, []byte("/FlateDecode")) {
			zr, err := zlib.NewReader(bytes.NewReader(body))
			if err != nil {
				continue
			}
			body, _ = io.ReadAll(io.LimitReader(zr, 64<<20))
		}
		toks := bytes.Fields(body[:min(first, len(body))])
		for i := 0; i+1 < len(toks) && i/2 < n; i += 2 {
			on, err1 := strconv.Atoi(string(toks[i]))
			off, err2 := strconv.Atoi(string(toks[i+1]))
			// An object stream never lives in another one: that would
			// make the library recurse without end.
			if err1 != nil || err2 != nil || on <= 0 || on >= maxRebuildObjects || isStm[on] {
				continue
			}
			if prev, ok := entries[on]; !ok || prev.typ == 2 || prev.offset < e.offset {
				entries[on] = xrefEntry{typ: 2, strm: num, index: i / 2}
				if s := first + off; s < len(body) {
					texts[on] = body[s:min(len(body), s+2048)]
				}
			}
		}
	}
	root := lastRef(rootRe, data)
	if root == "" {
		nums := make([]int, 0, len(texts))
		for num := range texts {
			nums = append(nums, num)
		}
		sort.Ints(nums)
		for _, num := range nums {
			t := texts[num]
			if i := bytes.Index(t, []byte("endobj")); i >= 0 {
				t = t[:i]
			}
			if catalogRe.Match(t) {
				root = fmt.Sprintf("%d %d R", num, entries[num].gen)
			}
		}
	}
	if root == "" || len(entries) == 0 {
		return nil, fmt.Errorf("no document catalog")
	}
	maxNum := 0
	for num := range entries {
		maxNum = max(maxNum, num)
	}
	self := maxNum + 1
	var out bytes.Buffer
	out.Write(data)
	out.WriteString("\n")
	selfOff := out.Len()
	// The rows start at the lowest object present: a leading free row
	// begins with NUL bytes, which the library skips as white space
	// after "stream", shifting every row.
	minNum := self
	for num := range entries {
		minNum = min(minNum, num)
	}
	var rows bytes.Buffer
	for num := minNum; num <= self; num++ {
		e, ok := entries[num]
		row := make([]byte, 7)
		switch {
		case num == self:
			row[0] = 1
			binary.BigEndian.PutUint32(row[1:5], uint32(selfOff))
		case !ok:
			// free
		case e.typ == 1:
			row[0] = 1
			binary.BigEndian.PutUint32(row[1:5], uint32(e.offset))
			binary.BigEndian.PutUint16(row[5:7], uint16(e.gen))
		default:
			row[0] = 2
			binary.BigEndian.PutUint32(row[1:5], uint32(e.strm))
			binary.BigEndian.PutUint16(row[5:7], uint16(e.index))
		}
		rows.Write(row)
	}
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /XRef /Size %d /Index [%d %d] /W [1 4 2] /Root %s", self, self+1, minNum, self+1-minNum, root)
	if info := lastRef(infoRe, data); info != "" {
		fmt.Fprintf(&out, " /Info %s", info)
	}
	if enc := lastRef(encryptRe, data); enc != "" {
		fmt.Fprintf(&out, " /Encrypt %s", enc)
	}
	if ids := idRe.FindAll(data, -1); len(ids) > 0 {
		out.Write([]byte(" "))
		out.Write(ids[len(ids)-1])
	}
	fmt.Fprintf(&out, " /Length %d >>\nstream\n", rows.Len())
	out.Write(rows.Bytes())
	fmt.Fprintf(&out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", selfOff)
	if int64(out.Len()) > 1<<32-1 {
		return nil, fmt.Errorf("file too large to rebuild")
	}
	return out.Bytes(), nil
}

func intOf(re *regexp.Regexp, b []byte) int {
	m := re.FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func lastRef(re *regexp.Regexp, data []byte) string {
	ms := re.FindAllSubmatch(data, -1)
	if len(ms) == 0 {
		return ""
	}
	m := ms[len(ms)-1]
	return string(m[1]) + " " + string(m[2]) + " R"
}

// streamBody returns the raw bytes of the stream whose "stream" keyword is
// at pos, using a direct /Length when it fits, else the next "endstream".
func streamBody(data []byte, pos int, dict []byte) []byte {
	if pos < 0 || pos+6 > len(data) {
		return nil
	}
	start := pos + 6
	if start < len(data) && data[start] == '\r' {
		start++
	}
	if start < len(data) && data[start] == '\n' {
		start++
	}
	if m := lengthRe.FindSubmatch(dict); m != nil && !bytes.HasSuffix(bytes.TrimSpace(m[0]), []byte("R")) {
		if n, err := strconv.Atoi(string(m[1])); err == nil && start+n <= len(data) {
			return data[start : start+n]
		}
	}
	end := bytes.Index(data[start:], []byte("endstream"))
	if end < 0 {
		return nil
	}
	return data[start : start+end]
}
