package ask

import (
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/textseg"
)

// citeWriter checks and renumbers citations while an answer streams through
// it. Markers like "[3]", "[3, 1]", "[1-2]" or "[Passage 2]" that name given
// passages are rewritten as "[a][b]" with display numbers in order of first
// citation; numbers that name no given passage are dropped (with the spaces
// before them) and recorded. A reply that begins like prompts.NoAnswer is held
// back until it is clear whether it is one. Not safe for concurrent use.
type citeWriter struct {
	w     io.Writer // may be nil: only keep the text
	valid func(n int) bool

	disp    map[int]int // given number -> display number
	order   []int       // given numbers in order of first citation
	invalid []int       // given numbers that name no passage, in order, once each

	text    strings.Builder // the rewritten answer
	head    []byte          // held while the reply might be prompts.NoAnswer
	decided bool
	bracket []byte // held "[..." that may be a citation
	spaces  []byte // held blanks that a dropped citation would take with it
	pend    []byte // checked text not yet written to w (written once per Write)
	err     error  // first error writing to w
}

func newCiteWriter(w io.Writer, valid func(int) bool) *citeWriter {
	return &citeWriter{w: w, valid: valid, disp: map[int]int{}}
}

// Write never fails on content; it returns the first error of the
// underlying writer.
func (c *citeWriter) Write(p []byte) (int, error) {
	if !c.decided {
		c.head = append(c.head, p...)
		h := strings.ToUpper(strings.TrimLeft(string(c.head), " \t\r\n*\"'`_"))
		switch {
		case len(h) < len(prompts.NoAnswer) && strings.HasPrefix(prompts.NoAnswer, h):
			return len(p), nil // still possibly the marker
		case strings.HasPrefix(h, prompts.NoAnswer):
			return len(p), nil // the marker; held until Close decides
		}
		c.decided = true
		p, c.head = c.head, nil
		if c.text.Len() == 0 {
			p = []byte(strings.TrimLeft(string(p), " \t\r\n"))
		}
	}
	for _, b := range p {
		c.feed(b)
	}
	c.flush()
	return len(p), c.err
}

func (c *citeWriter) flush() {
	if len(c.pend) > 0 && c.w != nil && c.err == nil {
		_, c.err = c.w.Write(c.pend)
	}
	c.pend = c.pend[:0]
}

func (c *citeWriter) feed(b byte) {
	if c.bracket != nil {
		switch {
		case b == ']':
			c.bracket = append(c.bracket, b)
			c.closeBracket()
			return
		case b == '[':
			c.emit(c.bracket)
			c.bracket = []byte{b}
			return
		case len(c.bracket) < 40 && (b == ' ' || b == ',' || b == ';' || b == '-' || b == '=' || b == '.' || b >= 0x80 ||
			('0' <= b && b <= '9') || ('a' <= b|0x20 && b|0x20 <= 'z')):
			c.bracket = append(c.bracket, b)
			return
		}
		c.emit(c.bracket)
		c.bracket = nil
	}
	switch {
	case b == '[':
		c.bracket = []byte{b}
	case b == ' ' || b == '\t':
		c.spaces = append(c.spaces, b)
	case b < 0x20 && b != '\n' || b == 0x7f:
		// Model output is untrusted: an ESC could act on the terminal.
	default:
		if len(c.spaces) > 0 {
			c.emit(nil)
		}
		c.text.WriteByte(b)
		c.pend = append(c.pend, b)
	}
}

var citationGroup = regexp.MustCompile(`(?i)^\[\s*(?:(?:passages?|sources?|refs?\.?|n\s*=)\s*)?\d+(?:\s*(?:,|;|-|–|and)\s*(?:(?:passages?|sources?)\s*)?\d+)*\s*\]$`)

// pageSuffix is a page reference a model may add inside a citation,
// "[2, p. 3]" or "[2, pp. 3-4]": the pages are the passage's own, so it goes.
var pageSuffix = regexp.MustCompile(`(?i)\s*,\s*pp?\.\s*\d+(?:\s*[-–]\s*\d+)?\s*\]$`)
var digits = regexp.MustCompile(`\d+|-|–`)

