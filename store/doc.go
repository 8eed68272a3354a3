// Package store owns the library on disk: papers, chunks, vectors and the
// manifest in one SQLite file (FileName, modernc.org/sqlite, pure Go), plus
// the in-memory index built from the stored vectors for dense search.
//
// # Files
//
//	library.db      the store of record (plus library.db-wal / -shm while open)
//	index.bin       the search index (vectors and full text), rebuilt from
//	                library.db when stale
//
// # Durability
//
// The database runs in WAL mode with synchronous=FULL, foreign keys on and a
// 30 s busy timeout. Every write (Put, Delete, EnsureEmbedder, Reindex) is one
// IMMEDIATE transaction, so kill -9, a full disk or any I/O error leaves the
// library as it was before the write or after it, never in between. FULL
// rather than NORMAL because NORMAL (in WAL mode) is safe against kill -9
// but can lose the last commits on power loss; FULL fsyncs each commit: a
// 50-chunk Put took 4-19 ms here, small next to fetching and embedding the
// paper (PutBatch commits many small papers with one fsync).
// Readers never wait for writers (WAL); a second writer, in this or another
// process, waits up to the busy timeout and then fails with ErrBusy. The
// schema version is PRAGMA user_version; Open migrates older schemas and
// refuses newer ones.
//
// # Dense search: why not chromem-go
//
// DESIGN.md suggests loading the vectors into an in-memory chromem-go
// collection. Measured on this 2-core machine at 100k chunks x 384 dims
// (BENCHMARKS.md, "Library store"), chromem's AddDocuments alone takes longer
// than the whole 300 ms budget of a cold search and its QueryEmbedding takes
// about 10x the 20 ms budget of a query, because it keeps one heap object per
// document, filters through a map on every query and takes a mutex per
// candidate. So the index here is a flat []float32 (chunk i at
// [i*dims:(i+1)*dims]) with an int8 copy (one scale per vector). The int8
// copy is scanned by one goroutine per CPU with a bounded heap each (a
// quarter of the memory traffic; AVX2/FMA on amd64, portable Go elsewhere),
// and the best k+k/2+64 are re-scored exactly with the float32 vectors;
// results are identical to chromem's (TestFlatIndexAgreesWithChromem), with
// ties broken by (paper id, seq) instead of chromem's random order.
//
// The vectors live in library.db (chunks.vector, little-endian float32), but
// reading 150 MB of blobs through SQLite takes about a second of CPU at 100k
// chunks. So the first search also writes them, with the full-text index,
// to the sidecar index.bin, which later processes map read-only (mmap) and
// use in place: a cold search then costs one small manifest query plus page
// faults. The sidecar records
// the library's random id, the vectors generation (a manifest counter bumped
// by every transaction that changes chunks) and the dimensions; if any of
// them differs from the database, or its length or the CRC over its ids is
// wrong, it is ignored and rebuilt. It is written to a temporary file,
// fsynced and renamed, so it is never seen half-written. Deleting it is
// always safe. Ingest should call Refresh after its last Put so that the
// rebuild (about 2 s of CPU at 100k chunks) is not paid by the next search.
//
// Filters (Filter) are applied before ranking: one SQL query selects the
// allowed papers, and the scan skips chunks of other papers, so a filtered
// search returns k hits whenever k matching chunks exist.
//
// # Lexical search
//
// SearchText ranks with BM25 over the search index's full-text part
// (package fts), which reimplements SQLite FTS5's porter tokenizer over
// unicode61 and its bm25() over an inverted index kept in index.bin (one
// posting list per term: chunk ordinals and term frequencies; and one
// term list per chunk, for feedback). Schema 1 kept an FTS5 table too, but
// FTS5's bm25() costs about 3 µs for every row matching any query word,
// 0.2-0.3 s for a SciFact claim at 100k chunks, where the index scores the
// same query in a few milliseconds with the same scores
// (TestSearchTextAgreesWithFTS5 compares the two on SciFact); schema 2
// dropped the table, which also cut ingest time by 15-25%.
package store
