package cmd

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

//go:generate env PAPERS_UPDATE_DOCS=1 go test -run TestCommandDocsAreCurrent .

// CommandDocs returns the command reference of docs/commands: a page per
// command (papers_ingest.md, papers_topic_add.md, ...), each its --help as
// papers prints it, and README.md listing them. They are made from the
// command tree itself, so they cannot say anything --help does not
// (TestCommandDocsAreCurrent fails when the files differ; go generate
// ./cmd rewrites them).
func CommandDocs() map[string]string {
	root := NewRoot(NewIOStreams(strings.NewReader(""), io.Discard, io.Discard))
	pages := map[string]string{}
	var index strings.Builder
	index.WriteString("# Command reference\n\nEvery command's `--help`, generated from the command tree (`go generate ./cmd`;\na test fails when these pages and the commands differ).\n\n| command | what it does |\n|---|---|\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
		var help bytes.Buffer
		c.SetOut(&help)
		c.SetErr(&help)
		if err := c.Help(); err != nil {
			fmt.Fprintf(&help, "(help failed: %v)\n", err)
		}
		var page strings.Builder
		fmt.Fprintf(&page, "# %s\n\n%s\n\n```text\n%s```\n", c.CommandPath(), c.Short, strings.TrimRight(help.String(), "\n")+"\n")
		if c.HasAvailableSubCommands() {
			page.WriteString("\nCommands:\n\n")
			for _, sub := range c.Commands() {
				if !sub.Hidden && sub.Name() != "help" {
					fmt.Fprintf(&page, "- [%s](%s)\n", sub.CommandPath(), strings.ReplaceAll(sub.CommandPath(), " ", "_")+".md")
				}
			}
		}
		pages[name] = page.String()
		fmt.Fprintf(&index, "| [`%s`](%s) | %s |\n", c.CommandPath(), name, c.Short)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	pages["README.md"] = index.String()
	return pages
}
