package topic

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// Theme is a group of a digest's papers that share a tag, a key term of
// their titles and abstracts, or an arXiv category: the offline overview
// names each theme and cites its papers.
type Theme struct {
	Name string `json:"name"`
	// By says what the papers share: "tag", "term", "category", or
	// "other" for the papers no theme took.
	By     string `json:"by"`
	Papers []int  `json:"papers"` // the papers' numbers (DigestPaper.N)
}

// Bounds of the grouping: at most maxThemes themes (then "other"), each of
// at least two papers; a label more than maxShare of the papers share is
// too broad to be a theme within the topic (it is what the topic is, or
// what any paper of the field says); fewer than minThemed papers are not
// grouped.
const (
	maxThemes = 8
	maxShare  = 0.35
	minThemed = 4
)

// How much a shared label of each kind counts per paper: tags are what
// people (or the feed) chose, and come first where papers have them; of
// the terms of titles and abstracts two words say more than one (a word of
// a glued tag string is such a word); categories are broad.
var kindWeight = map[string]float64{"tag": 1, "term2": 0.35, "tagword": 0.3, "term1": 0.25, "category": 0.2}

// candidate is a label some papers share.
type candidate struct {
	key, name, by string
	kind          string
	words         int
	papers        []int // indices into the papers
}

// Themes groups papers (numbered from 1 in order) by what they share,
// greedily: the label that takes the most papers not yet in a theme
// (weighted by its kind) first, until no label takes two more or
// maxThemes are named; the rest are "other". Each paper is in one theme.
// Fewer than minThemed papers make no themes.
//
// A label all of whose words are the topic's own (about, from its name,
// query and description: "Reinforcement Learning" in a topic about RL for
// agents) or the field's (fieldWords: "Large Language Models") says what
// every paper is, and is no theme.
func Themes(ps []store.Paper, about string) []Theme {
	if len(ps) < minThemed {
		return nil
	}
	own := setOfTerms(embed.Terms(about + " " + fieldWords))
	cands := slices.DeleteFunc(candidates(ps), func(c candidate) bool {
		ts := embed.Terms(c.name)
		for _, t := range ts {
			if !own[t] {
				return false
			}
		}
		return len(ts) > 0
	})
	taken := make([]bool, len(ps))
	var out []Theme
	for len(out) < maxThemes {
		best, bestScore := -1, 0.0
		for i, c := range cands {
			free := 0
			for _, p := range c.papers {
				if !taken[p] {
					free++
				}
			}
			if free < 2 {
				continue
			}
			score := float64(free) * kindWeight[c.kind]
			if b := cands[max(best, 0)]; score > bestScore || score == bestScore && best >= 0 &&
				(len(c.papers) > len(b.papers) || len(c.papers) == len(b.papers) && c.words < b.words) {
				best, bestScore = i, score // ties: the label more papers have, then the shorter
			}
		}
		if best < 0 {
			break
		}
		c := cands[best]
		th := Theme{Name: c.name, By: c.by}
		for _, p := range c.papers {
			if !taken[p] {
				taken[p] = true
				th.Papers = append(th.Papers, p+1)
			}
		}
		out = append(out, th)
		cands = slices.Delete(cands, best, best+1)
	}
	if len(out) == 0 {
		return nil
	}
	other := Theme{Name: "Other", By: "other"}
	for i := range ps {
		if !taken[i] {
			other.Papers = append(other.Papers, i+1)
		}
	}
	if len(other.Papers) > 0 {
		out = append(out, other)
	}
	return out
}

