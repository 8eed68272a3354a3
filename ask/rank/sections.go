package rank

import "strings"

// Section kinds: what part of a paper a section heading names.
const (
	kindNone       = "none" // before the first heading
	kindAbstract   = "abstract"
	kindIntro      = "intro"
	kindRelated    = "related"
	kindMethod     = "method"
	kindData       = "data"
	kindSetup      = "setup"
	kindResults    = "results"
	kindAnalysis   = "analysis"
	kindConclusion = "conclusion"
	kindAck        = "ack"
	kindAppendix   = "appendix"
	kindReferences = "references"
	kindOther      = "other"
)

// sectionKinds names each kind by the stems of heading words that say it,
// in order of precedence (a "Results on the dataset" section is results).
var sectionKinds = []struct {
	kind  string
	stems []string
}{
	{kindAbstract, []string{"abstract"}},
	{kindAck, []string{"acknowledg", "acknowledg"}},
	{kindReferences, []string{"refer", "bibliographi"}},
	{kindAppendix, []string{"appendix", "appendic", "supplementari", "supplement"}},
	{kindIntro, []string{"introduct", "motiv", "overview"}},
	{kindRelated, []string{"relat", "background", "prior", "previous", "literatur", "preliminari"}},
	{kindConclusion, []string{"conclus", "conclud", "futur", "summari", "limit"}},
	{kindAnalysis, []string{"analysi", "discuss", "ablat", "error", "qualit", "case", "observ", "insight"}},
	{kindResults, []string{"result", "evalu", "perform", "comparison", "compar", "main", "finding"}},
	{kindData, []string{"dataset", "data", "corpus", "corpora", "annot", "collect", "resourc", "benchmark", "statist"}},
	{kindSetup, []string{"experi", "setup", "set", "implement", "train", "hyperparamet", "baselin", "detail", "paramet", "configur", "metric", "protocol"}},
	{kindMethod, []string{"model", "method", "approach", "architectur", "framework", "propos", "system", "algorithm", "formul", "task", "problem", "definit", "design", "network", "learn", "modul", "encod", "decod"}},
}

// SectionKind says what part of a paper a section heading names; nested
// headings ("Experiments ::: Datasets") are read from the innermost out.
func SectionKind(section string) string {
	s := strings.TrimSpace(section)
	if s == "" {
		return kindNone
	}
	if strings.EqualFold(s, "abstract") {
		return kindAbstract
	}
	parts := strings.Split(s, ":::")
	for i := len(parts) - 1; i >= 0; i-- {
		words := stems(parts[i])
		for _, k := range sectionKinds {
			for _, w := range words {
				for _, st := range k.stems {
					if w == st {
						return k.kind
					}
				}
			}
		}
	}
	return kindOther
}
