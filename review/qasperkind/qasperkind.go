// Package qasperkind finds QASPER's questions that ask what a generic
// column of a literature review asks (review.KindNames: the problem, the
// method, how much better, the datasets, the limitations, released code or
// data), by their wording: "Which datasets do they use?", "By how much do
// they outperform ...?", "What model do they propose?", "Is the code
// available?". The review benchmarks measure the offline answerer on them
// (bench/review/kinds) and review/train fits its cell model on them.
package qasperkind

import (
	"regexp"
	"strings"
)

// wordings are tried in order; the first that matches a question gives
// its kind.
var wordings = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"datasets", regexp.MustCompile(`^(what|which|on what|on which|in what|in which)\b[^?]*\b(datasets?|data sets?|benchmarks?|corpus|corpora)\b[^?]*\b(use[sd]?|evaluat\w*|experiment\w*|test\w*|train\w*|appl\w*|consider\w*)\b|^(what|which) (datasets?|benchmarks?|corpora)\b`)},
	{"code", regexp.MustCompile(`\b(is|are) (the |their )?(code|source code|dataset|data|corpus|annotations?|implementation|models?|tool|software|system)\b[^?]*\b(available|released?|public)|\b(do|did|will) (they|the authors?) (release|publish|make|share|open)\b`)},
	{"better", regexp.MustCompile(`\bby how much\b|\boutperform|\bimprov|\bbetter\b|\bgains?\b`)},
	{"limitations", regexp.MustCompile(`\b(limitations?|weakness(es)?|drawbacks?|shortcomings?)\b|\bfuture (work|directions?|research)\b`)},
	{"method", regexp.MustCompile(`\b(what|which) (is|was|are) (the|their) (proposed |new |novel )?(method|approach|technique|model|framework|architecture|system)s?\b\s*\??$|\b(what|which) (method|approach|technique|model|architecture|framework|system)s? (do|does|did) (they|the authors?|the paper) (propose|introduce|develop|present)|\bwhat is the architecture of (the|their) (proposed )?(model|system|network)\b`)},
	{"problem", regexp.MustCompile(`\bwhat (is|was|are) the (main |target )?(task|problem|goal|research question|motivation)s?\b\s*\??$|\b(what|which) (problems?|tasks?|challenges?) (do|does|did) (they|the authors?|the paper|this paper|it) (address|tackle|solve|focus)|\bmotivation\b`)},
}

// Of is the kind (a name of review.KindNames) that QASPER question q
// asks, "" for a question of none.
func Of(q string) string {
	q = strings.ToLower(strings.TrimSpace(q))
	for _, w := range wordings {
		if w.re.MatchString(q) {
			return w.kind
		}
	}
	return ""
}
