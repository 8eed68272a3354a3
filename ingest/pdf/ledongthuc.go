package pdf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"slices"

	lpdf "github.com/ledongthuc/pdf"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
)

// The ledongthuc adapter. github.com/ledongthuc/pdf is the project's chosen
// PDF reader. Extraction reads a file's objects with package syntax: one
// parse of the file, every count in it distrusted, decoded data capped and
// let go page by page (ledongthuc/pdf, given a hostile file, recurses until
// the stack overflows, allocates per a count written in the file and loops
// in page trees: deaths no recover catches). What ledongthuc/pdf does for
// us is to be a second, independent reader of the same document: with
// Ledongthuc, package syntax repairs the file and writes it clean
// (syntax.File.WriteClean: plain objects, one xref table, no object
// streams or encryption, a flat page tree), ledongthuc/pdf parses that copy,
// resolves the objects and inflates the streams, and the page text reads
// its objects through this file. The two readers must give the same text:
// TestReadersAgree checks it on the shared papers, and
// `go run ./bench/extract/sweep -reader ledongthuc` on any set. It costs
// the copy and a second parse, which is why extraction does not use it.

// Reader is what reads a file's objects for the page text.
type Reader uint8

const (
	// OwnReader is package syntax; Extract uses it.
	OwnReader Reader = iota
	// Ledongthuc is github.com/ledongthuc/pdf reading the clean copy
	// package syntax writes (see above).
	Ledongthuc
)

// ExtractBytesWith is ExtractBytes with the objects read by r.
func ExtractBytesWith(ctx context.Context, data []byte, r Reader) (*Document, error) {
	if r == OwnReader {
		return ExtractBytes(ctx, data)
	}
	return extractGuarded(ctx, func(ctx context.Context) (*Document, error) {
		f, err := syntax.Open(ctx, data)
		if err != nil {
			return nil, err
		}
		clean, err := f.WriteClean()
		if err != nil {
			return nil, err
		}
		rd, err := lpdf.NewReader(bytes.NewReader(clean), int64(len(clean)))
		if err != nil {
			return nil, errors.Join(errInternal, err)
		}
		return extractFile(ctx, lpdfFile{rd}, f.Warnings)
	})
}

// lpdfFile is a ledongthuc/pdf reader of a clean file as a source: its page
// tree is flat, each page with its inherited attributes (WriteClean).
type lpdfFile struct{ rd *lpdf.Reader }

func (s lpdfFile) pages() lpdf.Value { return s.rd.Trailer().Key("Root").Key("Pages").Key("Kids") }
func (s lpdfFile) NumPages() int     { return s.pages().Len() }
func (s lpdfFile) Page(i int) object { return lpdfObject{s.pages().Index(i)} }
func (s lpdfFile) Root() object      { return lpdfObject{s.rd.Trailer().Key("Root")} }
func (s lpdfFile) Trailer() object   { return lpdfObject{s.rd.Trailer()} }

// lpdfObject is a ledongthuc/pdf value as an object.
type lpdfObject struct{ v lpdf.Value }

var lpdfKinds = map[lpdf.ValueKind]syntax.Kind{
	lpdf.Null: syntax.Null, lpdf.Bool: syntax.Bool, lpdf.Integer: syntax.Integer, lpdf.Real: syntax.Real,
	lpdf.String: syntax.String, lpdf.Name: syntax.Name, lpdf.Dict: syntax.Dict, lpdf.Array: syntax.Array,
	lpdf.Stream: syntax.Stream,
}

func (o lpdfObject) Kind() syntax.Kind       { return lpdfKinds[o.v.Kind()] }
func (o lpdfObject) IsNull() bool            { return o.v.IsNull() }
func (o lpdfObject) Key(key string) object   { return lpdfObject{o.v.Key(key)} }
func (o lpdfObject) Has(key string) bool     { return slices.Contains(o.v.Keys(), key) }
func (o lpdfObject) Index(i int) object      { return lpdfObject{o.v.Index(i)} }
func (o lpdfObject) Len() int                { return o.v.Len() }
func (o lpdfObject) Name() string            { return o.v.Name() }
func (o lpdfObject) Int64() int64            { return o.v.Int64() }
func (o lpdfObject) Float64() float64        { return o.v.Float64() }
func (o lpdfObject) RawString() string       { return o.v.RawString() }
func (o lpdfObject) Text() string            { return syntax.TextString(o.v.RawString()) }
func (o lpdfObject) RefID(key string) uint64 { return lpdfRefID(o.v, key) }

// Bytes reads the stream through the library, which inflates FlateDecode
// (the clean copy has no other filter).
func (o lpdfObject) Bytes(limit int) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, errors.New("the stream cannot be read")
		}
	}()
	if o.v.Kind() != lpdf.Stream {
		return nil, errors.New("not a stream")
	}
	b, err = io.ReadAll(io.LimitReader(o.v.Reader(), int64(limit)+1))
	if len(b) > limit {
		return b[:limit], syntax.ErrStreamTooLarge
	}
	return b, err
}

// ID reads the object number the library keeps unexported in a Value
// (the second field, an objptr of id and generation).
func (o lpdfObject) ID() uint64 {
	rv := reflect.ValueOf(o.v)
	if rv.NumField() < 2 {
		return 0
	}
	p := rv.Field(1)
	if p.Kind() != reflect.Struct || p.NumField() < 2 {
		return 0
	}
	return p.Field(0).Uint()<<16 | p.Field(1).Uint()
}

// lpdfRefID is the object number of the reference stored under key in
// dictionary d, read from the library's unexported representation without
// resolving it; 0 when that is not a reference (or the representation
// ever changes).
func lpdfRefID(d lpdf.Value, key string) (id uint64) {
	defer func() {
		if recover() != nil {
			id = 0
		}
	}()
	rv := reflect.ValueOf(d)
	if rv.NumField() < 3 {
		return 0
	}
	m := rv.Field(2)
	if m.Kind() == reflect.Interface {
		m = m.Elem()
	}
	if m.Kind() != reflect.Map {
		return 0
	}
	it := m.MapRange()
	for it.Next() {
		if it.Key().String() != key {
			continue
		}
		v := it.Value()
		if v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct || v.NumField() != 2 || v.Field(0).Kind() != reflect.Uint32 {
			return 0
		}
		return v.Field(0).Uint()<<16 | v.Field(1).Uint()
	}
	return 0
}
