package openaicompat

import (
	"io"
	"strings"
)

// Redacted replaces a scrubbed key.
const Redacted = "[redacted]"

// minScrubKey is the shortest key scrubbed from answers: shorter
// placeholders ("ollama", "none") are words an answer may rightly hold.
const minScrubKey = 8

// ScrubKey replaces every occurrence of key in s (text a server sent back:
// an answer may quote the Authorization header it saw) with Redacted.
// Keys shorter than 8 bytes are placeholders and are left alone.
func ScrubKey(s, key string) string {
	if len(key) < minScrubKey || !strings.Contains(s, key) {
		return s
	}
	return strings.ReplaceAll(s, key, Redacted)
}

// Scrubber removes a key from a stream of text however it is cut into
// writes: a tail that may be the start of the key is held until the next
// write (or Flush) shows it is not. Not safe for concurrent use.
type Scrubber struct {
	W    io.Writer
	Key  string
	held string
}

// Write scrubs p (with what was held) and writes what is certain to W.
func (s *Scrubber) Write(p []byte) (int, error) {
	if len(s.Key) < minScrubKey {
		return s.W.Write(p)
	}
	buf := ScrubKey(s.held+string(p), s.Key)
	keep := partialKeyAtEnd(buf, s.Key)
	s.held = buf[len(buf)-keep:]
	if out := buf[:len(buf)-keep]; out != "" {
		if _, err := io.WriteString(s.W, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held.
func (s *Scrubber) Flush() error {
	h := s.held
	s.held = ""
	if h == "" {
		return nil
	}
	_, err := io.WriteString(s.W, h)
	return err
}

// partialKeyAtEnd is the length of the longest suffix of s that is a proper
// prefix of key.
func partialKeyAtEnd(s, key string) int {
	for n := min(len(key)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, key[:n]) {
			return n
		}
	}
	return 0
}
