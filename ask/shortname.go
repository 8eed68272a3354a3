package ask

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/store"
)

var (
	// "we introduce a hybrid paradigm called Nexa"
	calledRe = regexp.MustCompile(`\b(?:called|named|dubbed|termed|coined)\s+([A-Z][\p{L}\d-]*[\p{L}\d])`)
	// "we propose ReBel", "This paper introduces LayoutParser"
	proposeRe = regexp.MustCompile(`\b(?:propose|proposes|introduce|introduces|present|presents|develop|develops)\s+(?:the\s+)?([A-Z][\p{L}\d-]*[\p{L}\d])`)
	// "SDAR (Self-Distilled Agentic Reinforcement Learning)"
	acronymRe = regexp.MustCompile(`\b([A-Z][\p{L}\d-]{1,15})\s*\(([A-Z][^()]{4,100})\)`)
	// "Environment Cross-entropy Hybrid Objective (ECHO)"
	expansionRe = regexp.MustCompile(`([A-Z][^().;:]{4,100}?)\s*\(([A-Z][\p{L}\d-]{1,15})\)`)
)

// commonAcronyms are defined in many abstracts but name no paper's own
// contribution.
var commonAcronyms = map[string]bool{}

func init() {
	for _, a := range []string{"RL", "LLM", "LLMs", "VLM", "VLMs", "LM", "LMs", "NLP", "AI", "ML", "DL", "CV", "QA",
		"RAG", "SFT", "RLHF", "RLAIF", "RLVR", "MDP", "POMDP", "API", "APIs", "GPU", "CPU", "SOTA", "CoT", "PRM", "ORM",
		"MoE", "PPO", "DPO", "GRPO", "KL", "MCTS", "OOD", "IID", "CNN", "RNN", "GNN", "MLP", "XAI", "DIA", "OCR", "NER",
		"HCI", "UI", "IR", "KG", "SNR", "TD", "GAE", "CAD", "MAS", "DRL", "MARL"} {
		commonAcronyms[strings.ToLower(a)] = true
	}
}

// shortName is the name a paper goes by: the head of its title before a
// colon when it is short ("Co-ReAct: Rubrics as ..." is Co-ReAct), else
// the name its abstract introduces ("we propose ReBel (Reward Belief)"),
// else "".
func shortName(p *store.Paper) string {
	title := oneLine(tidy(p.Title, ""))
	if i := strings.IndexAny(title, ":"); i > 0 {
		head := strings.TrimSpace(title[:i])
		if n := len(strings.Fields(head)); n > 0 && n <= 3 && len(head) <= 32 && !strings.ContainsAny(head, ",?") {
			return head
		}
	}
	abs := tidy(p.Abstract, "")
	own := func(name string) bool { return !commonAcronyms[strings.ToLower(name)] }
	for _, m := range acronymRe.FindAllStringSubmatch(abs, -1) {
		if own(m[1]) && initialsMatch(m[1], m[2]) {
			return m[1]
		}
	}
	for _, m := range expansionRe.FindAllStringSubmatch(abs, -1) {
		if own(m[2]) && initialsMatch(m[2], m[1]) {
			return m[2]
		}
	}
	for _, re := range []*regexp.Regexp{calledRe, proposeRe} {
		for _, m := range re.FindAllStringSubmatch(abs, -1) {
			if own(m[1]) && nameLike(m[1], false) && !capitalisedCommon(m[1]) {
				return m[1]
			}
		}
	}
	return ""
}

// initialsMatch reports whether the capitals (or initials) of expansion
// spell acronym, as in "Self-Distilled Agentic Reinforcement Learning"
// for SDAR or "Reward Belief" for ReBel.
func initialsMatch(acronym, expansion string) bool {
	a := strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, acronym))
	if len(a) < 2 {
		return false
	}
	var caps, initials strings.Builder
	for _, w := range strings.FieldsFunc(expansion, func(r rune) bool { return r == ' ' || r == '-' }) {
		r := []rune(w)
		initials.WriteRune(unicode.ToLower(r[0]))
		for _, c := range r {
			if unicode.IsUpper(c) {
				caps.WriteRune(unicode.ToLower(c))
			}
		}
	}
	return strings.HasPrefix(initials.String(), a) || strings.HasPrefix(caps.String(), a)
}
