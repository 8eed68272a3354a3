package pgstore

import (
	"strconv"
	"strings"
)

// The library's record is package store's SQL, written for SQLite and
// kept to what PostgreSQL reads alike; translate turns the few textual
// differences left into PostgreSQL's, on every statement this package's
// connections run (see conn):
//
//   - ? placeholders become $n, numbered after the largest $n the
//     statement holds already (this package's own SQL numbers its
//     parameters, and appends a filter's ? conditions after them);
//   - the library's tables (after FROM, JOIN, INTO or UPDATE) are
//     qualified by its schema: PGlite runs every connection on one
//     session, where a search_path would be every library's at once;
//   - LIKE is ILIKE: SQLite's LIKE ignores case (of ASCII letters);
//   - DESC is DESC NULLS LAST: SQLite sorts NULL as the smallest value,
//     PostgreSQL as the largest;
//   - LIMIT -1 (SQLite's "no limit", needed before an OFFSET) is LIMIT ALL.
//
// String literals, quoted identifiers, comments and dollar-quoted bodies
// are left as they are.
func translate(q, schema string) string {
	toks := tokens(q)
	next := maxParam(toks)
	var b strings.Builder
	b.Grow(len(q) + 64)
	prev := "" // the last significant token, upper-cased
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokSpace:
			b.WriteString(t.text)
			continue
		case t.kind == tokParam && t.text == "?":
			next++
			b.WriteString("$" + strconv.Itoa(next))
		case t.kind == tokWord:
			up := strings.ToUpper(t.text)
			switch {
			case (prev == "FROM" || prev == "JOIN" || prev == "INTO" || prev == "UPDATE") && tables[strings.ToLower(t.text)] &&
				!precededBy(toks, i, "."):
				b.WriteString(quoteIdent(schema) + "." + t.text)
			case up == "LIKE":
				b.WriteString("ILIKE")
			case up == "DESC" && !followedByWord(toks, i, "NULLS"):
				b.WriteString(t.text + " NULLS LAST")
			default:
				b.WriteString(t.text)
			}
			prev = up
			continue
		case t.kind == tokOther && t.text == "-" && prev == "LIMIT" && followedBy(toks, i, "1"):
			// LIMIT -1: skip to the 1 and write ALL instead.
			for i++; toks[i].text != "1"; i++ {
			}
			b.WriteString("ALL")
		default:
			b.WriteString(t.text)
		}
		prev = strings.ToUpper(t.text)
	}
	return b.String()
}

// tables are the names translate qualifies: the record's tables and this
// package's.
var tables = map[string]bool{
	"manifest": true, "papers": true, "paper_categories": true, "paper_tags": true, "paper_identifiers": true,
	"saved_papers": true, "topics": true, "topic_papers": true, "chunks": true, "review_cells": true, "reviews": true,
	"terms": true, "text_stats": true,
}

// quoteIdent quotes an identifier for SQL.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

type tokKind int

const (
	tokSpace tokKind = iota // white space and comments
	tokWord                 // a keyword or a bare identifier
	tokParam                // ? or $n
	tokOther                // literals, quoted identifiers, numbers, punctuation
)

type token struct {
	kind tokKind
	text string
}

// tokens splits q into tokens whose texts, concatenated, are q.
func tokens(q string) []token {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		j := i + 1
		kind := tokOther
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for j < len(q) && strings.IndexByte(" \t\n\r", q[j]) >= 0 {
				j++
			}
			kind = tokSpace
		case c == '-' && j < len(q) && q[j] == '-':
			for j < len(q) && q[j] != '\n' {
				j++
			}
			kind = tokSpace
		case c == '/' && j < len(q) && q[j] == '*':
			if k := strings.Index(q[j+1:], "*/"); k >= 0 {
				j += 1 + k + 2
			} else {
				j = len(q)
			}
			kind = tokSpace
		case c == '\'' || c == '"':
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c { // a doubled quote
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
		case c == '?':
			kind = tokParam
		case c == '$':
			switch {
			case j < len(q) && q[j] >= '0' && q[j] <= '9':
				for j < len(q) && q[j] >= '0' && q[j] <= '9' {
					j++
				}
				kind = tokParam
			default: // a dollar quote: $$...$$ or $tag$...$tag$
				k := j
				for k < len(q) && (isWordByte(q[k]) && !(q[k] >= '0' && q[k] <= '9' && k == j)) {
					k++
				}
				if k < len(q) && q[k] == '$' {
					tag := q[i : k+1]
					if e := strings.Index(q[k+1:], tag); e >= 0 {
						j = k + 1 + e + len(tag)
					} else {
						j = len(q)
					}
				}
			}
		case isWordByte(c) && !(c >= '0' && c <= '9'):
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			kind = tokWord
		case c >= '0' && c <= '9':
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '.') {
				j++
			}
		}
		out = append(out, token{kind, q[i:j]})
		i = j
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// maxParam returns the largest n of the $n parameters among toks (0: none).
func maxParam(toks []token) int {
	n := 0
	for _, t := range toks {
		if t.kind == tokParam && t.text != "?" {
			if v, err := strconv.Atoi(t.text[1:]); err == nil && v > n {
				n = v
			}
		}
	}
	return n
}

// followedBy reports whether the first significant token after toks[i]
// is text.
func followedBy(toks []token, i int, text string) bool {
	for _, t := range toks[i+1:] {
		if t.kind != tokSpace {
			return t.text == text
		}
	}
	return false
}

// followedByWord is followedBy for a keyword, in any case.
func followedByWord(toks []token, i int, word string) bool {
	for _, t := range toks[i+1:] {
		if t.kind != tokSpace {
			return t.kind == tokWord && strings.EqualFold(t.text, word)
		}
	}
	return false
}

// precededBy reports whether toks[i-1] is text (no space between).
func precededBy(toks []token, i int, text string) bool {
	return i > 0 && toks[i-1].text == text
}
