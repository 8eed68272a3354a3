package textseg

import (
	"reflect"
	"testing"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two", "We train agents. They learn fast.", []string{"We train agents.", "They learn fast."}},
		{"abbreviation", "Methods, e.g. PPO, work. See Fig. 3 for details.", []string{"Methods, e.g. PPO, work.", "See Fig. 3 for details."}},
		{"et al", "As shown by Yao et al. (2023), ReAct helps. It works.", []string{"As shown by Yao et al. (2023), ReAct helps.", "It works."}},
		{"initial", "Written by J. Smith and others. Next.", []string{"Written by J. Smith and others.", "Next."}},
		{"question", "Does it scale? Yes, it does!", []string{"Does it scale?", "Yes, it does!"}},
		{"lowercase next", "The value is 3.5 and x. is fine", []string{"The value is 3.5 and x. is fine"}},
		{"digit next", "We report results. 95% of runs pass.", []string{"We report results.", "95% of runs pass."}},
		{"footnote mark", "It shares the properties of the rotor model.10 The quantum rotor model emerges.", []string{"It shares the properties of the rotor model.10", "The quantum rotor model emerges."}},
		{"citation mark in brackets", "into this mode.16 In order to avoid it, we constrain it.", []string{"into this mode.16", "In order to avoid it, we constrain it."}},
		{"decimal is no footnote", "The score is 0.5 and 2.10 Then more", []string{"The score is 0.5 and 2.10 Then more"}},
		{"version is no footnote", "We use GPT-3.5 Turbo and Qwen2.5 Math models.", []string{"We use GPT-3.5 Turbo and Qwen2.5 Math models."}},
		{"dotted abbreviation", "The U.S. National Weather Service uses it. Next.", []string{"The U.S. National Weather Service uses it.", "Next."}},
		{"whitespace", "  A   bc.\n C  ", []string{"A bc.", "C"}},
		{"empty", "   ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sentences(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParagraphs(t *testing.T) {
	got := Paragraphs("Line one\nline two\n\n\n  Second para\n")
	want := []string{"Line one line two", "Second para"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Paragraphs = %q, want %q", got, want)
	}
}
