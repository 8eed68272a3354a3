package ask

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
)

// faithful sentences state only what the cited passage says (testPassages:
// [1] ECHO, [2] ReAct, [3] SDAR), in the model's own words and formats.
var faithful = []string{
	"ECHO doubles GRPO pass@1 on TerminalBench-2.0 [1].",
	"With Qwen3-8B, pass@1 rises from 2.7% to 5.17% [1].",
	"Its auxiliary loss trains the policy to predict environment observation tokens [1].",
	"ReAct interleaves verbal reasoning traces and actions [2].",
	"SDAR's gains over GRPO are +9.4% on ALFWorld, +7.0% on Search-QA and +10.2% on WebShop [3].",
}

// plantedCase is a reply with one planted claim: a sentence whose every
// citation names no passage (removed), or a cited sentence with a number
// or a name its passages do not hold (unsupported).
type plantedCase struct {
	name    string
	claim   string   // the planted sentence, as the model writes it
	key     string   // a phrase of it that must leave the answer (removed) or be reported (unsupported)
	missing []string // unsupported: what must be reported missing
}

var removedCases = []plantedCase{
	{"one bogus number", "ECHO also cures cancer [9].", "cures cancer", nil},
	{"zero", "The method is free of cost [0].", "free of cost", nil},
	{"a bogus group", "It beats every baseline [4, 5].", "beats every baseline", nil},
	{"a bogus range", "It scales to a million agents [7-9].", "million agents", nil},
	{"a bogus pair", "It was adopted by every lab [4][5].", "adopted by every lab", nil},
	{"a named passage", "It needs no training data [Passage 12].", "no training data", nil},
	{"with a page", "It solves chess [42, p. 3].", "solves chess", nil},
	{"after the full stop", "It runs on a phone. [11]", "runs on a phone", nil},
	{"a semicolon group", "It replaces RLHF entirely [6; 8].", "replaces RLHF", nil},
	{"a number claim", "ECHO reaches 99.9% accuracy [13].", "99.9%", nil},
}

var unsupportedCases = []plantedCase{
	{"a number from nowhere", "ECHO lifts Qwen3-8B to 6.3% pass@1 [1].", "6.3%", []string{"6.3"}},
	{"a number pinned on the wrong passage", "ECHO gains 9.4% on ALFWorld [1].", "9.4% on ALFWorld", []string{"9.4", "ALFWorld"}},
	{"a count", "ECHO was evaluated on 12 benchmarks [1].", "12 benchmarks", []string{"12"}},
	{"thousands", "ECHO uses 1,024 rollouts per task [1].", "1,024 rollouts", []string{"1,024"}},
	{"a year", "ReAct was introduced in 2019 [2].", "in 2019", []string{"2019"}},
	{"a second number", "SDAR adds 10.2% on WebShop and 4.5% on ScienceWorld [3].", "4.5%", []string{"4.5", "ScienceWorld"}},
	{"a benchmark from nowhere", "ECHO was also tested in Crafter [1].", "Crafter", []string{"Crafter"}},
	{"a model from nowhere", "GPT-4o benefits from ECHO as well [1].", "GPT-4o", []string{"GPT-4o"}},
	{"a changed decimal", "SDAR improves over GRPO by 7.5% on Search-QA [3].", "7.5%", []string{"7.5"}},
	{"a percentage in a list item", "- ReAct improves success by 34% [2]", "34%", []string{"34"}},
	{"a number in a two-citation sentence", "Both ECHO and ReAct report 8.1 points of gain [1][2].", "8.1 points", []string{"8.1"}},
	{"a multiplier", "ECHO is 3.5x faster than GRPO [1].", "3.5x", []string{"3.5"}},
}

