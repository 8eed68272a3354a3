// Package library is the library session: the one place that wires an open
// library for every front end (cmd, mcpserver, browse). A Session holds
// the library on disk (package store), the embedder its vectors were made
// with, the chunker its manifest records, the arXiv and Crossref clients
// (one pacing each for the session's life), the language model settings, the HTTP client every
// outbound request goes through, and the locks a write takes. It hands out
// what the front ends do: Search, Ask, Review, Ingest, Update, Reindex,
// Related; front ends only turn flags, MCP arguments and keys into its
// options and its results into output. The defaults of those options live
// here, once.
//
// A Session opens its library lazily: New does no I/O, Store opens a
// library that exists, Create one that may not yet. It is safe for
// concurrent use; writes (Ingest, Update) run one at a time.
//
// # What the session needs of a store
//
// The session reads and writes the library through *store.Library today.
// The operations it uses, grouped as the small interfaces their consumers
// declare (the contract a second store, e.g. PostgreSQL, must keep):
//
//   - opening: Open(dir), Close, Dir, ReadOnly, MigrationNotes;
//   - the manifest (retrieve.Library): Manifest, Count, EnsureEmbedder,
//     SetChunker;
//   - the write lock against a reindex: HoldEmbedder; a reindex itself:
//     Reindex;
//   - search (retrieve.Index): SearchText, SearchVectors, ChunkTexts, List,
//     and Refresh after a write;
//   - ingest (ingest.Library): Put/PutBatch and the look-ups by hash and
//     identifier that keep one paper one entry;
//   - topics (topic updates, resolve): Topic, Topics, TopicPapersSince,
//     MarkTopicUpdated, WithoutArxivRecord, PapersFrom (local PDFs to fill
//     from Crossref);
//   - related papers (related.Library): PaperVectors, List.
//
// The contracts callers rely on, which a second store must keep: Put and
// PutBatch are all or nothing and report Unchanged for an identical paper;
// one embedder per library (store.ErrEmbedderMismatch, store.ErrDimensions);
// hits come best first with ties broken by (paper id, seq); a Filter
// selects before ranking, so a filtered search returns k hits whenever k
// exist; errors wrap store.ErrNotFound and store.ErrBusy. Ranking may
// differ (another BM25, an approximate vector index): papers eval on
// SciFact is the acceptance test of a store, against BENCHMARKS.md.
package library
