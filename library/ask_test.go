package library_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/store"
)

// A generic question asked of one full-text paper, or naming it, is
// answered with the sentence its review cell quotes (review.AnswerGeneric),
// from the page that holds it; a particular question is the answer
// ranking's.
// (Measured on the review grids with `go run ./bench/review/grid -ask`:
// stated cells right 16-44% with the ranking alone, 40-89% with the cell.)
func TestGenericQuestionOfAFullTextPaper(t *testing.T) {
	ctx := context.Background()
	pdf := shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf")
	s := library.New(library.Config{Dir: t.TempDir(), HTTPClient: netlog.New(netlog.Options{Offline: true}).Client()})
	defer s.Close()
	if _, err := s.Ingest(ctx, ingest.Sources{PDFs: []string{pdf}}, library.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	lib, err := s.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	papers, err := lib.List(ctx, store.Filter{})
	if err != nil || len(papers) != 1 {
		t.Fatalf("%d papers, %v", len(papers), err)
	}
	one := library.AskOptions{Filter: store.Filter{IDs: []string{papers[0].ID}}, Extractive: true}
	for _, c := range []struct{ q, want string }{
		{"What method does this paper propose?", "we propose Toolformer"},
		{"What are the limitations?", toolformerLimits},
	} {
		res, err := s.Ask(ctx, c.q, one, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if !regexp.MustCompile(c.want).MatchString(res.ShortAnswer) {
			t.Errorf("%s: short answer %q, want the sentence matching %q", c.q, res.ShortAnswer, c.want)
		}
		if len(res.Evidence) == 0 || res.Evidence[0].Page < 1 || res.Evidence[0].Quote != res.ShortAnswer {
			t.Errorf("%s: evidence %+v, want the short answer's sentence first, with its page", c.q, res.Evidence)
		}
	}
	// asked of the library, naming the paper: the same question of it
	res, err := s.Ask(ctx, "What are Toolformer's limitations?", library.AskOptions{Extractive: true}, nil)
	if err != nil || !regexp.MustCompile(toolformerLimits).MatchString(res.ShortAnswer) || res.Evidence[0].Page < 1 {
		t.Errorf("What are Toolformer's limitations?: %v, %+v", err, res)
	}
	res, err = s.Ask(ctx, "Which model does Toolformer finetune?", one, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Answer, "GPT-J") {
		t.Errorf("a particular question: %q, want the ranking's answer naming GPT-J", res.Answer)
	}
}

// toolformerLimits are what Toolformer's section of limitations (page 11)
// says: that it has some, and each of them.
const toolformerLimits = `limitation|inability of Toolformer to use tools in a chain|does not allow the LM to use a tool in an interactive way|sensitive to the exact wording|sample-inefficient`