// Every planted case is caught, wherever the claim stands and however the
// reply is streamed, and no faithful sentence is reported.
func TestPlantedClaimsAreCaught(t *testing.T) {
	all := append(append([]plantedCase{}, removedCases...), unsupportedCases...)
	caught := 0
	for i, tc := range all {
		removed := i < len(removedCases)
		for pos := 0; pos <= len(faithful); pos += len(faithful) / 2 {
			sents := slices.Insert(slices.Clone(faithful), pos, tc.claim)
			sep := " "
			if strings.HasPrefix(tc.claim, "- ") {
				sep = "\n"
			}
			reply := strings.Join(sents, sep)
			size := 1 + (i+pos)%7
			t.Run(fmt.Sprintf("%s/at %d", tc.name, pos), func(t *testing.T) {
				f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
					llmtest.StreamReply(w, llmtest.Pieces(reply, size)...)
				})
				var out strings.Builder
				res, err := Answer(t.Context(), testPassages, "How do ECHO, ReAct and SDAR compare?", newTestLLM(t, f.URL, nil), Options{}, &out)
				if err != nil {
					t.Fatal(err)
				}
				warnings := strings.Join(res.Warnings, "\n")
				if removed {
					if strings.Contains(res.Answer, tc.key) || strings.Contains(out.String(), tc.key) {
						t.Errorf("the removed claim stayed in the answer: %q", res.Answer)
					}
					if !slices.ContainsFunc(res.Removed, func(c Claim) bool { return strings.Contains(c.Sentence, tc.key) }) || !strings.Contains(warnings, tc.key) {
						t.Errorf("the removed claim is not reported: removed %+v, warnings %q", res.Removed, warnings)
					}
				} else {
					i := slices.IndexFunc(res.Unsupported, func(c Claim) bool { return strings.Contains(c.Sentence, tc.key) })
					if i < 0 || !strings.Contains(warnings, tc.key) {
						t.Fatalf("the unsupported claim is not reported: unsupported %+v, warnings %q", res.Unsupported, warnings)
					}
					for _, m := range tc.missing {
						if !slices.Contains(res.Unsupported[i].Missing, m) {
							t.Errorf("missing %q not reported: %+v", m, res.Unsupported[i])
						}
					}
				}
				for _, c := range append(slices.Clone(res.Unsupported), res.Removed...) {
					if !strings.Contains(c.Sentence, tc.key) {
						t.Errorf("a faithful sentence was reported: %+v", c)
					}
				}
				for _, s := range faithful {
					head := s[:20]
					if !strings.Contains(res.Answer, head) {
						t.Errorf("a faithful sentence was lost (%q): %q", head, res.Answer)
					}
				}
				if !t.Failed() {
					caught++
				}
			})
		}
	}
	t.Logf("caught %d of %d planted placements (%d removed-citation and %d unsupported claims, 3 placements each)",
		caught, 3*len(all), len(removedCases), len(unsupportedCases))
}

// --quality with a model whose judgements are unusable (prose, empty
// replies, JSON without a summary) answers as without --quality, with a
// warning, instead of claiming the library holds no evidence.
func TestQualityFallsBackWhenJudgementsAreUnusable(t *testing.T) {
	for _, judgement := range []string{
		"I think this passage is quite relevant!",
		`{"relevance": "high"}`,
		`{"relevance": 9, "summary": ""}`,
		"",
	} {
		t.Run(judgement, func(t *testing.T) {
			f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
				if strings.Contains(b.Messages[0].Content, "judge how well one passage") {
					replyTo(w, b, judgement)
					return
				}
				llmtest.StreamReply(w, "ECHO doubles GRPO pass@1 on TerminalBench-2.0 [1].")
			})
			llm := newTestLLM(t, f.URL, nil)
			var out strings.Builder
			res, err := Answer(t.Context(), testPassages, "How does ECHO improve GRPO?", llm, Options{Quality: true}, &out)
			if err != nil {
				t.Fatalf("error %v, want a plain answer", err)
			}
			if res.Mode != ModeLLM || res.Abstained || !strings.Contains(res.Answer, "ECHO doubles") || len(res.Citations) != 1 {
				t.Errorf("mode %q abstained %v answer %q", res.Mode, res.Abstained, res.Answer)
			}
			if !strings.Contains(strings.Join(res.Warnings, "\n"), "judgements of the passages were unusable") {
				t.Errorf("warnings %q", res.Warnings)
			}
		})
	}
}

// A stream cut mid-answer ends its line before the error is printed.
func TestInterruptedStreamEndsItsLine(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/event-stream")
		llmtest.SSE(w, llmtest.Delta("ECHO doubles GRPO pass@1 [1]. It also"))
		panic(http.ErrAbortHandler)
	})
	var out strings.Builder
	_, err := Answer(t.Context(), testPassages, "How does ECHO improve GRPO?", newTestLLM(t, f.URL, nil), Options{}, &out)
	if !errors.Is(err, llm.ErrStreamBroken) {
		t.Fatalf("error %v, want llm.ErrStreamBroken", err)
	}
	if got := out.String(); !strings.HasPrefix(got, "ECHO doubles") || !strings.HasSuffix(got, "\n") {
		t.Errorf("output %q: want the text shown, then a newline", got)
	}
}

// replyTo answers a chat request with text, streamed when it asked for a stream.
func replyTo(w http.ResponseWriter, b llmtest.ChatBody, text string) {
	if b.Stream {
		llmtest.StreamReply(w, llmtest.Pieces(text, 4)...)
		return
	}
	js, _ := json.Marshal(text)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":`+string(js)+`},"finish_reason":"stop"}]}`)
}

// A reply that never ends a sentence is still written as it comes, in
// parts, and checked in linear time (the cap of one held sentence).
func TestEndlessSentenceIsWrittenInParts(t *testing.T) {
	var out strings.Builder
	cw := newCiteWriter(&out, func(n int) bool { return n == 1 })
	word := "and more words without end "
	const n = 1000 // 27 KB in pieces of 27 bytes: 6 times what a sentence may hold
	for i := 0; i < n; i++ {
		cw.Write([]byte(word))
	}
	if out.Len() < n*len(word)-maxSentence {
		t.Errorf("only %d bytes written before Close: the sentence was held whole", out.Len())
	}
	cw.Close()
}
