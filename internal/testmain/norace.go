//go:build !race

package testmain

// Race is set when the binary is built with the race detector (see
// race.go).
const Race = false
