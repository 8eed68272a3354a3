// Package lazyre holds regular expressions compiled on their first use.
//
// A package-level regexp.MustCompile runs at every start of the binary,
// whatever the command: the hundred or so expressions of the packages cost
// each `papers` process about a millisecond before main, and a PDF is read
// in a child process that starts the binary again (issue 26: start-up
// under 10 ms). A Regexp made by New compiles when a method is first
// called, once, safely from many goroutines.
//
// An expression that does not compile panics at its first use, as
// regexp.MustCompile would at start; Check compiles every expression made
// so far, so a test of a binary that links all packages finds a bad one.
package lazyre

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp.
//
// Matching first looks for the literals every match must hold ("outperform"
// in `\boutperform`, one of "we propose" or "we present" in `\bwe
// (propose|present)\b`): a text holding none of them cannot match, and
// strings.Contains finds that far faster than the matcher, which tries the
// expression at every position (a leading \b gives it no literal prefix).
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
	need []string // a match holds one of these; nil when nothing is known
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// Re returns the compiled expression, compiling it on the first call.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() {
		r.re = regexp.MustCompile(r.expr)
		if t, err := syntax.Parse(r.expr, syntax.Perl); err == nil {
			r.need = required(t.Simplify())
		}
	})
	return r.re
}

// minLiteral is the shortest literal worth looking for first.
const minLiteral = 3

// maxLiterals is the most alternatives worth looking for first.
const maxLiterals = 24

// required is a set of literals one of which every match of t holds, or
// nil when there is none worth looking for (a case-folded literal, a
// branch with no literal, too many or too short ones).
func required(t *syntax.Regexp) []string {
	switch t.Op {
	case syntax.OpLiteral:
		if t.Flags&syntax.FoldCase != 0 || len(t.Rune) < minLiteral {
			return nil
		}
		return []string{string(t.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
	case syntax.OpConcat:
		// the part with the longest shortest literal
		var best []string
		bestLen := 0
		for _, sub := range t.Sub {
			if lits := required(sub); lits != nil {
				if n := shortest(lits); n > bestLen {
					best, bestLen = lits, n
				}
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, sub := range t.Sub {
			lits := required(sub)
			if lits == nil {
				return nil
			}
			out = append(out, lits...)
		}
		if len(out) > maxLiterals {
			return nil
		}
		return out
	}
	return nil
}

func shortest(lits []string) int {
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}

// absent says s holds none of the literals every match needs: it cannot
// match.
func (r *Regexp) absent(s string) bool {
	r.Re()
	if r.need == nil {
		return false
	}
	for _, l := range r.need {
		if strings.Contains(s, l) {
			return false
		}
	}
	return true
}

// Check compiles every expression made by New so far and reports the
// first that does not compile.
func Check() error {
	mu.Lock()
	defer mu.Unlock()
	for _, r := range all {
		if _, err := regexp.Compile(r.expr); err != nil {
			return fmt.Errorf("lazyre: %w", err)
		}
	}
	return nil
}

// Agree checks, for every expression made by New so far and every text,
// that matching with the literals looked for first agrees with the
// matcher alone, and reports the first expression and text that do not.
func Agree(texts []string) error {
	mu.Lock()
	rs := slices.Clone(all)
	mu.Unlock()
	for _, r := range rs {
		if _, err := regexp.Compile(r.expr); err != nil {
			continue // Check's to report
		}
		for _, t := range texts {
			if got, want := r.MatchString(t), r.Re().MatchString(t); got != want {
				return fmt.Errorf("lazyre: %q on %q: %v with the literals %q first, %v without", r.expr, t, got, r.need, want)
			}
		}
	}
	return nil
}

// Count is how many expressions New has made.
func Count() int {
	mu.Lock()
	defer mu.Unlock()
	return len(all)
}

func (r *Regexp) String() string                             { return r.expr }
func (r *Regexp) Match(b []byte) bool                        { return r.Re().Match(b) }
func (r *Regexp) MatchString(s string) bool                  { return !r.absent(s) && r.re.MatchString(s) }
func (r *Regexp) Find(b []byte) []byte                       { return r.Re().Find(b) }
func (r *Regexp) FindAll(b []byte, n int) [][]byte           { return r.Re().FindAll(b, n) }
func (r *Regexp) FindIndex(b []byte) []int                   { return r.Re().FindIndex(b) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte             { return r.Re().FindSubmatch(b) }
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte { return r.Re().FindAllSubmatch(b, n) }
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int       { return r.Re().FindAllIndex(b, n) }
func (r *Regexp) FindString(s string) string                 { return r.Re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int             { return r.Re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string       { return r.Re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int     { return r.Re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAllString(s string, n int) []string     { return r.Re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.Re().FindAllStringIndex(s, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAll(src, repl []byte) []byte       { return r.Re().ReplaceAll(src, repl) }
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.Re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Re().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.Re().Split(s, n) }
func (r *Regexp) SubexpIndex(name string) int    { return r.Re().SubexpIndex(name) }
