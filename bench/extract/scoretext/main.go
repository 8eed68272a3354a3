// Command scoretext scores extracted texts against reference texts with
// ingest/pdf/score: scoretext OURS.txt REF.txt prints "wordF1 bigramF1".
package main

import (
	"fmt"
	"os"

	"github.com/papers-cli/papers/ingest/pdf/score"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: scoretext OURS.txt REF.txt")
		os.Exit(2)
	}
	a, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := score.Compare(string(a), string(b))
	fmt.Printf("%.3f %.3f\n", r.WordF1, r.BigramF1)
}
