package ask

import (
	"fmt"
	"strconv"
	"time"

	"github.com/papers-cli/papers/store"
)

// Passage is one retrieved chunk with the paper it belongs to: the unit that
// search prints and that answers cite.
//
// Retrieve returns passages best first; Rank is the 1-based position in that
// list. Score is the fused relevance score of the mode used (higher is
// better); it orders one result list and is not comparable across queries or
// modes.
type Passage struct {
	ChunkID   string      `json:"chunk"` // store.ChunkID(PaperID, Seq): "<paper id>#<seq>"
	PaperID   string      `json:"id"`
	Seq       int         `json:"seq"`        // 0 is the title+abstract chunk
	PageStart int         `json:"page_start"` // 1-based page span of the chunk; 0 for the abstract
	PageEnd   int         `json:"page_end"`
	Section   string      `json:"section,omitempty"` // section heading in force, if detected
	Text      string      `json:"text"`
	Score     float64     `json:"score"`
	Rank      int         `json:"rank"`
	Paper     store.Paper `json:"-"` // the paper's metadata (title, version, authors, ...)
}

// Pages renders the page span for people and citations: "" for the
// abstract, "3" for one page, "3-4" for a span.
func (p Passage) Pages() string {
	switch {
	case p.PageStart <= 0:
		return ""
	case p.PageEnd <= p.PageStart:
		return strconv.Itoa(p.PageStart)
	default:
		return fmt.Sprintf("%d-%d", p.PageStart, p.PageEnd)
	}
}

// Mode selects the retrieval signals.
type Mode string

// The retrieval modes: Hybrid fuses lexical BM25 with dense similarity; BM25
// and Dense use one signal alone.
const (
	Hybrid Mode = "hybrid"
	BM25   Mode = "bm25"
	Dense  Mode = "dense"
)

// ParseMode accepts "hybrid", "bm25" and "dense"; "" means Hybrid.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Hybrid:
		return Hybrid, nil
	case BM25, Dense:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown retrieval mode %q (want hybrid, bm25 or dense)", s)
}

// Filter restricts which papers' chunks may be returned. Zero fields do not
// restrict.
type Filter struct {
	PaperIDs []string  // versionless paper ids
	Category string    // e.g. "cs.CL": any of the paper's categories
	Since    time.Time // published on or after
	Until    time.Time // published on or before
	Author   string    // case-insensitive substring of any author's name
}

// RetrieveOptions tunes Retrieve. The zero value asks for the 10 best
// passages in hybrid mode, at most 3 from one paper.
type RetrieveOptions struct {
	K        int  // passages to return (default 10)
	Mode     Mode // default Hybrid
	PerPaper int  // at most this many passages of one paper (default 3; < 0: no limit)
	Filter   Filter
}

func (o RetrieveOptions) withDefaults() RetrieveOptions {
	if o.K <= 0 {
		o.K = 10
	}
	if o.Mode == "" {
		o.Mode = Hybrid
	}
	if o.PerPaper == 0 {
		o.PerPaper = 3
	}
	return o
}
