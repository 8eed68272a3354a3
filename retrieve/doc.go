// Package retrieve finds the passages of a library that match a query:
// hybrid search (Retriever: BM25 with pseudo-relevance feedback fused with
// dense similarity, see Fusion), the embedder a library's vectors were made
// with (LibraryEmbedder, UseEmbedder), Search (both, with a retry across a
// concurrent reindex) and the snippets search shows (MakeSnippet).
//
// Passage is the unit that search prints and that answers (package ask)
// cite. The library is read through the small Index interface declared
// here; *store.Library satisfies it.
package retrieve
