package library

import (
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/topic"
)

// The defaults every front end shows in its help and applies when an
// option is not given.
const (
	// SearchK is how many passages a search returns.
	SearchK = retrieve.DefaultK
	// PerPaper is how many passages of one paper a search returns at most
	// (none when papers are named).
	PerPaper = retrieve.DefaultPerPaper
	// IngestMax is how many papers an arXiv search brings.
	IngestMax = 50
	// Workers is how many papers an ingest extracts and embeds at once.
	Workers = 2
	// UpdateMax is how many papers one update ingests per topic.
	UpdateMax = topic.DefaultMax
	// Window is how far back a topic's first update reads, as the flag
	// and the MCP argument spell it (topic.DefaultWindow).
	Window = "12w"
)

// Chunking is the chunker of a new library (an existing one keeps its own).
var Chunking = chunk.Defaults
