package syntax

import "bytes"

// The PDF object syntax, parsed by our own code in front of the library
// (see normalize.go). The parser never panics and never allocates more than
// the input it reads: counts written in the file are not trusted, nesting is
// capped, and a malformed object comes back as an error or, inside a
// container, as a null.

// Object values: nil (null), bool, int64, float64, pdfString, pdfName,
// pdfArray, pdfDict, pdfRef, *pdfStream.
type (
	pdfString string // raw bytes, escapes resolved, not decrypted until resolve
	pdfName   string // without the slash, #xx resolved
	pdfArray  []any
	pdfDict   map[pdfName]any
	pdfRef    struct {
		num uint32
		gen uint16
	}
	pdfStream struct {
		dict pdfDict
		raw  []byte // the encoded bytes as stored (still encrypted), a slice of the file
		num  uint32 // the object it is, whose key encrypts it
		gen  uint16
	}
)

// maxObjDepth caps array and dictionary nesting. The spec's implementation
// limit is 28 levels of q/Q and real files nest dictionaries a few levels;
// a file nesting thousands deep is an attack on the stack.
const maxObjDepth = 64

// maxObjNum is the highest object number accepted: the spec's limit
// (8,388,607). Larger numbers in a file are garbage or an attack.
const maxObjNum = 1<<23 - 1

// objParser reads objects from b starting at i.
type objParser struct {
	l lexer
	// length resolves an indirect /Length; nil in object streams.
	length func(ref pdfRef) (int64, bool)
}

func (p *objParser) eof() bool { return p.l.i >= len(p.l.b) }

// peekKeyword reports whether the bytes at the current position (after
// white space) are kw followed by a delimiter, white space or the end.
func (p *objParser) peekKeyword(kw string) bool {
	p.l.skipSpace()
	b := p.l.b[p.l.i:]
	if !bytes.HasPrefix(b, []byte(kw)) {
		return false
	}
	return len(b) == len(kw) || isSpace(b[len(kw)]) || isDelim(b[len(kw)])
}

// token reads a bare word (number or keyword) without consuming delimiters.
func (p *objParser) word() []byte {
	l := &p.l
	start := l.i
	for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
		l.i++
	}
	return l.b[start:l.i]
}

