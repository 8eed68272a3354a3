package review

import "testing"

// Which questions people type are a review column's, and how a question
// naming its paper reads: the paper is "it".
func TestGenericQuestionsAsTyped(t *testing.T) {
	for _, c := range []struct {
		q, name, as string
		generic     bool
	}{
		{"What are the limitations of Reflexion?", "Reflexion", "What are the limitations of it?", true},
		{"What are Toolformer's limitations?", "Toolformer", "What are its limitations?", true},
		{"What is the main finding of Constitutional AI?", "Constitutional AI", "What is the main finding of it?", true},
		{"How does DeepSeek-R1 work?", "DeepSeek-R1", "How does it work?", true},
		{"How does DeepSeek-R1-Zero work?", "DeepSeek-R1", "How does DeepSeek-R1-Zero work?", false},
		{"Which datasets are used?", "", "Which datasets are used?", true},
		{"What labels does the dataset have?", "", "What labels does the dataset have?", false},
		{"What is the source of the data?", "", "What is the source of the data?", false},
	} {
		as := asItself(c.q, c.name)
		if as != c.as {
			t.Errorf("asItself(%q, %q) = %q, want %q", c.q, c.name, as, c.as)
		}
		if got := onlyGeneric(as); got != c.generic {
			t.Errorf("onlyGeneric(%q) = %v, want %v", as, got, c.generic)
		}
	}
}
