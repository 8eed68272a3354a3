package review

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/embed"
)

// Column is one question asked of every paper of a review.
type Column struct {
	// Name is the column's header: given ("Method: What do they propose?")
	// or made from the question's first content words ("Method").
	Name string `json:"name"`
	// Question is what is asked of each paper. A column given as a bare
	// name ("Datasets") is asked as a question ("What are the datasets?").
	Question string `json:"question"`
}

// ErrBadColumn is wrapped by the errors of columns that cannot be asked.
var ErrBadColumn = errors.New("bad column")

// MaxColumns bounds the columns of one review: a table of more is no
// longer a table anyone reads.
const MaxColumns = 20

// ParseColumn reads one column as a user writes it: "QUESTION", or
// "NAME: QUESTION" when the part before the first colon is a short name
// (at most 5 words, 40 characters, no question mark). A bare name with no
// question word ("Datasets", "Main result") is asked as "What are the
// datasets?" / "What is the main result?".
func ParseColumn(s string) (Column, error) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return Column{}, fmt.Errorf("%w: the column is empty", ErrBadColumn)
	}
	if utf8.RuneCountInString(s) > 500 {
		return Column{}, fmt.Errorf("%w: %q... is longer than 500 characters", ErrBadColumn, string([]rune(s)[:40]))
	}
	var c Column
	if name, q, ok := strings.Cut(s, ":"); ok && isName(name) && strings.TrimSpace(q) != "" {
		c.Name, c.Question = strings.TrimSpace(name), strings.TrimSpace(q)
	} else {
		c.Question = s
	}
	if !isQuestion(c.Question) {
		if c.Name == "" {
			c.Name = capitalise(c.Question)
		}
		c.Question = asQuestion(c.Question)
	}
	if c.Name == "" {
		c.Name = nameOf(c.Question)
	}
	return c, nil
}

// ReadColumns reads columns one per line (ParseColumn); blank lines and
// lines starting with # are skipped. Errors name the line.
func ReadColumns(r io.Reader) ([]Column, error) {
	var cols []Column
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := ParseColumn(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		cols = append(cols, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return cols, nil
}

// CheckColumns refuses no columns, too many, or the same question twice,
// and makes the names distinct ("Method", "Method 2").
func CheckColumns(cols []Column) ([]Column, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("%w: no columns", ErrBadColumn)
	}
	if len(cols) > MaxColumns {
		return nil, fmt.Errorf("%w: %d columns, at most %d", ErrBadColumn, len(cols), MaxColumns)
	}
	out := make([]Column, len(cols))
	seenQ := map[string]bool{}
	seenN := map[string]int{}
	for i, c := range cols {
		k := questionKey(c.Question)
		if seenQ[k] {
			return nil, fmt.Errorf("%w: %q is asked twice", ErrBadColumn, c.Question)
		}
		seenQ[k] = true
		name := c.Name
		seenN[strings.ToLower(name)]++
		if n := seenN[strings.ToLower(name)]; n > 1 {
			name = fmt.Sprintf("%s %d", name, n)
		}
		out[i] = Column{Name: name, Question: c.Question}
	}
	return out, nil
}

// questionKey is how a question is cached: the same words in the same
// order, whatever the spacing.
func questionKey(q string) string { return strings.Join(strings.Fields(q), " ") }

func isName(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && utf8.RuneCountInString(s) <= 40 && len(strings.Fields(s)) <= 5 && !strings.ContainsAny(s, "?") && !isQuestion(s)
}

// questionWords open a question.
var questionWords = map[string]bool{
	"what": true, "which": true, "who": true, "whom": true, "whose": true, "when": true, "where": true, "why": true, "how": true,
	"is": true, "are": true, "was": true, "were": true, "does": true, "do": true, "did": true, "can": true, "could": true,
	"has": true, "have": true, "had": true, "should": true, "would": true, "will": true, "list": true, "name": true, "describe": true,
	"summarise": true, "summarize": true, "give": true, "in": true, "on": true, "to": true, "for": true, "by": true,
}

func isQuestion(s string) bool {
	if strings.HasSuffix(s, "?") {
		return true
	}
	f := strings.Fields(strings.ToLower(s))
	return len(f) > 0 && questionWords[strings.Trim(f[0], ",.;:")]
}

// asQuestion asks a bare name: "What are the datasets?", "What is the main
// result?".
func asQuestion(name string) string {
	name = strings.TrimRight(name, ".!;: ")
	verb := "is"
	last := strings.ToLower(name[strings.LastIndexByte(name, ' ')+1:])
	if strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is") {
		verb = "are"
	}
	return "What " + verb + " the " + lowerFirst(name) + "?"
}

// nameWords are content words that say nothing as a header.
var nameWords = map[string]bool{
	"paper": true, "papers": true, "work": true, "study": true, "authors": true, "author": true, "they": true,
	"much": true, "many": true, "use": true, "used": true, "uses": true, "using": true, "propose": true, "proposed": true,
	"address": true, "addressed": true, "main": true, "kind": true, "type": true, "does": true, "did": true,
}

// nameOf makes a header from a question: its first two content words
// ("What problem does it address?" -> "Problem"; "Which datasets are used
// for evaluation?" -> "Datasets evaluation").
func nameOf(q string) string {
	var words []string
	for _, w := range embed.ContentWords(q) {
		if nameWords[w] || questionWords[w] {
			continue
		}
		words = append(words, w)
		if len(words) == 2 {
			break
		}
	}
	if len(words) == 0 {
		words = embed.ContentWords(q)
		if len(words) > 2 {
			words = words[:2]
		}
	}
	if len(words) == 0 {
		return "Question"
	}
	return capitalise(strings.Join(words, " "))
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// lowerFirst lower-cases the first letter unless the first word is an
// acronym or a name ("BLEU score" stays).
func lowerFirst(s string) string {
	w, _, _ := strings.Cut(s, " ")
	if strings.ToLower(w[1:]) != w[1:] {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
