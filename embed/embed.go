// Package embed turns text into vectors. It defines the Embedder contract,
// the offline default and the OpenAI-compatible provider.
package embed

import "context"

// Embedder maps text to normalised vectors of a fixed dimension.
//
// Queries and documents are embedded through separate methods because some
// models need different prefixes for each (nomic "search_query:", e5
// "query:"/"passage:"). Implementations are safe for concurrent use.
type Embedder interface {
	// Name identifies the embedder and its configuration for the library's
	// manifest, e.g. "local/hash-v1" or "openai/text-embedding-3-small".
	// Vectors made by embedders with different names never mix.
	Name() string
	// Dimensions is the length of every vector returned.
	Dimensions() int
	// EmbedDocuments returns one unit-length vector per text, in order.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the unit-length vector of a search query.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}
