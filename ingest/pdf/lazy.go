package pdf

import (
	"regexp"
	"sync"
)

// lazyRe is a regular expression compiled on its first use: the package's
// expressions and tables cost every command of the binary its start-up
// time otherwise, PDFs or not (papers list starts in a few milliseconds).
type lazyRe struct {
	expr string
	get  func() *regexp.Regexp
}

func lazyRegexp(expr string) *lazyRe {
	return &lazyRe{expr: expr, get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

func (l *lazyRe) MatchString(s string) bool                  { return l.get().MatchString(s) }
func (l *lazyRe) FindString(s string) string                 { return l.get().FindString(s) }
func (l *lazyRe) FindStringIndex(s string) []int             { return l.get().FindStringIndex(s) }
func (l *lazyRe) FindStringSubmatch(s string) []string       { return l.get().FindStringSubmatch(s) }
func (l *lazyRe) FindStringSubmatchIndex(s string) []int     { return l.get().FindStringSubmatchIndex(s) }
func (l *lazyRe) ReplaceAllString(s, repl string) string     { return l.get().ReplaceAllString(s, repl) }
func (l *lazyRe) Split(s string, n int) []string             { return l.get().Split(s, n) }
func (l *lazyRe) FindAllSubmatch(b []byte, n int) [][][]byte { return l.get().FindAllSubmatch(b, n) }
