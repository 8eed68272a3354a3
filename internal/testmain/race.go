//go:build race

package testmain

// Race is set when the binary is built with the race detector (-race),
// which makes SQLite (C translated to Go), PDF content walks and embedding
// some tenfold slower: the data-driven tests then take a slice of their
// data, each against its own floors (see Full).
const Race = true
