package syntax

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a PDF object.
type Kind uint8

// The kinds of objects.
const (
	Null Kind = iota
	Bool
	Integer
	Real
	String
	Name
	Dict
	Array
	Stream
)

// Value is one object of a File, references resolved as it is read: a
// missing, malformed or cyclic object reads as null, and every method of a
// null (or of the wrong kind of value) returns the zero value, so that a
// chain such as v.Key("Font").Key(name).Key("Widths").Index(3) never
// fails. Reading an object may decode an object stream; when the file's
// context is done or a limit is reached, the methods panic with Abort.
type Value struct {
	f   *File
	v   any    // nil, bool, int64, float64, pdfString, pdfName, pdfArray, pdfDict, *pdfStream
	num uint32 // the indirect object it was read from, 0 for a direct one
}

// Kind is the kind of the value.
func (v Value) Kind() Kind {
	switch v.v.(type) {
	case bool:
		return Bool
	case int64:
		return Integer
	case float64:
		return Real
	case pdfString:
		return String
	case pdfName:
		return Name
	case pdfDict:
		return Dict
	case pdfArray, *pdfArray:
		return Array
	case *pdfStream:
		return Stream
	}
	return Null
}

// IsNull reports whether the value is null (or missing).
func (v Value) IsNull() bool { return v.Kind() == Null }

// ID identifies the indirect object the value was read from (0 for a
// direct object): values of one ID are one object, which a reader may
// cache (fonts shared by pages) and whose recurrence on a path is a cycle.
func (v Value) ID() uint64 { return uint64(v.num) }

// resolve makes a Value of x, a member of v, following a reference.
func (v Value) resolve(x any) Value {
	if v.f == nil {
		return Value{}
	}
	if r, ok := x.(pdfRef); ok {
		return Value{f: v.f, v: v.f.d.object(r.num), num: r.num}
	}
	return Value{f: v.f, v: x}
}

func (v Value) dict() pdfDict {
	switch x := v.v.(type) {
	case pdfDict:
		return x
	case *pdfStream:
		return x.dict
	}
	return nil
}

func (v Value) array() pdfArray {
	switch x := v.v.(type) {
	case pdfArray:
		return x
	case *pdfArray:
		return *x
	}
	return nil
}

// Key is the value under key in a dictionary (or a stream's dictionary).
func (v Value) Key(key string) Value { return v.resolve(v.dict()[pdfName(key)]) }

// RefID is the object number stored under key in a dictionary, without
// reading that object (0 when the entry is direct or missing): the key to
// a cache of objects shared by many dictionaries.
func (v Value) RefID(key string) uint64 {
	if r, ok := v.dict()[pdfName(key)].(pdfRef); ok {
		return uint64(r.num)
	}
	return 0
}

// Has says whether a dictionary has an entry for key (which may still
// read as null: a reference to a missing object).
func (v Value) Has(key string) bool {
	_, ok := v.dict()[pdfName(key)]
	return ok
}

// Keys are the keys of a dictionary, in no order.
func (v Value) Keys() []string {
	d := v.dict()
	out := make([]string, 0, len(d))
	for k := range d {
		out = append(out, string(k))
	}
	return out
}

// Len is the length of an array (0 for anything else).
func (v Value) Len() int { return len(v.array()) }

// Index is element i of an array (null when out of range).
func (v Value) Index(i int) Value {
	a := v.array()
	if i < 0 || i >= len(a) {
		return Value{}
	}
	return v.resolve(a[i])
}

// Name is a name's text, without the slash.
func (v Value) Name() string {
	n, _ := v.v.(pdfName)
	return string(n)
}

// Bool is a boolean's value.
func (v Value) Bool() bool {
	b, _ := v.v.(bool)
	return b
}

// Int64 is an integer's value (a real is truncated toward zero).
func (v Value) Int64() int64 {
	switch x := v.v.(type) {
	case int64:
		return x
	case float64:
		if x > -1e18 && x < 1e18 {
			return int64(x)
		}
	}
	return 0
}

