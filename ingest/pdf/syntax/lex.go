package syntax

import (
	"strconv"
	"strings"
)

// The lexer of objects and content streams. It recovers from anything
// producers write (an unknown escape such as "\=" in a string, binary
// inline image data), allocates little, and skips inline images.

// OpKind is the kind of a content stream operand.
type OpKind uint8

// The kinds of operands.
const (
	KNum OpKind = iota + 1
	KStr
	KName
	KArr
	KOther // dicts, booleans, null: operands a text reader never reads
)

// Operand is an Operand of a content stream operator: a number (Num), a
// string's bytes or a name (S), or an array (Arr).
type Operand struct {
	Kind OpKind
	Num  float64
	S    string
	Arr  []Operand
}

type lexer struct {
	b       []byte
	i       int
	scratch []byte // reused for string operands
	pending string // an operator that ended an unclosed array, returned next
}

const maxNesting = 32

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipSpace() {
	for l.i < len(l.b) {
		c := l.b[l.i]
		if isSpace(c) {
			l.i++
			continue
		}
		if c == '%' {
			for l.i < len(l.b) && l.b[l.i] != '\n' && l.b[l.i] != '\r' {
				l.i++
			}
			continue
		}
		return
	}
}

// next returns the next Operand, or an operator in op, or ok=false at the end.
func (l *lexer) next(depth int) (o Operand, op string, ok bool) {
	if l.pending != "" {
		op, l.pending = l.pending, ""
		return o, op, true
	}
	l.skipSpace()
	if l.i >= len(l.b) {
		return o, "", false
	}
	c := l.b[l.i]
	switch {
	case c == '(':
		return Operand{Kind: KStr, S: l.literal()}, "", true
	case c == '<':
		if l.i+1 < len(l.b) && l.b[l.i+1] == '<' {
			l.i += 2
			l.skipDict(depth + 1)
			return Operand{Kind: KOther}, "", true
		}
		return Operand{Kind: KStr, S: l.hex()}, "", true
	case c == '/':
		l.i++
		start := l.i
		for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
			l.i++
		}
		return Operand{Kind: KName, S: unescapeName(l.b[start:l.i])}, "", true
	case c == '[':
		l.i++
		var arr []Operand
		for {
			l.skipSpace()
			if l.i >= len(l.b) {
				break
			}
			if l.b[l.i] == ']' {
				l.i++
				break
			}
			if depth >= maxNesting {
				l.i++
				continue
			}
			e, eop, ok := l.next(depth + 1)
			if !ok {
				break
			}
			if eop != "" {
				if endsArray[eop] {
					// "[(a) -250 (b) TJ": the producer forgot the "]";
					// the array ends here and the operator still runs.
					l.pending = eop
					break
				}
				continue // another stray keyword in an array: ignored
			}
			if len(arr) < 1<<16 {
				arr = append(arr, e)
			}
		}
		return Operand{Kind: KArr, Arr: arr}, "", true
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		l.i++
		return Operand{Kind: KOther}, "", true
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		start := l.i
		l.i++
		for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
			l.i++
		}
		return Operand{Kind: KNum, Num: parseNum(l.b[start:l.i])}, "", true
	}
	start := l.i
	for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
		l.i++
	}
	if l.i == start {
		l.i++
		return Operand{Kind: KOther}, "", true
	}
	kw := l.b[start:l.i]
	w, known := operators[string(kw)] // no allocation for known operators
	if !known {
		w = string(kw)
	}
	switch w {
	case "true", "false", "null":
		return Operand{Kind: KOther}, "", true
	case "ID":
		l.skipInlineImage()
		return o, "EI", true
	}
	return o, w, true
}

var operators = map[string]string{}

// endsArray are the operators that never belong inside an array: met there,
// they mean the array was not closed.
var endsArray = map[string]bool{"TJ": true, "Tj": true, "'": true, "\"": true, "ET": true, "BT": true}

func init() {
	for _, op := range strings.Fields(`b B b* B* BDC BI BMC BT BX c cm CS cs d d0 d1 Do DP EI EMC ET EX
		f F f* G g gs h i ID j J K k l m M MP n q Q re RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf
		Tj TJ TL Tm Tr Ts Tw Tz v w W W* y ' " true false null`) {
		operators[op] = op
	}
}

