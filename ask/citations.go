package ask

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/textseg"
)

// citeWriter checks the citations of a model's reply while it streams
// through, sentence by sentence. Markers like "[3]", "[3, 1]", "[1-2]",
// "[2, p. 3]" or "[Passage 2]" are citation groups: numbers that name given
// passages are kept (as "[a][b]", renumbered in order of first citation
// when renumber is set), numbers that name none are dropped with the blanks
// before them and recorded. A sentence whose only citations were all
// dropped is itself removed (its claim has no source) and recorded; a
// model-written "Sources:" or "References" block, and everything after it,
// is dropped (papers prints its own). Each sentence is written to w once it
// is complete, so the reader sees the answer as it is checked. A reply that
// begins like prompts.NoAnswer is held back until it is clear whether it
// is one. Not safe for concurrent use.
type citeWriter struct {
	w        io.Writer // may be nil: only keep the text
	valid    func(n int) bool
	renumber bool // display numbers in order of first citation; else the given numbers
	noAnswer bool // recognise prompts.NoAnswer
	strip    bool // drop every citation and remove no sentence (for texts that must not cite)

	disp    map[int]int // given number -> display number
	order   []int       // given numbers in order of first citation
	invalid []int       // given numbers that name no passage, once each, from kept sentences
	removed []Claim     // sentences removed: every citation they made named no passage
	sources bool        // a model-written Sources block was dropped

	text     strings.Builder // the checked answer
	head     []byte          // held while the reply might be prompts.NoAnswer
	decided  bool
	bracket  []byte // held "[..." that may be a citation
	spaces   []byte // held blanks that a dropped citation would take with it
	sent     []byte // the sentence being read, citation groups as markers
	lineHead bool   // sent starts at the beginning of a line
	dropRest bool   // after a model-written Sources heading
	trail    string // blanks after the last kept sentence, written before the next
	pend     []byte // checked text not yet written to w (written once per Write)
	err      error  // first error writing to w
}

// Markers of a citation group inside citeWriter.sent: markOpen, the valid
// given numbers, markSep, the invalid ones, markClose (comma-separated).
// Control characters never reach sent from the model's text (feed drops
// them), so the markers cannot be forged.
const (
	markOpen  = '\x01'
	markSep   = '\x03'
	markClose = '\x02'
)

// newCiteWriter is the checker of ask's answers: renumbered citations,
// NO_ANSWER recognised.
func newCiteWriter(w io.Writer, valid func(int) bool) *citeWriter {
	return &citeWriter{w: w, valid: valid, renumber: true, noAnswer: true, disp: map[int]int{}, lineHead: true}
}

// Write never fails on content; it returns the first error of the
// underlying writer.
func (c *citeWriter) Write(p []byte) (int, error) {
	if !c.decided && c.noAnswer {
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
	}
	c.decided = true
	for _, b := range p {
		c.feed(b)
	}
	c.cut(false)
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
		if len(c.sent) == 0 && b == '\n' && c.text.Len() == 0 {
			return // no blank lines before the answer
		}
		c.sent = append(c.sent, b)
	}
}

var citationGroup = lazyre.New(`(?i)^\[\s*(?:(?:passages?|sources?|refs?\.?|n\s*=)\s*)?\d+(?:\s*(?:,|;|-|–|and)\s*(?:(?:passages?|sources?)\s*)?\d+)*\s*\]$`)

// pageSuffix is a page reference a model may add inside a citation,
// "[2, p. 3]" or "[2, pp. 3-4]": the pages are the passage's own, so it goes.
var pageSuffix = lazyre.New(`(?i)\s*,\s*pp?\.\s*\d+(?:\s*[-–]\s*\d+)?\s*\]$`)
var digits = lazyre.New(`\d+|-|–`)

// citedNumbers parses a citation group ("[1, 3-5]", "[Passage 2]") into its
// numbers, in order, each once; ok is false when br is not a citation.
// A range is expanded when it spans at most 20 numbers, so "[1-999]"
// cannot flood an answer.
func citedNumbers(br []byte) (nums []int, ok bool) {
	br = pageSuffix.ReplaceAll(br, []byte("]"))
	if !citationGroup.Match(br) {
		return nil, false
	}
	seen := map[int]bool{}
	add := func(n int) {
		if !seen[n] {
			seen[n] = true
			nums = append(nums, n)
		}
	}
	toks := digits.FindAllString(string(br), -1)
	for i := 0; i < len(toks); i++ {
		n, err := strconv.Atoi(toks[i])
		if err != nil {
			continue
		}
		if i+2 < len(toks) && (toks[i+1] == "-" || toks[i+1] == "–") {
			if m, err := strconv.Atoi(toks[i+2]); err == nil && m > n && m-n <= 20 {
				for k := n; k <= m; k++ {
					add(k)
				}
				i += 2
				continue
			}
		}
		add(n)
	}
	return nums, true
}

