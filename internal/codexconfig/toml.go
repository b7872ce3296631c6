package codexconfig

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// ServerName is the name bottle's MCP server is registered under: the model
// sees its tools in the namespace mcp__bottle.
const ServerName = "bottle"

// header is a table header of a TOML document.
type header struct {
	keys  []string
	start int // offset of the header line's first byte
}

// headers lists data's table headers in order. data must parse.
func headers(data []byte) ([]header, error) {
	var p unstable.Parser
	p.Reset(data)
	var out []header
	for p.NextExpression() {
		n := p.Expression()
		if n.Kind != unstable.Table && n.Kind != unstable.ArrayTable {
			continue
		}
		var h header
		it := n.Key()
		for it.Next() {
			k := it.Node()
			if len(h.keys) == 0 {
				h.start = bytes.LastIndexByte(data[:k.Raw.Offset], '\n') + 1
			}
			h.keys = append(h.keys, string(k.Data))
		}
		out = append(out, h)
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	return out, nil
}

// region is a byte range [start, end) of a document.
type region struct{ start, end int }

// regions are the ranges of the tables whose keys match: from the header
// line to the next header, less the blank and comment lines just before
// that header (they introduce the next table, not this one).
func regions(data []byte, hs []header, match func(keys []string) bool) []region {
	var out []region
	for i, h := range hs {
		if !match(h.keys) {
			continue
		}
		end := len(data)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		end = trimTrailingTrivia(data, h.start, end)
		if n := len(out); n > 0 && out[n-1].end >= h.start-0 && onlyTrivia(data[out[n-1].end:h.start]) {
			out[n-1].end = end // a sub-table right after its table: one region
			continue
		}
		out = append(out, region{h.start, end})
	}
	return out
}

// trimTrailingTrivia moves end back over whole blank and comment lines,
// never before the line after start's header.
func trimTrailingTrivia(data []byte, start, end int) int {
	first := bytes.IndexByte(data[start:end], '\n')
	if first < 0 {
		return end
	}
	min := start + first + 1
	for end > min {
		prev := bytes.LastIndexByte(data[min:end-1], '\n')
		lineStart := min
		if prev >= 0 {
			lineStart = min + prev + 1
		}
		line := bytes.TrimSpace(data[lineStart:end])
		if len(line) != 0 && line[0] != '#' {
			break
		}
		end = lineStart
	}
	return end
}

func onlyTrivia(b []byte) bool {
	for _, line := range bytes.Split(b, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

// parse decodes a config.toml, or says in one line where it is broken.
func parse(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("invalid TOML at line %d, column %d: %s", line, col, strings.TrimSpace(de.Error()))
		}
		return nil, fmt.Errorf("invalid TOML: %w", err)
	}
	return doc, nil
}

// lookup follows keys through nested tables.
func lookup(doc map[string]any, keys ...string) (any, bool) {
	var cur any = doc
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// newline is the file's line end: CRLF when its first line ends so.
func newline(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// quote is s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// splice replaces the regions of data by block (at the first region's
// place, or appended after a blank line when there is none; "" removes).
func splice(data []byte, rs []region, block string) []byte {
	var out bytes.Buffer
	if len(rs) == 0 {
		if block == "" {
			return data
		}
		out.Write(data)
		if len(data) > 0 {
			nl := newline(data)
			if !bytes.HasSuffix(data, []byte("\n")) {
				out.WriteString(nl)
			}
			if !bytes.HasSuffix(bytes.TrimRight(data, " \t"), []byte(nl+nl)) {
				out.WriteString(nl)
			}
		}
		out.WriteString(block)
		return out.Bytes()
	}
	prev := 0
	for i, r := range rs {
		out.Write(data[prev:r.start])
		if i == 0 {
			out.WriteString(block)
		}
		prev = r.end
	}
	out.Write(data[prev:])
	res := out.Bytes()
	if block == "" {
		// A removal leaves no run of blank lines where the table was.
		nl := newline(data)
		res = collapseBlank(res, nl)
		if rs[len(rs)-1].end == len(data) {
			// The blank line install put before a table at the end goes too.
			for bytes.HasSuffix(res, []byte(nl+nl)) {
				res = res[:len(res)-len(nl)]
			}
		}
	}
	return res
}

// collapseBlank turns three line ends in a row into two.
func collapseBlank(b []byte, nl string) []byte {
	three := []byte(nl + nl + nl)
	for bytes.Contains(b, three) {
		b = bytes.ReplaceAll(b, three, []byte(nl+nl))
	}
	return b
}

// isServerTable matches [mcp_servers.bottle] and its sub-tables.
func isServerTable(keys []string) bool {
	return len(keys) >= 2 && keys[0] == "mcp_servers" && keys[1] == ServerName
}

// serverBlock is bottle's [mcp_servers.bottle] table.
func serverBlock(mcpserver, nl string) string {
	return "[mcp_servers." + ServerName + "]" + nl +
		"command = " + quote(mcpserver) + nl +
		// The server words its pointers for the host that starts it.
		"args = [" + quote("--host") + ", " + quote("codex") + "]" + nl +
		// Rendering a long session can take more than Codex's default.
		"tool_timeout_sec = 120" + nl
}

// InstallServer registers bottle's MCP server, running mcpserver, in a
// config.toml (nil or empty for a new file).
func InstallServer(data []byte, mcpserver string) ([]byte, []string, error) {
	return editServer(data, mcpserver)
}

// UninstallServer removes bottle's MCP server from a config.toml.
func UninstallServer(data []byte) ([]byte, []string, error) {
	return editServer(data, "")
}

func editServer(data []byte, mcpserver string) ([]byte, []string, error) {
	doc, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	hs, err := headers(data)
	if err != nil {
		return nil, nil, err
	}
	rs := regions(data, hs, isServerTable)
	if _, defined := lookup(doc, "mcp_servers", ServerName); defined && len(rs) == 0 {
		return nil, nil, fmt.Errorf("mcp_servers.%s is defined outside a [mcp_servers.%s] table; edit or remove it by hand first", ServerName, ServerName)
	}
	block, label := "", "mcp_servers."+ServerName
	if mcpserver != "" {
		block = serverBlock(mcpserver, newline(data))
	}
	var old string
	for _, r := range rs {
		old += string(data[r.start:r.end])
	}
	if old == block || (len(rs) == 1 && strings.TrimRight(old, "\r\n") == strings.TrimRight(block, "\r\n")) {
		return data, nil, nil
	}
	out := splice(data, rs, block)
	after, err := parse(out)
	if err != nil {
		return nil, nil, fmt.Errorf("the edited file would not parse (%v); edit [mcp_servers.%s] by hand", err, ServerName)
	}
	got, _ := lookup(after, "mcp_servers", ServerName, "command")
	switch {
	case mcpserver != "" && got != mcpserver:
		return nil, nil, fmt.Errorf("the edited file would not register %s; edit [mcp_servers.%s] by hand", mcpserver, ServerName)
	case mcpserver == "" && got != nil:
		return nil, nil, fmt.Errorf("mcp_servers.%s is still defined after the edit; remove it by hand", ServerName)
	}
	var notes []string
	switch {
	case mcpserver == "":
		notes = append(notes, "- "+label)
	case len(rs) == 0:
		notes = append(notes, fmt.Sprintf("+ %s: %s", label, mcpserver))
	default:
		notes = append(notes, fmt.Sprintf("~ %s: now %s", label, mcpserver))
	}
	return out, notes, nil
}

// Trust is a hook's trust entry: Codex's key of the hook and the hash it
// trusts, as codex app-server's hooks/list reports it ("currentHash"). A
// plugin's hook has two hashes, "<hook>/<plugin bundle>": Codex keeps them
// as trusted_hash and trusted_content_hash.
type Trust struct {
	Key  string
	Hash string
}

// split is the entry's hashes as config.toml holds them.
func (t Trust) split() (hook, content string) {
	hook, content, _ = strings.Cut(t.Hash, "/")
	return hook, content
}

// SetTrust writes [hooks.state."<key>"] trusted_hash = "<hash>" for each
// entry, replacing those tables when they exist, and removes the tables of
// the keys in drop (bottle's hooks that no longer exist).
func SetTrust(data []byte, entries []Trust, drop []string) ([]byte, []string, error) {
	if _, err := parse(data); err != nil {
		return nil, nil, err
	}
	nl := newline(data)
	out := data
	var notes []string
	edit := func(key, block string) error {
		hs, err := headers(out)
		if err != nil {
			return err
		}
		rs := regions(out, hs, func(k []string) bool {
			return len(k) == 3 && k[0] == "hooks" && k[1] == "state" && k[2] == key
		})
		var old string
		for _, r := range rs {
			old += string(out[r.start:r.end])
		}
		if strings.TrimRight(old, "\r\n") == strings.TrimRight(block, "\r\n") {
			return nil
		}
		out = splice(out, rs, block)
		switch {
		case block == "":
			notes = append(notes, "- hooks.state: "+key)
		default:
			notes = append(notes, "+ hooks.state: "+key+" trusted")
		}
		return nil
	}
	for _, t := range entries {
		hook, content := t.split()
		block := "[hooks.state." + quote(t.Key) + "]" + nl + "trusted_hash = " + quote(hook) + nl
		if content != "" {
			block += "trusted_content_hash = " + quote(content) + nl
		}
		if err := edit(t.Key, block); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range drop {
		if err := edit(k, ""); err != nil {
			return nil, nil, err
		}
	}
	after, err := parse(out)
	if err != nil {
		return nil, nil, fmt.Errorf("the edited file would not parse (%v); edit [hooks.state] by hand", err)
	}
	for _, t := range entries {
		hook, _ := t.split()
		if got, _ := lookup(after, "hooks", "state", t.Key, "trusted_hash"); got != hook {
			return nil, nil, fmt.Errorf("hooks.state %q is defined outside its own table; edit it by hand", t.Key)
		}
	}
	return out, notes, nil
}

// TrustedHashes returns the trusted hash of every [hooks.state] key, in
// hooks/list's form: "<trusted_hash>/<trusted_content_hash>" for a
// plugin's hook.
func TrustedHashes(data []byte) (map[string]string, error) {
	doc, err := parse(data)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	state, _ := lookup(doc, "hooks", "state")
	m, _ := state.(map[string]any)
	for k, v := range m {
		if t, ok := v.(map[string]any); ok {
			if h, ok := t["trusted_hash"].(string); ok {
				if c, ok := t["trusted_content_hash"].(string); ok && c != "" {
					h += "/" + c
				}
				out[k] = h
			}
		}
	}
	return out, nil
}

// ServerCommand returns the command of the bottle server registered in a
// config.toml, "" when none is.
func ServerCommand(data []byte) (string, error) {
	doc, err := parse(data)
	if err != nil {
		return "", err
	}
	cmd, _ := lookup(doc, "mcp_servers", ServerName, "command")
	s, _ := cmd.(string)
	return s, nil
}

// ServerHostFlag reports whether the bottle server registered in a
// config.toml is started with --host codex (its args), which words its
// pointers for Codex; an install before the flag lacks it.
func ServerHostFlag(data []byte) (bool, error) {
	doc, err := parse(data)
	if err != nil {
		return false, err
	}
	args, _ := lookup(doc, "mcp_servers", ServerName, "args")
	list, _ := args.([]any)
	for i := 0; i+1 < len(list); i++ {
		if list[i] == "--host" && list[i+1] == "codex" {
			return true, nil
		}
	}
	return false, nil
}
