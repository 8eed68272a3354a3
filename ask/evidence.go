package ask

import (
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// evidence is a retrieved passage as answer assembly sees it. It mirrors
// the retriever's Passage, converted in Answer, so the answer code does not
// depend on the retriever's internals.
type evidence struct {
	ChunkID   string
	Paper     store.Paper
	PageStart int
	PageEnd   int
	Section   string
	Text      string
	Score     float64
	Neighbour bool // not retrieved: it follows a retrieved passage (Passage.Neighbour)
}

func fromPassages(ps []retrieve.Passage) []evidence {
	ev := make([]evidence, len(ps))
	for i, p := range ps {
		paper := p.Paper
		if paper.ID == "" {
			paper.ID = p.PaperID
		}
		ev[i] = evidence{ChunkID: p.ChunkID, Paper: paper, PageStart: p.PageStart, PageEnd: p.PageEnd,
			Section: p.Section, Text: p.Text, Score: p.Score, Neighbour: p.Neighbour}
	}
	return ev
}
