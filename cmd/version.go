package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

// buildInfo is what papers version prints: the version, and the commit the
// binary was built from as the Go toolchain recorded it (go build in a git
// checkout; go install module@version records the version only).
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`   // "" when not recorded
	Time     string `json:"time"`     // the commit's time, RFC 3339; "" when not recorded
	Modified bool   `json:"modified"` // built from a tree with uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readBuildInfo reads the binary's build information.
func readBuildInfo() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return infoOf(bi)
}

// infoOf is the buildInfo of bi (nil: none recorded).
func infoOf(bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the line papers version prints.
func (b buildInfo) String() string {
	s := "papers " + b.Version
	switch {
	case b.Commit == "":
		s += " (commit not recorded)"
	default:
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Time != "" {
			c += " of " + b.Time
		}
		if b.Modified {
			c += ", with uncommitted changes"
		}
		s += " (commit " + c + ")"
	}
	return s + ", " + b.Go + " " + b.Platform
}

type versionOptions struct {
	*globalOptions
	json bool
}

func newVersionCmd(g *globalOptions) *cobra.Command {
	o := &versionOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version of papers and the commit it was built from",
		Long: `Print the version of papers, the commit it was built from and that
commit's time (recorded by go build in a git checkout; a binary built
without them says so), the Go version and the platform.`,
		Example: `  papers version
  papers version --json | jq -r .commit`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			b := readBuildInfo()
			if o.json {
				return writeJSON(o.io.Out, b)
			}
			_, err := fmt.Fprintln(o.io.Out, b)
			return err
		},
	}
	addJSON(c, &o.json, `print {"version","commit","time","modified","go","platform"}`)
	return c
}
