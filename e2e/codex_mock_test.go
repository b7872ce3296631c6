//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// responsesMock is a scripted mock of the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events) for the Codex CLI,
// on 127.0.0.1. It answers by the first rule that matches:
//
//   - a remote compaction (provider named "OpenAI": the last input is a
//     compaction_trigger) gets one encrypted compaction item;
//   - a local compaction request (x-codex-turn-metadata request_kind
//     "compaction") gets the summary codexSummary;
//   - a request whose last input is a tool's output gets
//     "AFTER-TOOL: <output>";
//   - a request whose input holds bottle's pointer (a developer message)
//     with no read_bottle call after it gets a call of
//     mcp__bottle.read_bottle for the session the pointer names, as a
//     model that follows the pointer makes;
//   - "CALL_SHELL:<cmd>" in the newest user message gets an exec_command
//     call, "CALL_TOOL:<namespace>.<name>:<json>" a call of that tool;
//   - anything else gets "REPLY: <the prompt's first line>".
//
// A prompt with BIG_USAGE makes the answer report 190,000 input tokens, so
// that Codex (with model_auto_compact_token_limit) compacts before its next
// request; not once a compaction or the pointer follows the prompt, so that
// the requests after a compaction do not compact again.
type responsesMock struct {
	t   *testing.T
	srv *http.Server
	url string

	mu   sync.Mutex
	n    int
	reqs []codexRequest
}

// codexRequest is one request the mock got.
type codexRequest struct {
	kind  string // x-codex-turn-metadata request_kind
	body  map[string]any
	reply string // what the mock answered: text or the tool it called
}

const codexSummary = "CODEX-SUMMARY-6161: the user ran a shell check and listed bottle's sessions."

func startResponsesMock(t *testing.T) *responsesMock {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &responsesMock{t: t, url: "http://" + ln.Addr().String() + "/v1"}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

func (m *responsesMock) requests() []codexRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]codexRequest(nil), m.reqs...)
}

