// Package ask owns the answer: given the passages retrieval found (package
// retrieve) and a question, it writes an answer with citations, by a
// language model (package llm) or extracted offline from the passages'
// sentences, checks the citations and lists the Sources.
//
// The flow is one way: Ask (or Evidence, then Answer) turns a question and
// a retrieve.Retriever into a Result (the --json document of `papers ask`)
// while writing the answer for people to an io.Writer as it is produced.
// Prompts come from package prompts.
//
// Errors callers branch on are exported: ErrNoEvidence (abstain, exit 3) and
// ErrNeedsModel; the model's own errors are package llm's.
package ask
