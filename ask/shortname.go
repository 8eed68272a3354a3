package ask

import (
	"strings"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/store"
)

var (
	// "we introduce a hybrid paradigm called Nexa"
	calledRe = lazyre.New(`\b(?:called|named|dubbed|termed|coined)\s+([A-Z][\p{L}\d-]*[\p{L}\d])`)
	// "we propose ReBel", "This paper introduces LayoutParser"
	proposeRe = lazyre.New(`\b(?:propose|proposes|introduce|introduces|present|presents|develop|develops)\s+(?:the\s+)?([A-Z][\p{L}\d-]*[\p{L}\d])`)
	// "SDAR (Self-Distilled Agentic Reinforcement Learning)"
	acronymRe = lazyre.New(`\b([A-Z][\p{L}\d-]{1,15})\s*\(([A-Z][^()]{4,100})\)`)
	// "Environment Cross-entropy Hybrid Objective (ECHO)"
	expansionRe = lazyre.New(`([A-Z][^().;:]{4,100}?)\s*\(([A-Z][\p{L}\d-]{1,15})\)`)
)

// genericAcronyms are so common in the field that papers spell them out
// as often as not ("reinforcement learning"): not names a question needs a
// passage to mention.
var genericAcronyms = acronymSet("RL", "LLM", "LLMs", "VLM", "VLMs", "LM", "LMs", "NLP", "AI", "ML", "DL", "QA",
	"API", "APIs", "GPU", "GPUs", "CPU", "SOTA", "DNN", "NN")

// commonAcronyms are defined in many abstracts but name no paper's own
// contribution.
var commonAcronyms = acronymSet("RL", "LLM", "LLMs", "VLM", "VLMs", "LM", "LMs", "NLP", "AI", "ML", "DL", "CV", "QA",
	"RAG", "SFT", "RLHF", "RLAIF", "RLVR", "MDP", "POMDP", "API", "APIs", "GPU", "CPU", "SOTA", "CoT", "PRM", "ORM",
	"MoE", "PPO", "DPO", "GRPO", "KL", "MCTS", "OOD", "IID", "CNN", "RNN", "GNN", "MLP", "XAI", "OCR", "NER",
	"HCI", "UI", "IR", "KG", "SNR", "TD", "GAE", "DRL", "MARL")

func acronymSet(as ...string) map[string]bool {
	m := map[string]bool{}
	for _, a := range as {
		m[strings.ToLower(a)] = true
	}
	return m
}

var introduces = lazyre.New(`(?i)\b(we|this paper|this work)\s+(\w+\s+)?(propose|introduce|present|develop|call|name)s?\b|\bcalled\b|\bat (its|the) (core|heart)\b`)

// overlap is the share of b's stems that a holds.
func overlap(a, b map[string]bool) float64 {
	n := 0
	for t := range b {
		if a[t] {
			n++
		}
	}
	return float64(n) / float64(len(b))
}

// ShortName is the name a paper goes by, as answers call it: see
// shortName ("" when it has none).
func ShortName(p *store.Paper) string { return shortName(p) }

// shortName is the name a paper goes by: the head of its title before a
// colon when it is short ("Co-ReAct: Rubrics as ..." is Co-ReAct), else
// the name its abstract introduces ("we propose ReBel (Reward Belief)"),
// else "".
func shortName(p *store.Paper) string {
	title := safetext.OneLine(tidy(p.Title, ""))
	if i := strings.IndexAny(title, ":"); i > 0 {
		head := strings.TrimSpace(title[:i])
		if n := len(strings.Fields(head)); n > 0 && n <= 3 && len(head) <= 32 && !strings.ContainsAny(head, ",?") {
			return head
		}
	}
	abs := tidy(p.Abstract, "")
	own := func(name string) bool { return !commonAcronyms[strings.ToLower(name)] }
	// an acronym the abstract defines: best the one whose expansion is the
	// title, or that the abstract introduces ("We introduce SDAR (...)"),
	// not one of the methods it builds on ("On-Policy Self-Distillation
	// (OPSD) complements RL")
	titleWords := stemSet(title)
	best, bestScore := "", -1
	consider := func(acr, exp string, at, end int) {
		if !own(acr) || !initialsMatch(acr, exp) {
			return
		}
		score := 0
		if ew := stemSet(exp); len(titleWords) > 0 && overlap(ew, titleWords) >= 0.6 {
			score += 2
		}
		if introduces.MatchString(abs[max(0, at-80):end]) {
			score++
		}
		if score > bestScore {
			best, bestScore = acr, score
		}
	}
	for _, m := range acronymRe.FindAllStringSubmatchIndex(abs, -1) {
		consider(abs[m[2]:m[3]], abs[m[4]:m[5]], m[0], m[1])
	}
	for _, m := range expansionRe.FindAllStringSubmatchIndex(abs, -1) {
		consider(abs[m[4]:m[5]], abs[m[2]:m[3]], m[0], m[1])
	}
	if best != "" {
		return best
	}
	for _, re := range []*lazyre.Regexp{calledRe, proposeRe} {
		for _, m := range re.FindAllStringSubmatch(abs, -1) {
			if own(m[1]) && nameLike(m[1], false) && !capitalisedCommon(m[1]) {
				return m[1]
			}
		}
	}
	return ""
}

// initialsMatch reports whether the words of (the end of) expansion
// spell acronym: its letters are the initials of the words in order,
// starting with one, some words may be skipped
// ("Personalized Anchor Reward-Decoupled Policy Optimization" for PARPO)
// and a word may give more than its initial ("Reward Belief" for ReBel).
func initialsMatch(acronym, expansion string) bool {
	a := []rune(strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, acronym)))
	var words []string
	for _, w := range strings.FieldsFunc(expansion, func(r rune) bool { return r == ' ' || r == '-' }) {
		if w = strings.ToLower(strings.Trim(w, ",.;:()\"'“”")); w != "" {
			words = append(words, w)
		}
	}
	if len(a) < 2 || len(words) == 0 {
		return false
	}
	for start := range words {
		if spells(a, words[start:]) {
			return true
		}
	}
	return false
}

// spells reports whether the words spell the letters a in order: each
// word gives a non-empty prefix of itself, except that words after the
// first may be skipped ("Self-Distilled Agentic Reinforcement Learning" is
// SDAR).
func spells(a []rune, words []string) bool {
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		if j == len(words) {
			return i == len(a)
		}
		w := []rune(words[j])
		for k := 1; k <= len(w) && i+k <= len(a) && w[k-1] == a[i+k-1]; k++ {
			if rec(i+k, j+1) {
				return true
			}
		}
		return j > 0 && rec(i, j+1)
	}
	return rec(0, 0)
}
