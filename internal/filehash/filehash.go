// Package filehash names a file by its content: the SHA-256 of its bytes,
// the identity the library gives PDFs (a renamed or copied file is the
// same paper; arXiv's PDF and a local copy of it are one).
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// SHA256 returns the SHA-256 of the file at path, in lower-case hex. The
// file is streamed, not read into memory.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