// candidates are the labels two or more papers share, and not too many:
// their tags (and the tags glued into one string, as feeds' pages give
// them, split into runs of words that several papers share), their terms
// (one or two content words, stemmed, in title or abstract) and their
// categories. Of labels shared by the same papers only the most specific
// is kept.
func candidates(ps []store.Paper) []candidate {
	byKey := map[string]*candidate{}
	surface := map[string]map[string]int{} // key -> surface form -> count
	add := func(key, name, by, kind string, words, paper int) {
		c, ok := byKey[key]
		if !ok {
			c = &candidate{key: key, by: by, kind: kind, words: words}
			byKey[key] = c
			surface[key] = map[string]int{}
		}
		if len(c.papers) == 0 || c.papers[len(c.papers)-1] != paper {
			c.papers = append(c.papers, paper)
		}
		surface[key][name]++
	}
	for i := range ps {
		p := &ps[i]
		for _, t := range p.Tags {
			runs, single := tagRuns(t.Name)
			for _, r := range runs {
				add("tag:"+strings.Join(embed.Terms(r), " ")+"|"+strings.ToLower(r[:1]), r, "tag", "tag", len(strings.Fields(r)), i)
			}
			for _, w := range single {
				add("tag:"+strings.Join(embed.Terms(w), " "), w, "tag", "tagword", 1, i)
			}
		}
		for _, c := range p.Categories {
			add("cat:"+strings.ToLower(c), categoryName(c), "category", "category", 1, i)
		}
		for _, t := range keyTerms(p.Title + ". " + p.Abstract) {
			kind := "term1"
			if t.words == 2 {
				kind = "term2"
			}
			add("term:"+t.key, t.surface, "term", kind, t.words, i)
		}
	}
	limit := max(2, int(maxShare*float64(len(ps))))
	var out []candidate
	for key, c := range byKey {
		if len(c.papers) < 2 || len(c.papers) > limit {
			continue
		}
		c.name = capitalise(mostUsed(surface[key]))
		out = append(out, *c)
	}
	// the most specific label of each set of papers: tags before terms,
	// longer before shorter
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if kindWeight[a.kind] != kindWeight[b.kind] {
			return kindWeight[a.kind] > kindWeight[b.kind]
		}
		if a.words != b.words {
			return a.words > b.words
		}
		return a.key < b.key
	})
	seen := map[string]bool{}
	kept := out[:0]
	for _, c := range out {
		set := fmt.Sprint(c.papers)
		if seen[set] {
			continue
		}
		seen[set] = true
		kept = append(kept, c)
	}
	return kept
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func mostUsed(m map[string]int) string {
	best, n := "", -1
	for s, c := range m {
		if c > n || c == n && s < best {
			best, n = s, c
		}
	}
	return best
}

// smallWords may sit inside a tag ("RL for LLM Agents") but neither start
// nor end one.
var smallWords = map[string]bool{"for": true, "in": true, "of": true, "and": true, "with": true, "to": true, "the": true, "a": true, "an": true, "on": true, "via": true, "from": true, "by": true}

// maxTagWords bounds the words of one tag found in a glued string.
const maxTagWords = 5

// tagRuns are the labels a paper's tags give: each tag, and when a tag is
// several tags glued into one string, as a research feed's page copied as
// text gives them ("World Model Learning Computer-Use Agents Terminal
// Agents LLM Agent Training Policy Learning RL for LLM Agents"), every run
// of up to maxTagWords of its words that could be a tag (starting with a
// capital or a digit, not ending in a small word). Which runs are tags
// shows across papers: a run shared by several papers, and by no more
// papers than a shorter run of it, is one ("LLM Agent Training" in four
// papers; "Agents LLM Agent Training" only where two tags happen to
// meet). Single words of a glued string are reported apart (single).
func tagRuns(tag string) (runs, single []string) {
	words := strings.Fields(strings.TrimSpace(tag))
	if len(words) < 4 {
		if len(words) > 0 && tagLike(words) {
			runs = append(runs, strings.Join(words, " "))
		}
		return runs, nil
	}
	for i := range words {
		for j := i + 1; j <= min(len(words), i+maxTagWords); j++ {
			if !tagLike(words[i:j]) {
				continue
			}
			if j == i+1 {
				single = append(single, words[i])
			} else {
				runs = append(runs, strings.Join(words[i:j], " "))
			}
		}
	}
	return runs, single
}

// tagLike reports a run of words that could be one tag.
func tagLike(words []string) bool {
	if len(words) == 0 || strings.HasPrefix(words[len(words)-1], "+") || smallWords[strings.ToLower(words[len(words)-1])] {
		return false
	}
	for _, r := range words[0] {
		return unicode.IsUpper(r) || unicode.IsDigit(r)
	}
	return false
}

// term is a key term of a text: a content word or two adjacent ones.
type term struct {
	key, surface string
	words        int
}

