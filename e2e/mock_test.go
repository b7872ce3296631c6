package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The mock Messages API. Claude Code, with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
// sends nothing but POST /v1/messages?beta=true with "stream": true
// (as observed with 2.1.332 and 2.1.197); the mock
// answers those from a queue of scripted turns and records every request. It
// doubles as the proxy trap: HTTP(S)_PROXY point at it, and a CONNECT (an
// attempt to reach another host) is recorded and refused.

// reqClass is what a request to the model is for.
type reqClass string

const (
	classMain    reqClass = "main"    // the agent loop: carries tools
	classCompact reqClass = "compact" // the summarisation request of /compact or auto-compaction
	classSide    reqClass = "side"    // a helper call without tools
)

// summaryHints mark the last user message of a compaction request: Claude
// Code's instructions "Your task is to create a detailed summary of the
// conversation so far ...".
var summaryHints = []string{
	"create a detailed summary of the conversation",
	"summary of the conversation so far",
}

// block is one content block of a scripted assistant reply.
type block struct {
	Type  string         `json:"type"`            // "text" or "tool_use"
	Text  string         `json:"text,omitempty"`  // text
	ID    string         `json:"id,omitempty"`    // tool_use; the mock assigns one when empty
	Name  string         `json:"name,omitempty"`  // tool_use
	Input map[string]any `json:"input,omitempty"` // tool_use
}

func text(s string) block { return block{Type: "text", Text: s} }

func toolUse(name string, input map[string]any) block {
	if input == nil {
		input = map[string]any{}
	}
	return block{Type: "tool_use", Name: name, Input: input}
}

// turn is one scripted model reply.
type turn struct {
	name string
	when reqClass
	// reply is the assistant content.
	reply []block
	// inputTokens, when set, is the usage reported: a large value makes
	// Claude Code compact before its next request.
	inputTokens int
	// check runs on the request this turn answers, when it arrives; its
	// error fails the step.
	check func(*request) error
}

// request is one HTTP request the mock received.
type request struct {
	Seq        int
	Step       string
	At         time.Time
	Method     string
	Path       string
	Header     http.Header
	Raw        []byte
	Body       messagesBody
	Class      reqClass
	Turn       string // the scripted turn served, "" when none
	Unscripted bool
	Reply      []block
}

