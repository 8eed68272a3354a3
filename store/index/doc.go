// Package index is the search engine over a library's chunks: immutable
// segments of int8 vectors, sign codes and a full-text index (package fts),
// deletion files, one commit, tiered merges, and the searches (dense and
// BM25 with feedback) over a consistent view of them. It knows nothing of
// SQL: it reads the library through a Source (one snapshot: its version,
// the papers changed since a position of its change log, their chunks),
// which package store implements over SQLite.
//
// # Dense search: why not chromem-go
//
// DESIGN.md suggests loading the vectors into an in-memory chromem-go
// collection. Measured on this 2-core machine at 100k chunks x 384 dims
// (BENCHMARKS.md, "Library store and search index"), chromem's
// AddDocuments alone takes longer
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
// At a million chunks of 768 dimensions that scan reads 768 MB a query
// (about 100 ms of CPU, memory-bound). So from approxFrom live chunks on, a
// dense search first scans sign codes (signcodes.go: RaBitQ's one bit per
// dimension of the rotated int8 vector plus one factor, 100 bytes a chunk
// at 768 dimensions, an eighth of the int8 copy, scanned against the query
// quantized to 4 bits with AVX-512's 512-bit popcounts where the CPU has
// them, POPCNT a word at a time otherwise), and only the best
// signCandidates of those estimates (chosen by a linear selection) go on
// to the int8 and float32 passes. This first pass is
// approximate: BENCHMARKS.md ("Library store and search index") gives the
// recall@10 and @300 measured against the exact scan; below approxFrom
// (and so on SciFact) searches stay exact. Sign codes are a third file per
// segment (.bits), derived from the .seg alone: segment writers and merges
// write them, and a segment written before them gets them on the first
// open of its index by a process that may write it (addSignCodes); until
// then it is scanned with its int8 vectors.
//
// The vectors live in library.db (chunks.vector, little-endian float32), but
// reading 150 MB of blobs through SQLite takes about a second of CPU at 100k
// chunks. So searches read the search index instead (below): each segment's
// int8 vectors are mapped read-only and scanned in place, and the float32
// ones are read with ReadAt for the candidates' exact re-scoring only (a few
// KB a query, never mapped, so they cost no memory).
//
// Filters (Filter) are applied before ranking: one SQL query selects the
// allowed papers, and the scan skips chunks of other papers, so a filtered
// search returns k hits whenever k matching chunks exist.
//
// # Lexical search
//
// SearchText ranks with BM25 over the search index's full-text part
// (package fts), which reimplements SQLite FTS5's porter tokenizer over
// unicode61 and its bm25() over an inverted index kept in each segment (one
// posting list per term: chunk numbers and term frequencies; and one
// term list per chunk, for feedback). Schema 1 kept an FTS5 table too, but
// FTS5's bm25() costs about 3 µs for every row matching any query word,
// 0.2-0.3 s for a SciFact claim at 100k chunks, where the index scores the
// same query in a few milliseconds with the same scores
// (TestSearchTextAgreesWithFTS5 compares the two on SciFact); schema 2
// dropped the table, which also cut ingest time by 15-25%.
//
// # The search index changes by parts
//
// Until schema 3 the index was one file (index.bin) rewritten whole by
// every change: ingesting one abstract into a 100k-chunk library took 2.6-4
// s and ~1 GB of memory, and would have taken ~25 s and ~9 GB at a million
// chunks. Now it is a set of immutable segments, Lucene's design:
//
//   - A segment (segment.go) holds the chunks of some papers in (paper id,
//     seq) order: int8 vectors and their scales, the chunk table, the
//     papers' ids, and a full-text index of those chunks alone. It is
//     written once, fsynced, renamed into place, and never changed.
//   - Deleting or replacing a paper deletes its chunks from the segment
//     that holds them: a deletion file per segment (fts.Deleted) lists the
//     deleted chunks and what BM25 must leave out of its statistics for
//     them (their tokens, and per term how many of them hold it).
//   - The commit (commit.go) names the live segments and their deletion
//     files, and the library version they hold. It is the only file that
//     changes, by an atomic rename of a fsynced temporary file: a reader
//     sees the old commit or the new one, and every file a commit names was
//     durable before it.
//   - What changed since a commit comes from the library's change log
//     (schema 4: index_log, a row per paper inserted, deleted or retitled,
//     added by triggers, so every writer is covered). Refresh reads, in one
//     snapshot, the papers logged after the commit's position, deletes
//     their chunks from the segments that hold them, writes their chunks as
//     they are now to a new segment, and commits: it costs what the
//     changed papers cost, not the library. Reindex replaces every vector
//     (it bumps vectors_epoch) and the index is rebuilt, in segments of at
//     most segmentChunks chunks so that memory stays bounded.
//   - Searches read every live segment, skipping deleted chunks. BM25's
//     statistics (live chunks, their mean length, each term's live document
//     frequency) are summed over the segments minus their deletions, so
//     scores are exact, bit for bit those of one index of the live chunks
//     (fts.TestSetMatchesOneIndex, and TestRefreshTakesInChanges, which
//     compares every search with an index built from nothing).
//   - Merges (segmerge.go) keep the number of segments small: tiered, as
//     Lucene's TieredMergePolicy, mergeFactor segments of one size level
//     become one of the next (at most 9 per level, about log10(n/1000)
//     levels), and a segment more than 30% deleted is rewritten. A merge
//     streams (vectors through buffers, postings through fts.Merge, the
//     inputs' mapped pages released as it goes): a few bytes per chunk of
//     memory whatever the segments' size. The merged segment is byte for
//     byte what a build of the same chunks would give (fts.TestMergeMatchesBuild).
//
// Concurrency and crashes. Readers take no lock: a view is a commit's
// segments, mapped, and a segment a merge deleted stays readable to whoever
// mapped it. A process whose index is behind the library and cannot take
// the write lock at once (another process holds it, or the directory is
// read-only) takes the changes in in memory, so searches never wait for
// writers. Writers take index/write.lock (flock) to add segments, write
// deletions and commit, which takes milliseconds; one merger at a time
// holds index/merge.lock and takes the write lock only to pick its
// segments and to commit, carrying over the deletions committed in them
// meanwhile. Temporary files are created under the write lock and held
// (holdTemp) until renamed; Open and every commit delete those of killed
// writers, and files no commit names. So kill -9 at any moment, in a
// segment write, a commit or a merge, leaves the last commit and its
// files: the library opens, Check passes (it verifies every checksum and
// that the index, with the changes since its commit, holds exactly the
// library's chunks) and searches agree with a rebuild
// (TestKill9DuringIndexWrite, with two writers at once and a reader
// throughout; cmd/papers TestKillDuringIndexRefresh).
//
// # Why our own segments and not bleve
//
// The issue asked to choose by measurement between these segments on top
// of the existing index and an established library, bleve v2 (scorch
// segments, BM25, pure Go). bench/bleveproto puts the same chunks and
// tokens in bleve and runs the same benchmarks (BENCHMARKS.md,
// "Incremental search index"). Three findings decided it:
//
//   - bleve's vector search needs cgo (FAISS): with CGO_ENABLED=0 it would
//     index the text only, and the vectors would still need segments of
//     our own, with two commit points (bleve's and ours) to keep consistent
//     after a crash, which is the hard part of the design.
//   - Its BM25 is not FTS5's and loses quality: the mean document length is
//     taken as distinct terms over documents (rounded up), lengths are
//     quantized norms, idf is Lucene's, and disjunctions are scaled by a
//     coord factor (matched clauses over all) and a query norm. On the
//     SciFact train split, plain BM25 gave nDCG@10 0.6950 against our
//     0.7094 (hybrid 0.6970 against 0.7100); with our pseudo-relevance
//     feedback, whose 20 extra clauses the coord factor penalises, 0.5917
//     against 0.7163.
//   - It is slower here: see the figures in BENCHMARKS.md (build, query,
//     and one change, at 100k and a million chunks).
package index
