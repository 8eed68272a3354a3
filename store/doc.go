// Package store is the library's record: papers, chunks, vectors, tags,
// topics, saved papers, identifiers and the manifest in one SQLite file
// (FileName, modernc.org/sqlite, pure Go), with its migrations. The search
// index built from it (IndexDir) is package index, the engine: this
// package feeds it (the change log, snapshots of the chunks) and asks it
// (SearchText, SearchVectors, after selecting the papers a Filter allows).
//
// # Files
//
//	library.db      the store of record (plus library.db-wal / -shm while open)
//	index/          the search index, derived from library.db (deleting it is
//	                always safe): commit, segments (*.seg, *.vec, *.bits), deletion
//	                files (*.del), write.lock and merge.lock
//	embedder.lock   held by ingests against a Reindex (HoldEmbedder)
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
// The search index is derived: deleting IndexDir is always safe, and
// searches take the changes not yet in it in from the change log (the
// index_log table, filled by triggers on papers). See package index for
// how it is built, searched, merged and kept consistent across crashes.
package store