// keyTerms are the distinct terms of text: names (words with a capital
// after their first letter: "GRPO", "ALFWorld", "Qwen3") and pairs of
// adjacent content words (no stop word between, not both what any
// abstract says: academicWords), keyed by their stems so "agents" and
// "agent" are one term.
func keyTerms(text string) []term {
	var out []term
	seen := map[string]bool{}
	emit := func(key, surface string, n int) {
		if !seen[key] {
			seen[key] = true
			out = append(out, term{key, surface, n})
		}
	}
	var prev, prevStem string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-')
	}) {
		w = strings.Trim(w, "-")
		lw := strings.ToLower(w)
		stems := embed.Terms(lw)
		if len(stems) != 1 || len(lw) < 3 || isNumber(lw) {
			prev, prevStem = "", ""
			continue
		}
		st := stems[0]
		if len(w) >= 3 && nameLike(w) {
			emit(st, w, 1)
		}
		if prev != "" && !(academicWords[prev] && academicWords[lw]) {
			emit(prevStem+" "+st, prev+" "+lw, 2)
		}
		prev, prevStem = lw, st
	}
	return out
}

// fieldWords name the field every paper here is in: labels made of them
// alone are no theme.
const fieldWords = "language languages model models large LLM LLMs learning deep machine neural network networks artificial intelligence AI NLP reinforcement RL agent agents"

// academicWords are what abstracts of any subject say: no theme.
var academicWords = textkit.Set(`propose proposes proposed present presents introduce introduces introduced show shows shown
demonstrate demonstrates achieve achieves achieving outperform outperforms outperforming improve improves improved improvement
improvements significant significantly substantially novel new existing prior previous recent current however moreover
furthermore approach approaches method methods framework frameworks paper work study results result performance
state-of-the-art baseline baselines based using use used via across also well often remains remain key
address addresses problem problems challenge challenges challenging task tasks model models large effective effectively
experiments experimental evaluate evaluation extensive code available publicly data set sets training trained train
first second single multiple different various diverse strong stronger better best simple general specific level
learn learns learning leverage leveraging enable enables enabling make makes making provide provides open fully
while without within toward towards thereby still yet even further allow allows given whether several many much`)

// nameLike reports a word written as a name: a capital after its first
// letter.
func nameLike(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func isNumber(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) && r != '-' }) < 0
}

// categoryName names the arXiv categories papers in this field are filed
// under; others are shown as their code.
func categoryName(c string) string {
	if n, ok := categoryNames[strings.ToLower(c)]; ok {
		return n + " (" + c + ")"
	}
	return c
}

var categoryNames = map[string]string{
	"cs.ai": "Artificial intelligence", "cs.cl": "Computation and language", "cs.lg": "Machine learning",
	"cs.cv": "Computer vision", "cs.ir": "Information retrieval", "cs.ma": "Multiagent systems", "cs.ro": "Robotics",
	"cs.se": "Software engineering", "cs.cr": "Security", "cs.hc": "Human-computer interaction", "cs.ne": "Neural and evolutionary computing",
	"cs.db": "Databases", "cs.dl": "Digital libraries", "cs.cy": "Computers and society", "cs.gt": "Game theory",
	"stat.ml": "Machine learning (statistics)", "math.oc": "Optimization and control", "eess.sy": "Systems and control",
}

// overviewText is the offline overview: one line per theme, its name and
// its papers cited by short name and number.
func overviewText(themes []Theme, ps []store.Paper) string {
	if len(themes) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d papers in %d themes, by the tags, key terms and categories they share (no model):\n", len(ps), len(themes))
	for _, th := range themes {
		var cites []string
		for _, n := range th.Papers {
			cites = append(cites, fmt.Sprintf("%s [%d]", citeName(&ps[n-1]), n))
		}
		fmt.Fprintf(&b, "\n- **%s** (%d): %s.", th.Name, len(th.Papers), strings.Join(cites, ", "))
	}
	return b.String()
}

// citeName is how the overview names a paper: its short name, else its
// title's first words.
func citeName(p *store.Paper) string {
	if n := ask.ShortName(p); n != "" {
		return n
	}
	words := strings.Fields(p.Title)
	if len(words) > 6 {
		return strings.Join(words[:6], " ") + " …"
	}
	return strings.Join(words, " ")
}
