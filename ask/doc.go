// Package ask owns answering from the library: retrieval of passages
// (Retriever: hybrid BM25 + dense search), the answer itself (Answer: by a
// language model through the LLM interface, or extracted offline from the
// passages' sentences), the citations' checks and the Sources list.
//
// The flow is one way: Retrieve returns []Passage; Answer turns them and a
// question into a Result (the --json document of `papers ask`) while writing
// the answer for people to an io.Writer as it is produced. Prompts come from
// package prompts; the model is any OpenAI-compatible server through the
// OpenAI adapter (go-openai), chosen by ResolveLLM.
//
// Errors callers branch on are exported: ErrNoEvidence (abstain, exit 3),
// ErrNeedsModel, and the model errors ErrNoAPIKey, ErrUnauthorized,
// ErrModelNotFound, ErrContextTooLong, ErrUnreachable, ErrRateLimited,
// ErrQuota, ErrServer, ErrTimeout, ErrStreamBroken, ErrBadRequest, carried by
// *LLMError.
package ask
