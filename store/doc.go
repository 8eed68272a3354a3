// Package store owns the library on disk: papers, chunks, vectors and the
// manifest in one SQLite file (modernc.org/sqlite, WAL), plus the in-memory
// index built from the stored vectors for dense search.
//
// The SQLite file is the store of record; the vector index (and its sidecar
// file) is only a cache rebuilt from it, so a torn index can never lose data.
package store
