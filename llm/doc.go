// Package llm is the language model client: the LLM interface (one chat
// completion at a time) and its implementation for any OpenAI-compatible
// server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio) through go-openai,
// chosen by ResolveLLM from an LLMConfig.
//
// Errors callers branch on are the sentinels ErrNoAPIKey, ErrUnauthorized,
// ErrModelNotFound, ErrContextTooLong, ErrUnreachable, ErrRateLimited,
// ErrQuota, ErrServer, ErrTimeout, ErrStreamBroken, ErrBadRequest,
// ErrBadReply, ErrEmptyReply and ErrTooLong (matched with errors.Is): the
// kinds of the one error model of OpenAI-compatible servers
// (internal/openaicompat), shared with the embedders. The error carries
// the server, the model, the HTTP status and the server's message, and its
// Hint names the fix, so every front end gives the same advice.
package llm