// messagesBody is the part of a Messages API request the test reads.
type messagesBody struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Messages []message `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentBlock is a request content block: text, tool_use or tool_result.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (m message) blocks() []contentBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []contentBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// resultText is a tool_result's text: its string content or its text parts.
func (b contentBlock) resultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []contentBlock
	_ = json.Unmarshal(b.Content, &parts)
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// lastUserText is the text of the request's last user message.
func (r *request) lastUserText() string {
	for i := len(r.Body.Messages) - 1; i >= 0; i-- {
		m := r.Body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var out []string
		for _, b := range m.blocks() {
			switch b.Type {
			case "text":
				out = append(out, b.Text)
			case "tool_result":
				out = append(out, b.resultText())
			}
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// toolResult is the result of one tool call as the model got it.
type toolResult struct {
	ID      string // tool_use id
	Tool    string // the tool's name, when its tool_use is in the conversation
	Input   json.RawMessage
	Text    string
	IsError bool
}

// toolResults returns the tool results in the request's conversation, in
// order.
func (r *request) toolResults() []toolResult {
	uses := map[string]contentBlock{}
	var out []toolResult
	for _, m := range r.Body.Messages {
		for _, b := range m.blocks() {
			switch b.Type {
			case "tool_use":
				uses[b.ID] = b
			case "tool_result":
				u := uses[b.ToolUseID]
				out = append(out, toolResult{ID: b.ToolUseID, Tool: u.Name, Input: u.Input, Text: b.resultText(), IsError: b.IsError})
			}
		}
	}
	return out
}

// texts returns every string in the request body: messages of every role,
// the system prompt, tool results. Hook context can sit in any of them.
func (r *request) texts() []string {
	var v any
	if json.Unmarshal(r.Raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func (r *request) hasTool(name string) bool {
	for _, t := range r.Body.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func classify(r *request) reqClass {
	txt := strings.ToLower(r.lastUserText())
	for _, h := range summaryHints {
		if strings.Contains(txt, h) {
			return classCompact
		}
	}
	if len(r.Body.Tools) == 0 {
		return classSide
	}
	return classMain
}

// mock is the scripted Messages API server.
type mock struct {
	ln  net.Listener
	srv *http.Server

	mu       sync.Mutex
	step     string
	turns    []turn
	used     []bool
	failures []string
	requests []*request
	seq      int
}

// startMock listens on 127.0.0.1 on a free port.
func startMock() (*mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &mock{ln: ln}
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed at close
	return m, nil
}

func (m *mock) URL() string { return "http://" + m.ln.Addr().String() }

func (m *mock) close() { m.srv.Close() }

// load replaces the queue of scripted turns and labels later requests with step.
func (m *mock) load(step string, turns []turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.step = step
	m.turns = turns
	m.used = make([]bool, len(turns))
	m.failures = nil
}

// done reports what went wrong in the current step: failed turn checks,
// turns never served, requests with no scripted turn.
func (m *mock) done() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]string(nil), m.failures...)
	for i, t := range m.turns {
		if !m.used[i] {
			out = append(out, fmt.Sprintf("scripted turn %q was never requested", t.name))
		}
	}
	for _, r := range m.requests {
		if r.Step != m.step {
			continue
		}
		if r.Unscripted {
			out = append(out, fmt.Sprintf("request #%d (%s %s, class %s) had no scripted turn; last user text: %.300q",
				r.Seq, r.Method, r.Path, r.Class, r.lastUserText()))
		}
	}
	return out
}

// stepRequests returns the requests received during step.
func (m *mock) stepRequests(step string) []*request {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*request
	for _, r := range m.requests {
		if r.Step == step {
			out = append(out, r)
		}
	}
	return out
}

// all returns every request received.
func (m *mock) all() []*request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*request(nil), m.requests...)
}

func (m *mock) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	// One request per connection, as the real API's load balancers do not
	// promise more: a kept-alive socket would hold Claude Code's exit.
	w.Header().Set("connection", "close")
	raw, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	r := &request{At: time.Now(), Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Raw: raw}
	if hr.Method == http.MethodConnect {
		r.Path = hr.Host // CONNECT names host:port
	}
	m.mu.Lock()
	m.seq++
	r.Seq, r.Step = m.seq, m.step
	m.requests = append(m.requests, r)
	m.mu.Unlock()

	switch {
	case hr.Method == http.MethodConnect:
		// Proxy trap: Claude Code tried to reach another host.
		w.WriteHeader(http.StatusForbidden)
		return
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages":
	default:
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"mock: not served"}}`)
		return
	}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.Class = classify(r)

	m.mu.Lock()
	var t *turn
	for i := range m.turns {
		if !m.used[i] && m.turns[i].when == r.Class {
			m.used[i] = true
			t = &m.turns[i]
			break
		}
	}
	m.mu.Unlock()

	var reply []block
	input := 100
	if t == nil {
		r.Unscripted = true
		reply = []block{text("(mock: no scripted turn left)")}
	} else {
		r.Turn = t.name
		// The check runs before the reply is sent, so it sees the files as
		// they were when Claude Code asked.
		if t.check != nil {
			if err := t.check(r); err != nil {
				m.fail(fmt.Sprintf("request for turn %q: %v", t.name, err))
			}
		}
		reply = t.reply
		if t.inputTokens > 0 {
			input = t.inputTokens
		}
	}
	reply = assignIDs(reply, r.Seq)
	m.mu.Lock()
	r.Reply = reply
	m.mu.Unlock()
	writeReply(w, r, reply, input)
}

func (m *mock) fail(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failures = append(m.failures, msg)
}

func assignIDs(reply []block, seq int) []block {
	out := make([]block, len(reply))
	for i, b := range reply {
		if b.Type == "tool_use" && b.ID == "" {
			b.ID = fmt.Sprintf("toolu_e2e_%04d_%d", seq, i)
		}
		out[i] = b
	}
	return out
}

// writeReply answers as the Messages API does: an SSE stream when the
// request asked for one, else one JSON message.
func writeReply(w http.ResponseWriter, r *request, reply []block, inputTokens int) {
	stop := "end_turn"
	for _, b := range reply {
		if b.Type == "tool_use" {
			stop = "tool_use"
		}
	}
	id := fmt.Sprintf("msg_e2e_%04d", r.Seq)
	model := r.Body.Model
	usage := map[string]any{"input_tokens": inputTokens, "output_tokens": 20,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !r.Body.Stream {
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": reply, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	event := func(name string, data map[string]any) {
		buf.Reset()
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
		w.Write(buf.Bytes())
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	startUsage := map[string]any{}
	for k, v := range usage {
		startUsage[k] = v
	}
	startUsage["output_tokens"] = 1
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range reply {
		switch b.Type {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			in, _ := json.Marshal(b.Input)
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
