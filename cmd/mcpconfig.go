package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// mcpClients are the clients --print-config writes a configuration for.
var mcpClients = []string{"claude", "cursor", "vscode", "zed"}

// mcpServer is one server entry of a client's configuration: the command
// with absolute paths, so that a client started from a desktop (which
// does not read the shell's PATH) finds it.
type mcpServer struct {
	Type    string            `json:"type,omitempty"` // VS Code's "stdio"
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// mcpPlace says where a client reads its configuration on an OS.
type mcpPlace struct {
	os, home, appData string // GOOS, the home directory, %APPDATA% on Windows
}

// mcpConfig returns the configuration snippet of client for a server
// running bin with args on the library dir, and where the client's
// configuration file is (with how to open it when the client has a
// command for it).
func mcpConfig(client, bin string, args []string, dir string, at mcpPlace) ([]byte, string, error) {
	srv := mcpServer{Command: bin, Args: args, Env: map[string]string{"PAPERS_HOME": dir}}
	var doc any
	var where string
	join := filepath.Join
	if at.os == "windows" {
		join = func(parts ...string) string { return strings.Join(parts, `\`) }
	}
	switch client {
	case "claude":
		doc = map[string]any{"mcpServers": map[string]mcpServer{"papers": srv}}
		switch at.os {
		case "darwin":
			where = join(at.home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
		case "windows":
			where = join(at.appData, "Claude", "claude_desktop_config.json")
		default:
			where = join(at.home, ".config", "Claude", "claude_desktop_config.json") + " (Claude Desktop has no official Linux build; this is where the community builds read it)"
		}
		where += "; or, for Claude Code: claude mcp add papers --env PAPERS_HOME=" + shellArg(dir) + " -- " + shellArg(bin) + " " + strings.Join(args, " ")
	case "cursor":
		doc = map[string]any{"mcpServers": map[string]mcpServer{"papers": srv}}
		where = join(at.home, ".cursor", "mcp.json") + " (every project), or .cursor" + sep(at) + "mcp.json in a project"
	case "vscode":
		srv.Type = "stdio"
		doc = map[string]any{"servers": map[string]mcpServer{"papers": srv}}
		var user string
		switch at.os {
		case "darwin":
			user = join(at.home, "Library", "Application Support", "Code", "User", "mcp.json")
		case "windows":
			user = join(at.appData, "Code", "User", "mcp.json")
		default:
			user = join(at.home, ".config", "Code", "User", "mcp.json")
		}
		where = ".vscode" + sep(at) + "mcp.json in a workspace, or " + user + " for every workspace (command palette: MCP: Open User Configuration)"
	case "zed":
		doc = map[string]any{"context_servers": map[string]mcpServer{"papers": srv}}
		if at.os == "windows" {
			where = join(at.appData, "Zed", "settings.json")
		} else {
			where = join(at.home, ".config", "zed", "settings.json")
		}
		where += " (command palette: zed: open settings), beside the settings already there"
	default:
		return nil, "", fmt.Errorf("unknown MCP client %q: want %s", client, strings.Join(mcpClients, ", "))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, "", err
	}
	return b.Bytes(), where, nil
}

func sep(at mcpPlace) string {
	if at.os == "windows" {
		return `\`
	}
	return "/"
}

// printMCPConfig prints the configuration of client for this binary and
// library on stdout, and where it goes on stderr.
func printMCPConfig(o *mcpOptions, client string) error {
	bin, err := os.Executable()
	if err != nil {
		return withHint(fmt.Errorf("find the papers binary: %w", err), "write the configuration by hand, with the absolute path of papers as command")
	}
	if b, err := filepath.EvalSymlinks(bin); err == nil {
		bin = b
	}
	dir, err := o.libraryDir()
	if err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	args := []string{"mcp"}
	if o.offline {
		args = append([]string{"--offline"}, args...)
	}
	args = append(args, o.serverArgs...)
	snippet, where, err := mcpConfig(client, bin, args, dir, mcpPlace{os: runtime.GOOS, home: home, appData: os.Getenv("APPDATA")})
	if err != nil {
		return withHint(withExit(err, ExitUsage), "papers mcp --print-config claude (or cursor, vscode, zed)")
	}
	if _, err := o.io.Out.Write(snippet); err != nil {
		return err
	}
	fmt.Fprintf(o.io.ErrOut, "add this to %s\n", where)
	fmt.Fprintln(o.io.ErrOut, "(merge it into the file's JSON; a model for ask and digest: add OPENAI_API_KEY or PAPERS_LLM to env)")
	return nil
}

// mcpServerArgs are the flags of papers mcp that a printed configuration
// keeps, as given.
func mcpServerArgs(set func(name string) (string, bool)) []string {
	var out []string
	names := []string{"read-only", "llm", "extractive", "workers", "first-token-timeout", "idle-timeout", "max-cost"}
	sort.Strings(names)
	for _, n := range names {
		v, ok := set(n)
		if !ok {
			continue
		}
		if v == "true" {
			out = append(out, "--"+n)
		} else {
			out = append(out, "--"+n+"="+v)
		}
	}
	return out
}