func (c *citeWriter) closeBracket() {
	raw := c.bracket
	c.bracket = nil
	nums, ok := citedNumbers(raw)
	if !ok {
		c.emit(raw)
		return
	}
	var good, bad []string
	for _, n := range nums {
		if !c.strip && c.valid(n) {
			good = append(good, strconv.Itoa(n))
		} else {
			bad = append(bad, strconv.Itoa(n))
		}
	}
	if len(good) == 0 {
		c.spaces = nil // the dropped citation takes the blank before it
	}
	c.emit([]byte(string(markOpen) + strings.Join(good, ",") + string(markSep) + strings.Join(bad, ",") + string(markClose)))
}

func (c *citeWriter) emit(b []byte) {
	if len(c.spaces) > 0 {
		s := c.spaces
		c.spaces = nil
		c.sent = append(c.sent, s...)
	}
	c.sent = append(c.sent, b...)
}

// cut finishes every complete sentence of c.sent (all of it when final).
func (c *citeWriter) cut(final bool) {
	for {
		n := sentenceEnd(c.sent)
		if n < 0 {
			break
		}
		c.finish(c.sent[:n])
		c.sent = c.sent[n:]
	}
	// A sentence that never ends (a model writing without punctuation) is
	// checked in parts, so that holding it stays cheap.
	if final && len(c.sent) > 0 || len(c.sent) > maxSentence {
		c.finish(c.sent)
		c.sent = nil
	}
}

// maxSentence bounds the bytes held as one sentence.
const maxSentence = 4 << 10

// sentenceEnd returns the length of the first complete sentence of s, or
// -1: a sentence ends at a newline, or where textseg would end it (before
// a word starting with a capital, digit or bracket) once the next word has
// begun. Citation groups right after a full stop ("... end. [2] Next")
// belong to the sentence before.
func sentenceEnd(s []byte) int {
	if i := slices.Index(s, '\n'); i >= 0 {
		// A line ends a sentence; check the line's own sentences first.
		if n := sentenceEnd(s[:i]); n >= 0 {
			return n
		}
		for i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		return i + 1
	}
	var last string // the last real word, stripped of citation markers
	for i := 0; i < len(s); {
		// the word at i
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		word := stripMarks(string(s[i:j]))
		switch {
		case word == "" || strings.Trim(word, ".,;:!?") == "":
			// citations only ("[2]", "[1][7]."): they belong to the
			// sentence before, and so does the punctuation after them
			last += word
		case last != "" && textseg.EndsSentence(last, word):
			return i
		default:
			if j == len(s) {
				return -1 // the word may go on
			}
			last = word
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		i = j
	}
	return -1
}

// stripMarks removes citation markers from s.
func stripMarks(s string) string {
	for {
		i := strings.IndexByte(s, markOpen)
		if i < 0 {
			return s
		}
		k := strings.IndexByte(s[i:], markClose)
		if k < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+k+1:]
	}
}

// sourcesHeading recognises a model's own list of sources at the start of a
// line: "Sources:", "**References**", "## Sources", "Sources: [1] ...".
var sourcesHeading = lazyre.New(`(?i)^[#>*_\s]*(?:sources|references|citations|bibliography|works cited|cited passages)\b[*_\s]*(?::|$)`)

// finish decides one sentence: dropped (after a Sources heading), removed
// (it cited only passages that were not given), or kept with its
// citations rendered.
func (c *citeWriter) finish(s []byte) {
	lineHead := c.lineHead
	c.lineHead = len(s) > 0 && s[len(s)-1] == '\n'
	if c.dropRest {
		return
	}
	plain := stripMarks(string(s))
	if !c.strip && sourcesHeading.MatchString(strings.TrimSpace(plain)) && (lineHead || strings.Contains(plain, ":")) {
		c.dropRest, c.sources = true, true
		return
	}
	var good, bad []int
	var out strings.Builder
	rest := string(s)
	for {
		i := strings.IndexByte(rest, markOpen)
		if i < 0 {
			out.WriteString(rest)
			break
		}
		out.WriteString(rest[:i])
		k := strings.IndexByte(rest[i:], markClose)
		g, b, _ := strings.Cut(rest[i+1:i+k], string(markSep))
		rest = rest[i+k+1:]
		for _, n := range splitInts(g) {
			good = append(good, n)
			d := n
			if c.renumber {
				var ok bool
				if d, ok = c.disp[n]; !ok {
					c.order = append(c.order, n)
					d = len(c.order)
					c.disp[n] = d
				}
			} else if !slices.Contains(c.order, n) {
				c.order = append(c.order, n)
			}
			out.WriteString("[" + strconv.Itoa(d) + "]")
		}
		bad = append(bad, splitInts(b)...)
	}
	if len(good) == 0 && len(bad) > 0 && !c.strip {
		c.removed = append(c.removed, Claim{Sentence: strings.TrimSpace(plain), Cites: uniq(bad)})
		return
	}
	for _, n := range bad {
		if !c.strip && !slices.Contains(c.invalid, n) {
			c.invalid = append(c.invalid, n)
		}
	}
	// The blanks after a sentence wait for the next kept one: a removed
	// last sentence leaves no blank behind.
	text := out.String()
	body := strings.TrimRight(text, " \t\n")
	trail := text[len(body):]
	if c.text.Len() == 0 {
		body = strings.TrimLeft(body, " \t\n")
		c.trail = ""
	}
	if body == "" {
		c.trail += trail
		return
	}
	text = c.trail + body
	c.trail = trail
	c.text.WriteString(text)
	c.pend = append(c.pend, text...)
}

