//go:build !unix

package store

// writeProblem cannot tell why on this system; Open then reports the error
// of the read-write open.
func writeProblem(dir, path string) string { return "" }
