package ask

import "github.com/papers-cli/papers/store"

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
}
