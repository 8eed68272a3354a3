package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// Paragraph is one paragraph of a paper, read back from its chunks: the
// unit evidence is ranked in. Its sentences are what an answer quotes.
type Paragraph struct {
	PaperID string
	Seq     int // the chunk it starts in
	// Page and PageEnd are the page span of the chunks it is read from (0
	// for corpus text, which has no pages): a chunk does not know on which
	// of its pages a line stands.
	Page, PageEnd int
	Section       string // the section heading in force ("" before the first; "abstract" for chunk 0)
	Text          string // white space collapsed
	Index         int    // its position among the paper's paragraphs, from 0
	Of            int    // how many paragraphs the paper has
	// Heading is set for a paragraph that is its section's heading line.
	Heading bool
	// Sentences are Text's sentences, in order.
	Sentences []string

	marks []pageMark // where later pages start, by word
}

// Paragraphs reads a paper's paragraphs back from its chunks (all of them,
// in order of Seq): the overlap that consecutive chunks of a section share
// is dropped (chunk.Trim), a paragraph the chunker cut across two chunks is
// joined again, and chunk 0 (title and abstract) gives the abstract as one
// paragraph of section "abstract".
func Paragraphs(chunks []store.Chunk) []Paragraph {
	var out []Paragraph
	// add appends the line of chunk c that starts at byte off of its text
	add := func(c store.Chunk, line string, off int, cont bool) {
		text := strings.Join(strings.Fields(line), " ")
		if text == "" {
			return
		}
		// the pages of the line's words: where it starts, and the word
		// each later page starts at
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		page := pageAt(c, off+lead)
		var marks []pageMark
		for _, b := range c.PageBreaks {
			if b > off+lead && b < off+len(line) {
				marks = append(marks, pageMark{word: len(strings.Fields(line[:b-off])), page: pageAt(c, b)})
			}
		}
		if len(out) > 0 && !cont && out[len(out)-1].Section == c.Section && brokenOff(out[len(out)-1], text) {
			cont = true
		}
		if cont && len(out) > 0 && out[len(out)-1].Section == c.Section {
			last := &out[len(out)-1]
			words := len(strings.Fields(last.Text))
			if page != last.PageEnd {
				last.marks = append(last.marks, pageMark{word: words, page: page})
			}
			for _, m := range marks {
				last.marks = append(last.marks, pageMark{word: words + m.word, page: m.page})
			}
			last.Text += " " + text
			last.PageEnd = max(last.PageEnd, page)
			if c.PageBreaks == nil {
				last.PageEnd = max(last.PageEnd, c.PageEnd)
			}
			if len(marks) > 0 {
				last.PageEnd = max(last.PageEnd, marks[len(marks)-1].page)
			}
			return
		}
		p := Paragraph{PaperID: c.PaperID, Seq: c.Seq, Page: page, PageEnd: page, Section: c.Section, Text: text, marks: marks}
		if len(marks) > 0 {
			p.PageEnd = marks[len(marks)-1].page
		}
		if c.PageBreaks == nil && c.PageEnd > c.PageStart {
			p.PageEnd = c.PageEnd // stored without its breaks: any of its pages
		}
		out = append(out, p)
	}
	var prev *store.Chunk
	for i := range chunks {
		c := chunks[i]
		if c.Seq == 0 {
			// title, blank line, abstract
			_, abs, ok := strings.Cut(c.Text, "\n\n")
			if !ok {
				abs = c.Text
			}
			c.Section = "abstract"
			add(c, abs, len(c.Text)-len(abs), false)
			prev = nil
			continue
		}
		text := c.Text
		cont := false
		if prev != nil && prev.Section == c.Section {
			trimmed := chunk.Trim(prev.Text, text)
			if trimmed != text && len(trimmed) < len(text) {
				// what came before the rest is the repeated overlap: the
				// rest continues its paragraph unless a line break
				// separates them
				before := strings.TrimRight(text[:len(text)-len(trimmed)], " ")
				cont = !strings.HasSuffix(before, "\n") && !strings.HasSuffix(text[:len(text)-len(trimmed)], "\n")
			} else {
				r, _ := utf8.DecodeRuneInString(strings.TrimSpace(text))
				cont = unicode.IsLower(r)
			}
			text = trimmed
		}
		off := len(c.Text) - len(text)
		for k, line := range strings.Split(text, "\n") {
			add(c, line, off, k == 0 && cont)
			off += len(line) + 1
		}
		prev = &chunks[i]
	}
	for i := range out {
		p := &out[i]
		p.Index, p.Of = i, len(out)
		p.Heading = p.Section != "" && p.Section != "abstract" && p.Text == p.Section
		p.Sentences = textseg.Sentences(p.Text)
	}
	return out
}

// pageMark says that a paragraph's words from word on are on page.
type pageMark struct{ word, page int }

// pageAt is the page of the chunk's text at byte off: PageStart, one more
// for each page break at or before it. A chunk stored without its breaks
// says PageStart.
func pageAt(c store.Chunk, off int) int {
	p := c.PageStart
	for _, b := range c.PageBreaks {
		if b <= off {
			p++
		}
	}
	return p
}

// SentencePage is the page sentence i of the paragraph starts on, as far
// as its chunks know (the paragraph's Page when they do not say).
func (p Paragraph) SentencePage(i int) int {
	word := 0
	for _, s := range p.Sentences[:min(i, len(p.Sentences))] {
		word += len(strings.Fields(s))
	}
	page := p.Page
	for _, m := range p.marks {
		if m.word <= word {
			page = m.page
		}
	}
	return page
}

// brokenOff reports a line that goes on with the sentence the paragraph
// before it leaves unfinished: a column or page break cut the paragraph
// ("... completes the level-7 tasks" / "“Make Iron Pickaxe” and ..."). A
// heading is never continued, nor text that has no pages (a corpus's,
// whose line breaks are its author's).
func brokenOff(prev Paragraph, line string) bool {
	if prev.Page <= 0 || prev.Text == prev.Section || prev.Seq == 0 && prev.Section == "abstract" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(prev.Text)
	if strings.ContainsRune(".!?:;", last) || len(strings.Fields(prev.Text)) < 4 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(line)
	return unicode.IsLower(first) || strings.ContainsRune("“\"(", first) && !strings.HasPrefix(line, "(")
}
