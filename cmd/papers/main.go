// Command papers is a command-line research assistant: it builds a personal
// library of research papers and answers questions about them with citations.
package main

import (
	"os"

	"github.com/papers-cli/papers/cmd"
)

func main() { os.Exit(cmd.Main()) }
