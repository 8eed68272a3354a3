package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPConfig: each client's snippet has the absolute binary, the
// arguments and the library, in the client's own shape, and names where
// the client reads it on each system.
func TestMCPConfig(t *testing.T) {
	linux := mcpPlace{os: "linux", home: "/home/ada"}
	mac := mcpPlace{os: "darwin", home: "/Users/ada"}
	win := mcpPlace{os: "windows", home: `C:\Users\ada`, appData: `C:\Users\ada\AppData\Roaming`}
	for _, c := range []struct {
		client, key string
		at          mcpPlace
		where       string
		typ         string
	}{
		{"claude", "mcpServers", mac, "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json", ""},
		{"claude", "mcpServers", win, `C:\Users\ada\AppData\Roaming\Claude\claude_desktop_config.json`, ""},
		{"claude", "mcpServers", linux, "/home/ada/.config/Claude/claude_desktop_config.json", ""},
		{"cursor", "mcpServers", linux, "/home/ada/.cursor/mcp.json", ""},
		{"cursor", "mcpServers", win, `C:\Users\ada\.cursor\mcp.json`, ""},
		{"vscode", "servers", mac, "/Users/ada/Library/Application Support/Code/User/mcp.json", "stdio"},
		{"vscode", "servers", linux, "/home/ada/.config/Code/User/mcp.json", "stdio"},
		{"vscode", "servers", win, `C:\Users\ada\AppData\Roaming\Code\User\mcp.json`, "stdio"},
		{"zed", "context_servers", mac, "/Users/ada/.config/zed/settings.json", ""},
		{"zed", "context_servers", win, `C:\Users\ada\AppData\Roaming\Zed\settings.json`, ""},
	} {
		t.Run(c.client+"/"+c.at.os, func(t *testing.T) {
			b, where, err := mcpConfig(c.client, "/opt/papers/bin/papers", []string{"mcp", "--read-only"}, "/data/lab library", c.at)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]map[string]mcpServer
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			s, ok := doc[c.key]["papers"]
			if !ok || len(doc) != 1 {
				t.Fatalf("no %s.papers in %s", c.key, b)
			}
			if s.Command != "/opt/papers/bin/papers" || strings.Join(s.Args, " ") != "mcp --read-only" || s.Env["PAPERS_HOME"] != "/data/lab library" || s.Type != c.typ {
				t.Errorf("server %+v", s)
			}
			if !strings.Contains(where, c.where) {
				t.Errorf("where = %q, want it to name %q", where, c.where)
			}
		})
	}
	if _, _, err := mcpConfig("emacs", "/p", []string{"mcp"}, "/d", mac); err == nil || !strings.Contains(err.Error(), "claude, cursor, vscode, zed") {
		t.Errorf("an unknown client: %v", err)
	}
	_, where, _ := mcpConfig("claude", "/opt/papers", []string{"mcp"}, "/d", linux)
	if !strings.Contains(where, "claude mcp add papers --env PAPERS_HOME=/d -- /opt/papers mcp") {
		t.Errorf("no Claude Code command in %q", where)
	}
}
