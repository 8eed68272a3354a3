package pdf

import "github.com/papers-cli/papers/ingest/pdf/syntax"

// object is a PDF object as page text reads it: a dictionary's entries, an
// array's elements, numbers, names, strings, a stream's decoded data.
// References are resolved as it is read, and a missing or malformed object
// reads as null, whose methods return zero values. Package syntax's Value
// is the reader extraction uses; the ledongthuc adapter gives another
// (ledongthuc.go).
type object interface {
	Kind() syntax.Kind
	IsNull() bool
	Key(key string) object
	Has(key string) bool
	Index(i int) object
	Len() int
	Name() string
	Int64() int64
	Float64() float64
	RawString() string
	Text() string
	// ID identifies the indirect object it was read from (0 for a direct
	// one): fonts and forms shared by pages are read once, and a form
	// met again on its own path is a cycle.
	ID() uint64
	// RefID is ID of the entry under key of a dictionary, without
	// reading it.
	RefID(key string) uint64
	// Bytes is a stream's decoded data, at most limit bytes; what was
	// decoded before an error comes with it.
	Bytes(limit int) ([]byte, error)
}

// source is an opened file as page text reads it.
type source interface {
	NumPages() int
	// Page is page i (from 0), with its inherited attributes.
	Page(i int) object
	Root() object
	Trailer() object
}

// own is a syntax.Value as an object.
type own struct{ v syntax.Value }

func (o own) Kind() syntax.Kind               { return o.v.Kind() }
func (o own) IsNull() bool                    { return o.v.IsNull() }
func (o own) Key(key string) object           { return own{o.v.Key(key)} }
func (o own) Has(key string) bool             { return o.v.Has(key) }
func (o own) Index(i int) object              { return own{o.v.Index(i)} }
func (o own) Len() int                        { return o.v.Len() }
func (o own) Name() string                    { return o.v.Name() }
func (o own) Int64() int64                    { return o.v.Int64() }
func (o own) Float64() float64                { return o.v.Float64() }
func (o own) RawString() string               { return o.v.RawString() }
func (o own) Text() string                    { return o.v.Text() }
func (o own) ID() uint64                      { return o.v.ID() }
func (o own) RefID(key string) uint64         { return o.v.RefID(key) }
func (o own) Bytes(limit int) ([]byte, error) { return o.v.Bytes(limit) }

// ownFile is a syntax.File as a source.
type ownFile struct{ f *syntax.File }

func (s ownFile) NumPages() int     { return s.f.NumPages() }
func (s ownFile) Page(i int) object { return own{s.f.Page(i)} }
func (s ownFile) Root() object      { return own{s.f.Root()} }
func (s ownFile) Trailer() object   { return own{s.f.Trailer()} }

// null is the null object.
var null object = own{}
