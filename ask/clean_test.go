package ask

import (
	"testing"
)

// Sentences as the shared PDFs and the topic corpus give them, and what an
// answer shows of them.
func TestTidy(t *testing.T) {
	for _, tc := range []struct {
		name, in, section, want string
	}{
		{"latex times", `using an active memory bank 12 \times smaller than the strongest baseline`, "", "using an active memory bank 12 × smaller than the strongest baseline"},
		{"latex emph", `At its core is \emph{Personalized Anchor Reward-Decoupled Policy Optimization} (\textbf{PARPO}), which decouples rewards.`, "", "At its core is Personalized Anchor Reward-Decoupled Policy Optimization (PARPO), which decouples rewards."},
		{"latex math", `We present Mem- $π$ , a framework.`, "", "We present Mem-π , a framework."},
		{"line-end hyphen", "Following this, we perform reasoning-oriented RL like DeepSeek-R1- Zero.", "", "Following this, we perform reasoning-oriented RL like DeepSeek-R1-Zero."},
		{"hyphen before and", "Both pre- and post-training matter.", "", "Both pre- and post-training matter."},
		{"numbered heading", "3.2 Datasets and Training For red teaming prompts (i.e. partial conversations), we collected 42,496 human-written prompts.", "", "For red teaming prompts (i.e. partial conversations), we collected 42,496 human-written prompts."},
		{"appendix heading", "B.1 RL Algorithm We use the classic PPO algorithm for policy learning in AdaRefiner.", "", "We use the classic PPO algorithm for policy learning in AdaRefiner."},
		{"title-case heading", "Reinforcement Learning Algorithm Group Relative Policy Optimization In order to save the training costs of RL, we adopt GRPO.", "", "In order to save the training costs of RL, we adopt GRPO."},
		{"section heading", "4.5 Absolute Harmfulness Score In contrast to our experiments, we collect absolute labels.", "4.5 Absolute Harmfulness Score", "In contrast to our experiments, we collect absolute labels."},
		{"figure axes before a caption", "3.5 3.0 2.5 Helpful RLHF HH RLHF 2.0 RL-CAI 1.5 1.0 0.5 0.0 RL Train Sequences 1e6 Figure 10 Absolute harmfulness score for various 52B RL snapshots.", "", "Figure 10 Absolute harmfulness score for various 52B RL snapshots."},
		{"table cells before a caption", "Approach Test Generation Self-reflection Pass@1 (Acc) Base model False False 0.60 Reflexion True True 0.68 Table 3: Pass@1 accuracy for various compromised approaches.", "", "Table 3: Pass@1 accuracy for various compromised approaches."},
		{"equation number", "(41) N 2t 2t This double log divergence is also found in the standard d = 1 case.", "", "This double log divergence is also found in the standard d = 1 case."},
		{"citation number", "127 The AqSolDB curated database 137 was used to train the RNN model.", "", "The AqSolDB curated database 137 was used to train the RNN model."},
		{"footnote mark", "many results apply to the rotor model.10", "", "many results apply to the rotor model."},
		{"prose is kept", "We set n to a maximum of 6 unit tests.", "", "We set n to a maximum of 6 unit tests."},
		{"a name opening a sentence is kept", "GRPO foregoes the critic model.", "", "GRPO foregoes the critic model."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tidy(tc.in, tc.section); got != tc.want {
				t.Errorf("tidy(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestDebris(t *testing.T) {
	prose := "In our previous works, we implemented and trained an RNN model in Keras to predict solubilities of small molecules."
	table := "Method Type Method Score (%) Reward AdaRefiner (@5M) 28.2 ± 1.8 12.9 ± 1.2 Ours AdaRefiner (@1M) 15.8 ± 1.4 12.3 ± 1.3 Reflexion (GPT-4) 11.7 ± 1.4"
	if d := debris(prose); d > 0.3 {
		t.Errorf("prose scores %.2f as debris", d)
	}
	if d := debris(table); d <= 0.3 {
		t.Errorf("a table row scores %.2f as debris", d)
	}
	if !isTOC("2.3.3 Rejection Sampling and Supervised Fine-Tuning . . . . . . . . 10") || isTOC(prose) {
		t.Error("a table of contents line is not told from prose")
	}
}