// parseInt parses an unsigned decimal integer word, reporting false for
// anything else (signs, dots, overflow beyond int64).
func parseUint(w []byte) (int64, bool) {
	if len(w) == 0 || len(w) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range w {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// number converts a numeric word: an integer when it is one and fits,
// else a real. ok is false when w does not start like a number.
func number(w []byte) (any, bool) {
	if len(w) == 0 {
		return nil, false
	}
	c := w[0]
	if !(c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')) {
		return nil, false
	}
	s := w
	if c == '+' || c == '-' {
		s = w[1:]
	}
	if v, ok := parseUint(s); ok {
		if c == '-' {
			v = -v
		}
		return v, true
	}
	return parseNum(w), true
}

// object parses one direct object. At depth > maxObjDepth the nested value
// is skipped and read as null.
func (p *objParser) object(depth int) (any, bool) {
	l := &p.l
	l.skipSpace()
	if l.i >= len(l.b) {
		return nil, false
	}
	switch c := l.b[l.i]; c {
	case '(':
		return pdfString(l.literal()), true
	case '<':
		if l.i+1 < len(l.b) && l.b[l.i+1] == '<' {
			l.i += 2
			return p.dict(depth + 1), true
		}
		return pdfString(l.hex()), true
	case '/':
		l.i++
		start := l.i
		for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
			l.i++
		}
		return pdfName(unescapeName(l.b[start:l.i])), true
	case '[':
		l.i++
		return p.array(depth + 1), true
	case ']', '>', ')', '{', '}':
		l.i++
		return nil, false
	}
	w := p.word()
	if len(w) == 0 {
		l.i++
		return nil, false
	}
	switch string(w) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	n, ok := number(w)
	if !ok {
		return nil, false // a keyword where a value belongs: consumed
	}
	// "num gen R" is a reference.
	if num, isInt := n.(int64); isInt && num >= 0 {
		save := l.i
		l.skipSpace()
		g := p.word()
		if gen, ok := parseUint(g); ok && gen <= 65535 {
			l.skipSpace()
			if l.i < len(l.b) && l.b[l.i] == 'R' && (l.i+1 == len(l.b) || isSpace(l.b[l.i+1]) || isDelim(l.b[l.i+1])) {
				l.i++
				if num > maxObjNum {
					return nil, true
				}
				return pdfRef{uint32(num), uint16(gen)}, true
			}
		}
		l.i = save
	}
	return n, true
}

func (p *objParser) array(depth int) pdfArray {
	l := &p.l
	var a pdfArray
	for {
		l.skipSpace()
		if l.i >= len(l.b) {
			return a
		}
		if l.b[l.i] == ']' {
			l.i++
			return a
		}
		if depth > maxObjDepth {
			p.skipContainer()
			return nil
		}
		if p.peekKeyword("endobj") || p.peekKeyword("stream") || p.peekKeyword("endstream") {
			return a // an unclosed array: the object ends here
		}
		if l.b[l.i] == '>' {
			return a // the dictionary around an unclosed array ends
		}
		if v, ok := p.object(depth); ok {
			a = append(a, v)
		}
	}
}

func (p *objParser) dict(depth int) pdfDict {
	l := &p.l
	d := pdfDict{}
	for {
		l.skipSpace()
		if l.i >= len(l.b) {
			return d
		}
		if l.b[l.i] == '>' {
			l.i++
			if l.i < len(l.b) && l.b[l.i] == '>' {
				l.i++
			}
			return d
		}
		if depth > maxObjDepth {
			p.skipContainer()
			return nil
		}
		if p.peekKeyword("endobj") || p.peekKeyword("stream") {
			return d // an unclosed dictionary
		}
		if l.b[l.i] != '/' {
			p.object(depth) // not a key: skipped, as readers do
			continue
		}
		k, _ := p.object(depth)
		key, _ := k.(pdfName)
		l.skipSpace()
		if l.i < len(l.b) && l.b[l.i] == '>' {
			continue // a key without a value
		}
		if p.peekKeyword("endobj") || p.peekKeyword("stream") {
			return d
		}
		if v, ok := p.object(depth); ok && v != nil {
			d[key] = v // a null value is the same as no entry
		}
	}
}

// skipContainer skips to the end of the array or dictionary that the
// parser is inside of, counting brackets, without building values.
func (p *objParser) skipContainer() {
	l := &p.l
	level := 1
	for l.i < len(l.b) && level > 0 {
		switch c := l.b[l.i]; c {
		case '(':
			l.literal()
			continue
		case '[':
			level++
		case ']':
			level--
		case '<':
			if l.i+1 < len(l.b) && l.b[l.i+1] == '<' {
				level++
				l.i++
			}
		case '>':
			if l.i+1 < len(l.b) && l.b[l.i+1] == '>' {
				level--
				l.i++
			}
		case '%':
			l.skipSpace()
			continue
		}
		l.i++
	}
}

// indirect parses "num gen obj value [stream ... endstream] endobj" at the
// current position. stream bodies are located with /Length when it is
// right and by searching for "endstream" otherwise.
func (p *objParser) indirect() (num uint32, gen uint16, v any, ok bool) {
	l := &p.l
	l.skipSpace()
	n, ok1 := parseUint(p.word())
	l.skipSpace()
	g, ok2 := parseUint(p.word())
	if !ok1 || !ok2 || n > maxObjNum || g > 65535 || !p.peekKeyword("obj") {
		return 0, 0, nil, false
	}
	l.i += 3
	v, _ = p.object(0)
	if d, isDict := v.(pdfDict); isDict && p.peekKeyword("stream") {
		l.i += len("stream")
		v = &pdfStream{dict: d, raw: p.streamBody(d)}
	}
	return uint32(n), uint16(g), v, true
}

// streamBody returns the raw bytes of a stream whose "stream" keyword was
// just read, and moves past "endstream".
func (p *objParser) streamBody(d pdfDict) []byte {
	l := &p.l
	// The keyword is followed by CRLF or LF (CR alone and spaces occur too).
	for l.i < len(l.b) && (l.b[l.i] == ' ' || l.b[l.i] == '\t') {
		l.i++
	}
	if l.i < len(l.b) && l.b[l.i] == '\r' {
		l.i++
	}
	if l.i < len(l.b) && l.b[l.i] == '\n' {
		l.i++
	}
	start := l.i
	rest := l.b[start:]
	var n int64 = -1
	switch v := d["Length"].(type) {
	case int64:
		n = v
	case pdfRef:
		if p.length != nil {
			if m, ok := p.length(v); ok {
				n = m
			}
		}
	}
	if n >= 0 && n <= int64(len(rest)) {
		after := rest[n:]
		k := 0
		for k < len(after) && k < 8 && isSpace(after[k]) {
			k++
		}
		if bytes.HasPrefix(after[k:], []byte("endstream")) {
			l.i = start + int(n) + k + len("endstream")
			return rest[:n]
		}
	}
	// /Length is wrong or missing: the body ends at "endstream", less the
	// end-of-line before it.
	e := bytes.Index(rest, []byte("endstream"))
	if e < 0 {
		l.i = len(l.b)
		return rest
	}
	body := rest[:e]
	if bytes.HasSuffix(body, []byte("\r\n")) {
		body = body[:len(body)-2]
	} else if len(body) > 0 && (body[len(body)-1] == '\n' || body[len(body)-1] == '\r') {
		body = body[:len(body)-1]
	}
	l.i = start + e + len("endstream")
	return body
}

// Accessors that treat a wrong type as absent.

func (d pdfDict) name(k pdfName) pdfName {
	n, _ := d[k].(pdfName)
	return n
}

func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x >= -1e15 && x <= 1e15 {
			return int64(x), true
		}
	}
	return 0, false
}