func (c *citeWriter) closeBracket() {
	raw := c.bracket
	c.bracket = nil
	br := pageSuffix.ReplaceAll(raw, []byte("]"))
	if !citationGroup.Match(br) {
		c.emit(raw)
		return
	}
	var nums []int
	toks := digits.FindAllString(string(br), -1)
	for i := 0; i < len(toks); i++ {
		n, err := strconv.Atoi(toks[i])
		if err != nil {
			continue
		}
		// A range "1-3" (bounded, so "[1-999]" cannot flood the answer).
		if i+2 < len(toks) && (toks[i+1] == "-" || toks[i+1] == "–") {
			if m, err := strconv.Atoi(toks[i+2]); err == nil && m > n && m-n <= 20 {
				for k := n; k <= m; k++ {
					nums = append(nums, k)
				}
				i += 2
				continue
			}
		}
		nums = append(nums, n)
	}
	var out strings.Builder
	seen := map[int]bool{}
	for _, n := range nums {
		if seen[n] {
			continue
		}
		seen[n] = true
		if !c.valid(n) {
			if !slices.Contains(c.invalid, n) {
				c.invalid = append(c.invalid, n)
			}
			continue
		}
		d, ok := c.disp[n]
		if !ok {
			c.order = append(c.order, n)
			d = len(c.order)
			c.disp[n] = d
		}
		out.WriteString("[" + strconv.Itoa(d) + "]")
	}
	if out.Len() == 0 {
		c.spaces = nil // drop the citation and the blank before it
		return
	}
	c.emit([]byte(out.String()))
}

func (c *citeWriter) emit(b []byte) {
	if len(c.spaces) > 0 {
		s := c.spaces
		c.spaces = nil
		c.emit(s)
	}
	c.text.Write(b)
	c.pend = append(c.pend, b...)
}

// Close flushes what is held. It reports whether the whole reply was the
// NoAnswer marker, in which case nothing was written.
func (c *citeWriter) Close() (noAnswer bool, err error) {
	if !c.decided {
		if prompts.IsNoAnswer(string(c.head)) || strings.TrimSpace(string(c.head)) == "" {
			return strings.TrimSpace(string(c.head)) != "", c.err
		}
		c.decided = true
		head := c.head
		c.head = nil
		for _, b := range []byte(strings.TrimLeft(string(head), " \t\r\n")) {
			c.feed(b)
		}
	}
	if c.bracket != nil {
		c.emit(c.bracket)
		c.bracket = nil
	}
	c.spaces = nil
	c.flush()
	return false, c.err
}

// Text is the rewritten answer, trimmed.
func (c *citeWriter) Text() string { return strings.TrimSpace(c.text.String()) }

var displayCite = regexp.MustCompile(`\[(\d+)\]`)
var leadingCites = regexp.MustCompile(`^(?:\[\d+\]\s*)+`)

// citingSentences maps each display number to the sentences of answer that
// cite it, in order. Citations a model put after a sentence's full stop
// ("... end. [2] Next ...") count for the sentence before.
func citingSentences(answer string) map[int][]string {
	var sents []string
	for _, para := range textseg.Paragraphs(answer) {
		for _, s := range textseg.Sentences(para) {
			if m := leadingCites.FindString(s); m != "" && len(sents) > 0 {
				sents[len(sents)-1] += " " + strings.TrimSpace(m)
				s = strings.TrimSpace(s[len(m):])
				if s == "" {
					continue
				}
			}
			sents = append(sents, s)
		}
	}
	out := map[int][]string{}
	for _, s := range sents {
		seen := map[int]bool{}
		for _, m := range displayCite.FindAllStringSubmatch(s, -1) {
			n, _ := strconv.Atoi(m[1])
			if !seen[n] {
				seen[n] = true
				out[n] = append(out[n], s)
			}
		}
	}
	return out
}