func parseNum(b []byte) float64 {
	// Fast path for the usual [-]digits[.digits], without allocating.
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var v float64
	digits, frac, scale := 0, false, 1.0
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if frac {
				scale /= 10
				v += float64(c-'0') * scale
			} else {
				v = v*10 + float64(c-'0')
			}
			continue
		case c == '.' && !frac:
			frac = true
			continue
		}
		break
	}
	if i == len(b) && digits > 0 && digits <= 15 {
		if neg {
			return -v
		}
		return v
	}
	return parseNumSlow(b)
}

func parseNumSlow(b []byte) float64 {
	f, err := strconv.ParseFloat(string(b), 64)
	if err == nil {
		return f
	}
	// Producers write "--5" or "5-": take the longest numeric prefix.
	sign := 1.0
	i := 0
	for i < len(b) && (b[i] == '-' || b[i] == '+') {
		if b[i] == '-' {
			sign = -sign
		}
		i++
	}
	j := i
	for j < len(b) && (b[j] == '.' || b[j] >= '0' && b[j] <= '9') {
		j++
	}
	f, _ = strconv.ParseFloat(string(b[i:j]), 64)
	return sign * f
}

func unescapeName(b []byte) string {
	for i := 0; i < len(b); i++ {
		if b[i] == '#' {
			out := make([]byte, 0, len(b))
			for j := 0; j < len(b); j++ {
				if b[j] == '#' && j+2 < len(b) && Unhex(b[j+1]) >= 0 && Unhex(b[j+2]) >= 0 {
					out = append(out, byte(Unhex(b[j+1])<<4|Unhex(b[j+2])))
					j += 2
					continue
				}
				out = append(out, b[j])
			}
			return string(out)
		}
	}
	return string(b)
}

func (l *lexer) literal() string {
	l.i++ // (
	out := l.scratch[:0]
	defer func() { l.scratch = out[:0] }()
	depth := 0
	for l.i < len(l.b) {
		c := l.b[l.i]
		l.i++
		switch c {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return string(out)
			}
			depth--
		case '\\':
			if l.i >= len(l.b) {
				return string(out)
			}
			e := l.b[l.i]
			l.i++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.i < len(l.b) && l.b[l.i] == '\n' {
					l.i++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.i < len(l.b) && l.b[l.i] >= '0' && l.b[l.i] <= '7'; k++ {
						v = v*8 + int(l.b[l.i]-'0')
						l.i++
					}
					c = byte(v)
				} else {
					c = e // \( \) \\ and unknown escapes: the character itself
				}
			}
		}
		out = append(out, c)
	}
	return string(out)
}

func (l *lexer) hex() string {
	l.i++ // <
	out := l.scratch[:0]
	defer func() { l.scratch = out[:0] }()
	nib := -1
	for l.i < len(l.b) {
		c := l.b[l.i]
		l.i++
		if c == '>' {
			break
		}
		v := Unhex(c)
		if v < 0 {
			continue
		}
		if nib < 0 {
			nib = v
		} else {
			out = append(out, byte(nib<<4|v))
			nib = -1
		}
	}
	if nib >= 0 {
		out = append(out, byte(nib<<4))
	}
	return string(out)
}

// skipDict skips a dictionary body after "<<".
func (l *lexer) skipDict(depth int) {
	for {
		l.skipSpace()
		if l.i >= len(l.b) {
			return
		}
		if l.b[l.i] == '>' && l.i+1 < len(l.b) && l.b[l.i+1] == '>' {
			l.i += 2
			return
		}
		if depth >= maxNesting {
			l.i++
			continue
		}
		if _, _, ok := l.next(depth); !ok {
			return
		}
	}
}

// skipInlineImage skips the binary data of an inline image up to "EI"
// standing alone between white space.
func (l *lexer) skipInlineImage() {
	if l.i < len(l.b) {
		l.i++ // the single white-space character after ID
	}
	for l.i+1 < len(l.b) {
		if l.b[l.i] == 'E' && l.b[l.i+1] == 'I' && (l.i == 0 || isSpace(l.b[l.i-1])) &&
			(l.i+2 >= len(l.b) || isSpace(l.b[l.i+2])) {
			l.i += 2
			return
		}
		l.i++
	}
	l.i = len(l.b)
}

// ContentLexer reads a content stream's operands and operators.
type ContentLexer struct{ l lexer }

// NewContentLexer reads the content stream b.
func NewContentLexer(b []byte) *ContentLexer { return &ContentLexer{l: lexer{b: b}} }

// Next returns the next operand (op is ""), or the next operator in op;
// ok is false at the end of the stream. Inline images are skipped (their
// "BI" is returned, then "EI" after their data).
func (c *ContentLexer) Next() (o Operand, op string, ok bool) { return c.l.next(0) }
