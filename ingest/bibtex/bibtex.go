// Package bibtex reads BibTeX files as reference managers (Zotero, JabRef,
// BibDesk, Mendeley), the NASA ADS and Crossref write them: entries with
// their type, citation key and fields, @string macros (and the month
// names), "#" concatenation, @comment and @preamble skipped, text outside
// entries ignored as BibTeX ignores it. An entry that cannot be read is
// reported with its line and skipped; the entries after it are read.
package bibtex

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Entry is one BibTeX entry.
type Entry struct {
	Type string // lower case: "article", "inproceedings", ...
	Key  string // the citation key, as written
	// Fields by lower-case name, as written between their delimiters
	// (macros expanded, "#" joined): TeX and braces kept (see Text).
	Fields map[string]string
	Line   int // the line of its "@"
}

// Error is an entry that could not be read.
type Error struct {
	Line int
	Msg  string
}

func (e Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// MaxFileBytes bounds a .bib file (a library of 100,000 entries is ~60 MB).
const MaxFileBytes = 256 << 20

// Parse reads a BibTeX file. It returns the entries it could read, in
// order, and one Error per entry it skipped; err is a failure to read r.
func Parse(r io.Reader) (entries []Entry, bad []Error, err error) {
	data, err := io.ReadAll(io.LimitReader(bufio.NewReader(r), MaxFileBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, nil, fmt.Errorf("larger than %d MiB: not a BibTeX file papers reads", MaxFileBytes>>20)
	}
	p := &parser{s: strings.TrimPrefix(string(data), "\ufeff"), line: 1, macros: map[string]string{}}
	for m, name := range months {
		p.macros[m] = name
	}
	for p.next() {
		start, at := p.line, p.i
		e, err := p.entry()
		if err != nil {
			bad = append(bad, Error{Line: start, Msg: err.Error()})
			p.recover(at)
			continue
		}
		if e != nil {
			e.Line = start
			entries = append(entries, *e)
		}
	}
	return entries, bad, nil
}

var months = map[string]string{"jan": "January", "feb": "February", "mar": "March", "apr": "April", "may": "May", "jun": "June",
	"jul": "July", "aug": "August", "sep": "September", "oct": "October", "nov": "November", "dec": "December"}

type parser struct {
	s      string
	i      int
	line   int
	macros map[string]string
}

func (p *parser) eof() bool { return p.i >= len(p.s) }

func (p *parser) advance(n int) {
	for k := 0; k < n && p.i < len(p.s); k++ {
		if p.s[p.i] == '\n' {
			p.line++
		}
		p.i++
	}
}

// next moves to the next "@" outside an entry; false at the end.
func (p *parser) next() bool {
	for !p.eof() {
		if p.s[p.i] == '@' {
			return true
		}
		p.advance(1)
	}
	return false
}

// recover moves to the next "@" after the broken entry that began at
// index at and that starts a line (after blanks): where the next entry
// most likely begins. The parser may already be there.
func (p *parser) recover(at int) {
	if p.i <= at {
		p.advance(at + 1 - p.i)
	}
	for !p.eof() && !(p.s[p.i] == '@' && atLineStart(p.s, p.i)) {
		p.advance(1)
	}
}

func (p *parser) space() {
	for !p.eof() {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			p.advance(1)
			continue
		}
		return
	}
}

// ident reads a name: a type, a field, a macro.
func (p *parser) ident() string {
	start := p.i
	for !p.eof() {
		c := rune(p.s[p.i])
		if unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("_-:./+'", c) || c >= 0x80 {
			p.advance(1)
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// entry reads one "@type{...}" (the parser is at "@"); nil for @comment,
// @preamble and @string.
func (p *parser) entry() (*Entry, error) {
	p.advance(1)
	p.space()
	typ := strings.ToLower(p.ident())
	if typ == "" {
		return nil, fmt.Errorf("an @ without an entry type")
	}
	p.space()
	if p.eof() || p.s[p.i] != '{' && p.s[p.i] != '(' {
		if typ == "comment" {
			return nil, nil // "@comment" followed by text: a comment to the end of the line
		}
		return nil, fmt.Errorf("@%s is not followed by { or (", typ)
	}
	closer := byte('}')
	if p.s[p.i] == '(' {
		closer = ')'
	}
	switch typ {
	case "comment", "preamble":
		if _, err := p.balanced(p.s[p.i], closer); err != nil {
			return nil, fmt.Errorf("@%s: %w", typ, err)
		}
		return nil, nil
	}
	p.advance(1)
	p.space()
	if typ == "string" {
		name := strings.ToLower(p.ident())
		p.space()
		if name == "" || p.eof() || p.s[p.i] != '=' {
			return nil, fmt.Errorf("@string without name = value")
		}
		p.advance(1)
		v, err := p.value()
		if err != nil {
			return nil, fmt.Errorf("@string %s: %w", name, err)
		}
		p.space()
		if p.eof() || p.s[p.i] != closer {
			return nil, fmt.Errorf("@string %s is not closed by %c", name, closer)
		}
		p.advance(1)
		p.macros[name] = v
		return nil, nil
	}
	start := p.i
	for !p.eof() && p.s[p.i] != ',' && p.s[p.i] != closer && p.s[p.i] != '\n' && p.s[p.i] != '=' {
		p.advance(1)
	}
	e := &Entry{Type: typ, Key: strings.TrimSpace(p.s[start:p.i]), Fields: map[string]string{}}
	if e.Key == "" || !p.eof() && p.s[p.i] == '=' {
		return nil, fmt.Errorf("@%s has no citation key", typ)
	}
	p.space()
	for {
		if p.eof() {
			return nil, fmt.Errorf("@%s{%s is not closed (the file ends inside it)", typ, e.Key)
		}
		switch p.s[p.i] {
		case closer:
			p.advance(1)
			return e, nil
		case ',':
			p.advance(1)
			p.space()
			continue
		}
		fline := p.line
		name := strings.ToLower(p.ident())
		if name == "" {
			return nil, fmt.Errorf("@%s{%s: line %d: expected a field name, found %q", typ, e.Key, p.line, snippet(p.s[p.i:]))
		}
		p.space()
		if p.eof() || p.s[p.i] != '=' {
			return nil, fmt.Errorf("@%s{%s: line %d: field %s has no \"=\"", typ, e.Key, fline, name)
		}
		p.advance(1)
		v, err := p.value()
		if err != nil {
			return nil, fmt.Errorf("@%s{%s: field %s (line %d): %w", typ, e.Key, name, fline, err)
		}
		if _, dup := e.Fields[name]; !dup {
			e.Fields[name] = v // BibTeX keeps the first of a field given twice
		}
		p.space()
		if !p.eof() && p.s[p.i] != ',' && p.s[p.i] != closer {
			return nil, fmt.Errorf("@%s{%s: line %d: expected \",\" or %q after field %s, found %q", typ, e.Key, p.line, closer, name, snippet(p.s[p.i:]))
		}
	}
}

// value reads "{...}", "\"...\"", a number or a macro, joined by "#".
func (p *parser) value() (string, error) {
	var b strings.Builder
	for {
		p.space()
		if p.eof() {
			return "", fmt.Errorf("the file ends where a value should be")
		}
		switch c := p.s[p.i]; {
		case c == '{':
			v, err := p.balanced('{', '}')
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case c == '"':
			v, err := p.quoted()
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case c >= '0' && c <= '9':
			start := p.i
			for !p.eof() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.advance(1)
			}
			b.WriteString(p.s[start:p.i])
		default:
			name := p.ident()
			if name == "" {
				return "", fmt.Errorf("expected a value, found %q", snippet(p.s[p.i:]))
			}
			if v, ok := p.macros[strings.ToLower(name)]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(`\` + name) // an undefined macro: the ADS's journals, written bare (apj)
			}
		}
		p.space()
		if p.eof() || p.s[p.i] != '#' {
			return b.String(), nil
		}
		p.advance(1)
	}
}

// balanced reads from an opening delimiter to its matching closer and
// returns what is between them.
func (p *parser) balanced(open, closer byte) (string, error) {
	startLine := p.line
	p.advance(1)
	start, depth := p.i, 0
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s) && (p.s[p.i+1] == '{' || p.s[p.i+1] == '}'):
			p.advance(2)
			continue
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == closer && depth == 0:
			v := p.s[start:p.i]
			p.advance(1)
			return v, nil
		case c == '}':
			return "", fmt.Errorf("a } closes nothing (line %d)", p.line)
		case c == '@' && depth == 0 && open == '{' && atLineStart(p.s, p.i):
			return "", fmt.Errorf("the value opened on line %d is not closed before the next entry", startLine)
		}
		p.advance(1)
	}
	return "", fmt.Errorf("the value opened on line %d is not closed (the file ends inside it)", startLine)
}

// quoted reads "...", where a quote inside braces does not end the value.
func (p *parser) quoted() (string, error) {
	startLine := p.line
	p.advance(1)
	start, depth := p.i, 0
	for !p.eof() {
		switch c := p.s[p.i]; {
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == '"' && depth == 0 && p.s[p.i-1] != '\\':
			v := p.s[start:p.i]
			p.advance(1)
			return v, nil
		case c == '@' && depth == 0 && atLineStart(p.s, p.i):
			return "", fmt.Errorf("the quoted value opened on line %d is not closed before the next entry", startLine)
		}
		p.advance(1)
	}
	return "", fmt.Errorf("the quoted value opened on line %d is not closed", startLine)
}

func atLineStart(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	return j < 0 || s[j] == '\n'
}

func snippet(s string) string {
	s = strings.SplitN(s, "\n", 2)[0]
	if len(s) > 30 {
		s = s[:30] + "..."
	}
	return s
}
