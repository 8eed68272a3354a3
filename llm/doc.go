// Package llm is the language model client: the LLM interface (one chat
// completion at a time) and its implementation for any OpenAI-compatible
// server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio) through go-openai,
// chosen by ResolveLLM from an LLMConfig.
//
// Errors callers branch on are the sentinels ErrNoAPIKey, ErrUnauthorized,
// ErrModelNotFound, ErrContextTooLong, ErrUnreachable, ErrRateLimited,
// ErrQuota, ErrServer, ErrTimeout, ErrStreamBroken, ErrBadRequest,
// ErrBadReply, ErrEmptyReply and ErrTooLong, carried by *LLMError (matched
// with errors.Is), or the context's error.
package llm
