package ask

import (
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// scope is which papers a question is answered from.
type scope struct {
	// papers are the candidates, best first: the paper the question
	// names or asks of alone, else the papers of the best passages.
	papers []store.Paper
	// named is set when the question names its paper (its short name,
	// the head of its title, its arXiv id or DOI) or asks of one paper
	// alone (ask --paper): the answer comes from it or not at all.
	named bool
	// topic is set for a question about a topic rather than one paper
	// ("Which papers ...", "What are the main approaches to ..."): it is
	// answered with a line from each paper that answers it.
	topic bool
	// filtered is set when filters (dates, categories, tags...) narrowed
	// the papers searched.
	filtered bool
}

// maxTopicPapers bounds the papers a topic answer cites.
const maxTopicPapers = 8

// scopeOf decides which papers answer question, from the passages
// retrieval found (best first) and the filter the question was asked
// with. Papers the filter names (ask --paper) are asked alone.
func scopeOf(question string, ps []retrieve.Passage, f store.Filter) scope {
	sc := scopeAmong(question, ps, f)
	g := f
	g.IDs = nil
	sc.filtered = !reflect.ValueOf(g).IsZero()
	return sc
}

func scopeAmong(question string, ps []retrieve.Passage, f store.Filter) scope {
	var papers []store.Paper
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.PaperID] || p.Neighbour {
			continue
		}
		seen[p.PaperID] = true
		paper := p.Paper
		if paper.ID == "" {
			paper.ID = p.PaperID
		}
		papers = append(papers, paper)
	}
	if len(f.IDs) == 1 || len(papers) == 1 && len(f.IDs) > 0 {
		return scope{papers: papers[:min(1, len(papers))], named: true}
	}
	for i, p := range papers {
		if names(question, &papers[i]) {
			return scope{papers: []store.Paper{p}, named: true}
		}
	}
	if topicQuestion(question) && len(papers) > 1 {
		return scope{papers: papers[:min(maxTopicPapers, len(papers))], topic: true}
	}
	return scope{papers: papers[:min(unnamedPapers, len(papers))]}
}

// unnamedPapers is how many of the best papers a question that names none
// is answered from: the one whose text holds most of the question's names
// (then the first by retrieval) is read first.
const unnamedPapers = 4

// names reports whether the question names paper p: its arXiv id or DOI,
// its short name ("Toolformer", "ReBel") as a word, or the whole head of
// its title.
func names(question string, p *store.Paper) bool {
	q := strings.ToLower(question)
	for _, id := range []string{p.ID, p.ArxivID, p.DOI} {
		if len(id) >= 6 && strings.Contains(q, strings.ToLower(id)) {
			return true
		}
	}
	if n := shortName(p); len([]rune(n)) >= 3 && containsWord(question, n) {
		return true
	}
	head := strings.TrimSpace(strings.SplitN(safetext.OneLine(p.Title), ":", 2)[0])
	return len(strings.Fields(head)) >= 3 && strings.Contains(q, strings.ToLower(head))
}

// containsWord reports whether s holds w as a word of its own (not inside
// a longer word), matching case as written unless w is all lower case.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, after := rune(' '), rune(' ')
		if j > 0 {
			before = lastRune(s[:j])
		}
		if end := j + len(w); end < len(s) {
			after = []rune(s[end:])[0]
		}
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		i = j + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' }

func lastRune(s string) rune {
	r := []rune(s)
	return r[len(r)-1]
}

var (
	// "Which papers ...", "what approaches", "methods for", "in the literature"
	topicCue = lazyre.New(`(?i)\b(?:which|what|list|compare|summari[sz]e)\b.{0,30}\b(?:papers|works|studies|approaches|methods|techniques|methodologies|lines of work|families)\b|\b(?:approaches|methods|techniques)\s+(?:to|for)\b|\bin the (?:literature|library)\b|\bacross (?:the )?papers\b|\bstate of the art\b`)
	// "How do agents learn ...", "What do reward models ...": a plural
	// subject that is no pronoun
	pluralSubject = lazyre.New(`(?i)^(?:how|what|why|when)\s+(?:do|are|can|should|have|could|might)\s+((?:[a-z-]+\s+){0,2}[a-z-]+s)\b`)
)

// notSubjects are plural words that name the paper's authors or a
// pronoun's referent rather than a topic's subjects.
var notSubjects = []string{"authors", "they", "these", "those", "results", "us", "this", "its", "is"}

// topicQuestion reports a question about a topic rather than one paper.
func topicQuestion(q string) bool {
	if topicCue.MatchString(q) {
		return true
	}
	m := pluralSubject.FindStringSubmatch(q)
	if m == nil {
		return false
	}
	words := strings.Fields(strings.ToLower(m[1]))
	for _, w := range words {
		if slices.Contains(notSubjects, w) || w == "they" || w == "we" || w == "you" || w == "the" && len(words) == 1 {
			return false
		}
	}
	last := words[len(words)-1]
	return !slices.Contains(notSubjects, last) && !strings.HasSuffix(last, "ss")
}
