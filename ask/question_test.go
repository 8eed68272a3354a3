package ask

import (
	"slices"
	"testing"
)

// The questions are from the project's own sets and the shapes the qa
// README lists (number, name, list, papers, definition, method, reason).
func TestAnalyse(t *testing.T) {
	for _, tc := range []struct {
		q        string
		kind     kind
		listN    int
		focus    []string
		entities []string
		parts    int
	}{
		{"What learning rate does ECHO use?", kindNumber, 0, []string{"learn", "rate"}, []string{"ECHO"}, 1},
		{"At what hallucination rate does the ReAct-only agent converge in AlfWorld?", kindNumber, 0, []string{"hallucin", "rate"}, []string{"ReAct", "AlfWorld"}, 1},
		{"What is the maximum number of unit tests sampled into the test suite of a programming agent?", kindNumber, 0, []string{"maximum", "number", "unit", "test"}, nil, 1},
		{"Which tool translates the HumanEval and MBPP problems into Rust?", kindName, 0, []string{"tool"}, []string{"HumanEval", "MBPP", "Rust"}, 1},
		{"Which two failure modes does the Agent Bazaar identify?", kindList, 2, []string{"failur", "mode"}, []string{"Agent", "Bazaar"}, 1},
		{"On which environments is GAGPO evaluated?", kindList, 0, []string{"environ"}, []string{"GAGPO"}, 1},
		{"Which papers evaluate their agents on WebShop?", kindPapers, 0, nil, []string{"WebShop"}, 1},
		{"What does PSGM stand for?", kindDefinition, 0, nil, []string{"PSGM"}, 1},
		{"How are syntactically invalid generated tests filtered out?", kindMethod, 0, nil, nil, 1},
		{"According to the authors, why does Toolformer still trail GPT-3 (175B) on the open-domain QA datasets?", kindReason, 0, nil, []string{"Toolformer", "GPT-3", "175B"}, 1},
		{"Which model acts as AdaRefiner's default Decision LLM, and which reinforcement learning algorithm trains the policy?", kindName, 0, []string{"model"}, []string{"AdaRefiner", "Decision"}, 2},
		{"What score does AdaRefiner obtain when a 13B-parameter model replaces Llama2-7B as the Adapter LM?", kindNumber, 0, []string{"score"}, []string{"AdaRefiner", "13B", "Llama2-7B", "Adapter"}, 1},
		{"On the 200-pair Selector benchmark, what F1 score and precision does PaSa's Selector reach?", kindNumber, 0, nil, []string{"Selector", "F1", "PaSa"}, 2},
		{"What does reinforcement learning help the CAD generation agent avoid during retrieval?", kindName, 0, nil, []string{"CAD"}, 1},
		{"Which safety risks for agents in finance are named in the discussion?", kindList, 0, []string{"safeti", "risk"}, nil, 1},
		{"Which model acts as the judge?", kindName, 0, []string{"model"}, nil, 1},
		{"In ECHO's replay buffer, what exactly is an episode?", kindDefinition, 0, []string{"episod"}, []string{"ECHO"}, 1},
	} {
		t.Run(tc.q, func(t *testing.T) {
			q := analyse(tc.q)
			if q.kind != tc.kind || q.listN != tc.listN {
				t.Errorf("kind %v, list of %d; want %v, %d", q.kind, q.listN, tc.kind, tc.listN)
			}
			if tc.focus != nil && !slices.Equal(q.focus, tc.focus) {
				t.Errorf("focus %q, want %q", q.focus, tc.focus)
			}
			var es []string
			for _, e := range q.entities {
				es = append(es, e.text)
			}
			if !slices.Equal(es, tc.entities) {
				t.Errorf("names %q, want %q", es, tc.entities)
			}
			if len(q.parts) != tc.parts {
				t.Errorf("%d parts, want %d", len(q.parts), tc.parts)
			}
		})
	}
	if q := analyse("What does IC-SMDP stand for?"); q.expand != "IC-SMDP" {
		t.Errorf("expand %q, want IC-SMDP", q.expand)
	}
	if q := analyse("What learning rate does ECHO use?"); !slices.Equal(q.phrase, []string{"learn", "rate"}) {
		t.Errorf("phrase %q: a learning rate is asked for, not any rate", q.phrase)
	}
	if q := analyse("At roughly what parameter count does the ability to benefit from the tools start to appear?"); q.phrase != nil {
		t.Errorf("phrase %q: a parameter count is a number of parameters", q.phrase)
	}
}

// A name is found where consecutive words spell it, whatever the hyphens
// and spaces, never inside another word.
func TestNameIndex(t *testing.T) {
	ix := newNameIndex("We evaluate on Terminal-Bench 2.0 and GSM8K; the choice of LLMs matters (Qwen3-8B).")
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"TerminalBench-2.0", true}, {"GSM8K", true}, {"gsm8k", true}, {"LLM", true}, {"Qwen3-8B", true},
		{"ECHO", false}, {"Bench", true}, {"Terminal", true}, {"MATH", false},
	} {
		if got := ix.has(entity{text: tc.name, norm: normName(tc.name)}); got != tc.want {
			t.Errorf("has(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestStatesQuantity(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Reflexion reaches 91% pass@1 on HumanEval.", true},
		{"after only four trials, we terminate the runs", true},
		{"ReBel increases sample efficiency by 2.1×.", true},
		{"As shown in Table 2, AdaRefiner completes the most achievements.", false},
		{"We follow Yao et al. (2023) and Hafner (2021) [12, 13].", false},
		{"We use GPT-4 and Qwen3-8B as backbones.", false},
		{"This condition is enforced by a field, see (4).", false},
		{"While there is contemporaneous exploration of multi-agent approaches,3 we present AutoGen.", false},
		{"Seshadri et al. 31 trained a GNN model.", false},
		{"we use the 13B model", true},
		{"we utilized counterfactuals 9 and descriptor explanations 10 to quantify scent-structure relationships", false},
		{"a total of 9 models and 10 tasks", true},
		{"the batch size is set to 1024", true},
	} {
		if got := statesQuantity(tc.s); got != tc.want {
			t.Errorf("statesQuantity(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// Short names of the topic corpus's papers: the head of the title, else
// the name the abstract introduces, never a common acronym it defines.
func TestShortName(t *testing.T) {
	want := map[string]string{
		"topic-001": "ECHO", "topic-003": "Co-ReAct", "topic-004": "PARPO", "topic-009": "Mem-π", "topic-012": "ReBel",
		"topic-014": "SERL", "topic-023": "SDAR", "topic-025": "SkillFlow", "topic-029": "MANGO", "topic-005": "",
	}
	for _, e := range loadTopic(t) {
		w, ok := want[e.Paper.ID]
		if !ok {
			continue
		}
		p := e.Paper
		p.Abstract = e.Text
		if got := shortName(&p); got != w {
			t.Errorf("%s %q: short name %q, want %q", p.ID, p.Title, got, w)
		}
	}
}
