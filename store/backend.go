package store

import (
	"context"
	"time"
)

// Backend is everything papers asks of a library: the seam where a second
// implementation of the store goes when one machine is no longer enough
// (a lab sharing one library, or all of arXiv with semantic vectors: see
// docs/shared-store.md, which names PostgreSQL with pgvector as that
// implementation). *Library, one SQLite file and its segment index on one
// machine, is the first.
//
// The contracts are the methods' on *Library; a second implementation must
// keep the ones callers rely on: Put and PutBatch all or nothing and
// Unchanged for an identical paper; one embedder per library
// (ErrEmbedderMismatch, ErrDimensions); hits best first with ties by
// (paper id, seq); Filter selecting before ranking; errors wrapping
// ErrNotFound and ErrBusy. Ranking may differ (its BM25 is not ours, its
// vector index approximate): `papers eval` on SciFact is the acceptance
// test of a backend, against the figures in BENCHMARKS.md.
type Backend interface {
	// The library.
	Manifest(ctx context.Context) (Manifest, error)
	EnsureEmbedder(ctx context.Context, name string, dims int) error
	SetChunker(ctx context.Context, version string) error
	Count(ctx context.Context) (papers, chunks int, err error)
	Check(ctx context.Context) error
	MigrationNotes() []string
	// HoldEmbedder keeps Reindex away while an ingest embeds (a server
	// would take a row lock or an advisory lock).
	HoldEmbedder(ctx context.Context, waiting func()) (release func(), err error)
	Close() error

	// Papers and chunks: ingest and update write, everything reads.
	Put(ctx context.Context, p Paper, chunks []Chunk) (PutResult, error)
	PutBatch(ctx context.Context, items []Item) ([]PutResult, error)
	Delete(ctx context.Context, id string) error
	DeleteAll(ctx context.Context, ids []string) error
	Get(ctx context.Context, id string) (Paper, error)
	FindByHash(ctx context.Context, hash string) (Paper, error)
	FindByIdentifiers(ctx context.Context, ids []Identifier) ([]Paper, error)
	FindPaper(ctx context.Context, ref string, spellings ...string) (Paper, error)
	Identifier(ctx context.Context, kind, value string) (IdentifierRecord, error)
	Identifiers(ctx context.Context, kind string) (map[string]IdentifierRecord, error)
	List(ctx context.Context, f Filter) ([]Paper, error)
	Chunks(ctx context.Context, paperID string) ([]Chunk, error)
	ChunksWithVectors(ctx context.Context, paperID string) ([]Chunk, error)
	ChunkTexts(ctx context.Context, ids []string) (map[string]Chunk, error)
	ForEachChunk(ctx context.Context, withVectors bool, fn func(Chunk) error) error
	Reindex(ctx context.Context, name string, dims, batch int,
		embed func(ctx context.Context, chunks []Chunk) ([][]float32, error),
		progress func(done, total int), waiting func()) error

	// Search (ask's retriever). Refresh makes later searches cheap; a
	// server that indexes as it writes makes it a no-op.
	SearchText(ctx context.Context, query string, k int, f Filter, fb Feedback) ([]Hit, error)
	SearchVectors(ctx context.Context, q []float32, k int, f Filter) ([]Hit, error)
	Refresh(ctx context.Context) error

	// Followed topics (package topic).
	AddTopic(ctx context.Context, t Topic) error
	Topic(ctx context.Context, name string) (Topic, error)
	Topics(ctx context.Context) ([]Topic, error)
	RemoveTopic(ctx context.Context, name string, purge bool) ([]string, error)
	AddToTopic(ctx context.Context, name string, ids []string) error
	AddTopicMembers(ctx context.Context, name string, m TopicMembers) error
	TopicPapersSince(ctx context.Context, name string, since time.Time) ([]string, error)
	MarkTopicUpdated(ctx context.Context, name string, ran, cursor time.Time) error
}

var _ Backend = (*Library)(nil)
