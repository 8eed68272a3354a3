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
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
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
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
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

// Count is how many expressions New has made.
func Count() int {
	mu.Lock()
	defer mu.Unlock()
	return len(all)
}

func (r *Regexp) String() string                             { return r.expr }
func (r *Regexp) Match(b []byte) bool                        { return r.Re().Match(b) }
func (r *Regexp) MatchString(s string) bool                  { return r.Re().MatchString(s) }
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