func splitInts(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func uniq(ns []int) []int {
	var out []int
	for _, n := range ns {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
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
		for _, b := range head {
			c.feed(b)
		}
	}
	if c.bracket != nil {
		c.emit(c.bracket)
		c.bracket = nil
	}
	c.spaces = nil
	c.cut(true)
	c.flush()
	return false, c.err
}

// Text is the checked answer, trimmed.
func (c *citeWriter) Text() string { return strings.TrimSpace(c.text.String()) }

// Claim is a sentence of a model's text that a check found wanting.
type Claim struct {
	Sentence string `json:"sentence"`
	// Cites are the numbers it cited: for a removed sentence, the numbers
	// that named no passage; for an unsupported one, its citations as the
	// answer shows them.
	Cites []int `json:"cites"`
	// Missing are the numbers and rare words of the sentence that no cited
	// passage holds (unsupported sentences only).
	Missing []string `json:"missing,omitempty"`
}

// CitationCheck is what CheckCitations found in a text.
type CitationCheck struct {
	Text    string  // the text with its citations checked
	Invalid []int   // cited numbers outside 1..n, in kept sentences
	Removed []Claim // sentences removed: they cited only numbers outside 1..n
	Sources bool    // a model-written Sources block was dropped
}

// CheckCitations checks the citations of a model-written text (a digest's
// overview) whose sources are numbered 1..n, with the rules of ask's
// answers (see Answer): every citation group ("[1, 9]", "[2-7]") is split
// into "[1][9]"-style citations keeping the given numbers, numbers outside
// 1..n are dropped, a sentence that cited only such numbers is removed, and
// a model-written Sources block is dropped.
func CheckCitations(text string, n int) CitationCheck {
	c := &citeWriter{valid: func(k int) bool { return k >= 1 && k <= n }, disp: map[int]int{}, lineHead: true}
	c.Write([]byte(text))
	c.Close()
	return CitationCheck{Text: c.Text(), Invalid: c.invalid, Removed: c.removed, Sources: c.sources}
}

// StripCitations removes every citation group from text (with the blank
// before it), for model-written text that must not cite, such as a one-paper
// summary. No sentence is removed.
func StripCitations(text string) string {
	c := &citeWriter{valid: func(int) bool { return false }, strip: true, disp: map[int]int{}, lineHead: true}
	c.Write([]byte(text))
	c.Close()
	return c.Text()
}

var displayCite = lazyre.New(`\[(\d+)\]`)
var leadingCites = lazyre.New(`^(?:\[\d+\]\s*)+`)

// answerSentences splits a checked answer into its sentences as the
// citation checks see them: each line on its own (list items are claims),
// each line split by textseg; citations a model put after a sentence's
// full stop ("... end. [2] Next ...") count for the sentence before.
func answerSentences(answer string) []string {
	var sents []string
	for _, line := range strings.Split(answer, "\n") {
		for k, s := range textseg.Sentences(line) {
			if m := leadingCites.FindString(s); m != "" && k > 0 {
				sents[len(sents)-1] += " " + strings.TrimSpace(m)
				s = strings.TrimSpace(s[len(m):])
				if s == "" {
					continue
				}
			}
			sents = append(sents, s)
		}
	}
	return sents
}

// citingSentences maps each display number to the sentences of answer that
// cite it, in order.
func citingSentences(answer string) map[int][]string {
	out := map[int][]string{}
	for _, s := range answerSentences(answer) {
		for _, n := range sentenceCites(s) {
			out[n] = append(out[n], s)
		}
	}
	return out
}

// sentenceCites returns the display numbers a sentence cites, each once.
func sentenceCites(s string) []int {
	var out []int
	for _, m := range displayCite.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