// Float64 is a number's value.
func (v Value) Float64() float64 {
	switch x := v.v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// RawString is a string's bytes (decrypted).
func (v Value) RawString() string {
	s, _ := v.v.(pdfString)
	return string(s)
}

// Text is a text string as UTF-8: UTF-16BE after a byte order mark (or
// UTF-16LE after its mark, as some writers do), UTF-8 after its mark, else
// PDFDocEncoding (PDF 32000-1 7.9.2.2 and annex D).
func (v Value) Text() string { return TextString(v.RawString()) }

// TextString decodes the bytes of a PDF text string; see Value.Text.
func TextString(s string) string {
	switch {
	case len(s) >= 2 && s[0] == 0xfe && s[1] == 0xff:
		return decodeUTF16(s[2:], true)
	case len(s) >= 2 && s[0] == 0xff && s[1] == 0xfe:
		return decodeUTF16(s[2:], false)
	case len(s) >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf && utf8.ValidString(s[3:]):
		return s[3:]
	}
	b := make([]rune, 0, len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, pdfDocRune(s[i]))
	}
	return string(b)
}

func decodeUTF16(s string, bigEndian bool) string {
	u := make([]uint16, len(s)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
		} else {
			u[i] = uint16(s[2*i+1])<<8 | uint16(s[2*i])
		}
	}
	return string(utf16.Decode(u))
}

// pdfDocHigh is PDFDocEncoding from 0x80 to 0x9f; 0xa0 and up is
// Latin-1 but 0xa0 (the euro sign) and 0xad (undefined).
var pdfDocHigh = [32]rune{
	0x2022, 0x2020, 0x2021, 0x2026, 0x2014, 0x2013, 0x0192, 0x2044,
	0x2039, 0x203a, 0x2212, 0x2030, 0x201e, 0x201c, 0x201d, 0x2018,
	0x2019, 0x201a, 0x2122, 0xfb01, 0xfb02, 0x0141, 0x0152, 0x0160,
	0x0178, 0x017d, 0x0131, 0x0142, 0x0153, 0x0161, 0x017e, 0xfffd,
}

// pdfDocLow is PDFDocEncoding from 0x18 to 0x1f: spacing accents.
var pdfDocLow = [8]rune{0x02d8, 0x02c7, 0x02c6, 0x02d9, 0x02dd, 0x02db, 0x02da, 0x02dc}

func pdfDocRune(c byte) rune {
	switch {
	case c >= 0x18 && c <= 0x1f:
		return pdfDocLow[c-0x18]
	case c >= 0x80 && c <= 0x9f:
		return pdfDocHigh[c-0x80]
	case c == 0xa0:
		return 0x20ac
	case c == 0xad:
		return 0xfffd
	}
	return rune(c)
}

// String renders the value for debugging: numbers, names with their
// slash, strings quoted, containers by their kind and size.
func (v Value) String() string {
	switch x := v.v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case pdfString:
		return strconv.Quote(string(x))
	case pdfName:
		return "/" + string(x)
	case pdfDict:
		return "<<dict of " + strconv.Itoa(len(x)) + ">>"
	case pdfArray:
		return "[array of " + strconv.Itoa(len(x)) + "]"
	case *pdfStream:
		return "<<stream of " + strconv.Itoa(len(x.raw)) + " bytes>>"
	}
	return "null"
}

// Bytes is a stream's data, decrypted and decoded through its filters, at
// most limit bytes (and at most MaxStreamBytes). What was decoded before a
// damaged part is returned with the error; an image codec or unknown filter
// gives no data and an error.
func (v Value) Bytes(limit int) ([]byte, error) {
	s, ok := v.v.(*pdfStream)
	if !ok {
		return nil, errNotStream
	}
	return v.f.d.decodeStream(s, true, limit)
}