func (m *responsesMock) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.Error(w, `{"error":{"message":"mock serves POST /v1/responses only"}}`, http.StatusNotFound)
		return
	}
	data, err := io.ReadAll(r.Body)
	var body map[string]any
	if err == nil {
		err = json.Unmarshal(data, &body)
	}
	if err != nil {
		http.Error(w, `{"error":{"message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	var meta struct {
		RequestKind string `json:"request_kind"`
	}
	_ = json.Unmarshal([]byte(r.Header.Get("x-codex-turn-metadata")), &meta)
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()

	items, _ := body["input"].([]any)
	user := lastUserText(items)
	tokens := 100
	if strings.Contains(user, "BIG_USAGE") && !compactedSinceUser(items) {
		tokens = 190000
	}
	pointerSession := unreadPointer(items)
	rid := fmt.Sprintf("resp_%d", n)
	var events []map[string]any
	var reply string
	var last map[string]any
	if len(items) > 0 {
		last, _ = items[len(items)-1].(map[string]any)
	}
	switch {
	case last["type"] == "compaction_trigger":
		// Remote compaction: exactly one opaque compaction item.
		reply = "remote compaction"
		item := map[string]any{"type": "compaction", "id": "cmp_" + rid, "encrypted_content": "MOCK-ENCRYPTED-" + rid}
		events = []map[string]any{
			{"type": "response.output_item.added", "output_index": 0, "item": item},
			{"type": "response.output_item.done", "output_index": 0, "item": item},
		}
		tokens = 50
	case meta.RequestKind == "compaction":
		reply = codexSummary
		events = textEvents(rid, reply)
		tokens = 50
	case last["type"] == "function_call_output" || last["type"] == "custom_tool_call_output":
		reply = "AFTER-TOOL: " + outputString(last["output"])
		events = textEvents(rid, reply)
	case pointerSession != "":
		args, _ := json.Marshal(map[string]any{"session_id": pointerSession})
		reply = "call mcp__bottle.read_bottle"
		events = callEvents(rid, "mcp__bottle", "read_bottle", string(args))
	default:
		for _, line := range strings.Split(user, "\n") {
			line = strings.TrimSpace(line)
			if cmd, ok := strings.CutPrefix(line, "CALL_SHELL:"); ok {
				args, _ := json.Marshal(map[string]any{"cmd": strings.TrimSpace(cmd), "yield_time_ms": 2000})
				reply = "call exec_command"
				events = callEvents(rid, "", "exec_command", string(args))
				break
			}
			if rest, ok := strings.CutPrefix(line, "CALL_TOOL:"); ok {
				name, args, _ := strings.Cut(rest, ":")
				ns, fn, _ := strings.Cut(name, ".")
				if args == "" {
					args = "{}"
				}
				reply = "call " + name
				events = callEvents(rid, ns, fn, args)
				break
			}
		}
		if events == nil {
			first, _, _ := strings.Cut(strings.TrimSpace(user), "\n")
			reply = "REPLY: " + first
			events = textEvents(rid, reply)
		}
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, codexRequest{kind: meta.RequestKind, body: body, reply: reply})
	m.mu.Unlock()

	var output []any
	for _, e := range events {
		if e["type"] == "response.output_item.done" {
			output = append(output, e["item"])
		}
	}
	all := append([]map[string]any{{"type": "response.created", "response": map[string]any{"id": rid, "object": "response", "status": "in_progress", "output": []any{}}}},
		events...)
	all = append(all, map[string]any{"type": "response.completed", "response": map[string]any{
		"id": rid, "object": "response", "status": "completed", "output": output,
		"usage": map[string]any{"input_tokens": tokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": tokens + 10}}})
	var sse strings.Builder
	for _, e := range all {
		b, _ := json.Marshal(e)
		fmt.Fprintf(&sse, "event: %s\ndata: %s\n\n", e["type"], b)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", fmt.Sprint(sse.Len()))
	io.WriteString(w, sse.String())
}

// lastUserText is the text of the newest user message of a request's input.
func lastUserText(items []any) string {
	for i := len(items) - 1; i >= 0; i-- {
		it, _ := items[i].(map[string]any)
		if it["type"] != nil && it["type"] != "message" || it["role"] != "user" {
			continue
		}
		return contentText(it["content"])
	}
	return ""
}

// pointerHead opens bottle's pointer; pointerSessionRE finds the session
// it names.
const pointerHead = "# [bottle] Endless Mode"

var pointerSessionRE = regexp.MustCompile(`\(session ([0-9a-f-]{36})\)`)

// unreadPointer is the session named by the newest developer message
// holding bottle's pointer when no read_bottle call follows it, else "".
func unreadPointer(items []any) string {
	for i := len(items) - 1; i >= 0; i-- {
		it, _ := items[i].(map[string]any)
		if it["type"] == "function_call" && it["name"] == "read_bottle" {
			return ""
		}
		if it["role"] == "developer" {
			if m := pointerSessionRE.FindStringSubmatch(contentText(it["content"])); m != nil && strings.Contains(contentText(it["content"]), pointerHead) {
				return m[1]
			}
		}
	}
	return ""
}

// compactedSinceUser reports whether a compaction (its item, or the
// summary Codex hands on) or bottle's pointer follows the newest user
// message that is not a summary.
func compactedSinceUser(items []any) bool {
	for i := len(items) - 1; i >= 0; i-- {
		it, _ := items[i].(map[string]any)
		text := contentText(it["content"])
		switch {
		case it["type"] == "compaction", it["role"] == "developer" && strings.Contains(text, pointerHead):
			return true
		case it["role"] == "user" && strings.Contains(text, codexSummary):
			return true
		case it["role"] == "user":
			return false
		}
	}
	return false
}

// contentText joins the text parts of a message's content.
func contentText(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	var parts []string
	list, _ := c.([]any)
	for _, p := range list {
		if pm, ok := p.(map[string]any); ok {
			if s, ok := pm["text"].(string); ok {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// outputString is a tool output as text.
func outputString(o any) string {
	if s, ok := o.(string); ok {
		return s
	}
	return contentText(o)
}

func textEvents(rid, text string) []map[string]any {
	id := "msg_" + rid
	done := map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	return []map[string]any{
		{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}},
		{"type": "response.content_part.added", "item_id": id, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}},
		{"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": text},
		{"type": "response.output_text.done", "item_id": id, "output_index": 0, "content_index": 0, "text": text},
		{"type": "response.output_item.done", "output_index": 0, "item": done},
	}
}

func callEvents(rid, namespace, name, args string) []map[string]any {
	item := map[string]any{"type": "function_call", "id": "fc_" + rid, "call_id": "call_" + rid, "name": name, "arguments": args, "status": "completed"}
	if namespace != "" {
		item["namespace"] = namespace
	}
	added := map[string]any{}
	for k, v := range item {
		added[k] = v
	}
	added["arguments"], added["status"] = "", "in_progress"
	return []map[string]any{
		{"type": "response.output_item.added", "output_index": 0, "item": added},
		{"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0, "arguments": args},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
	}
}

// toolNames lists the tools a request offers; a namespace's as "ns.name".
func toolNames(body map[string]any) []string {
	var names []string
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		if tm["type"] == "namespace" {
			subs, _ := tm["tools"].([]any)
			for _, s := range subs {
				sm, _ := s.(map[string]any)
				names = append(names, fmt.Sprint(tm["name"], ".", sm["name"]))
			}
			continue
		}
		names = append(names, fmt.Sprint(tm["name"]))
	}
	return names
}
