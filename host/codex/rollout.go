package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// MaxLineBytes is the longest rollout line the reader decodes; longer ones
// are skipped and counted, so a hostile line costs no memory beyond a
// buffer. A session_meta line with the base instructions is about 22 kB;
// tool outputs and images make lines of a few MB.
const MaxLineBytes = 32 << 20

// maxDecodedBytes bounds what a .zst rollout may decompress to, so that a
// small hostile file cannot fill the memory.
const maxDecodedBytes = 4 << 30

// RecordType is a rollout line's "type".
type RecordType string

// The record types of Codex 0.171 that the reader decodes. Others known to
// Codex (world_state, token_usage_record) are kept with their type alone.
const (
	TypeSessionMeta  RecordType = "session_meta"
	TypeResponseItem RecordType = "response_item"
	TypeEventMsg     RecordType = "event_msg"
	TypeTurnContext  RecordType = "turn_context"
	TypeCompacted    RecordType = "compacted"
	TypeWorldState   RecordType = "world_state"
	TypeTokenUsage   RecordType = "token_usage_record"
)

// known are the record types a rollout may hold; any other is counted as
// unknown.
var known = map[RecordType]bool{
	TypeSessionMeta: true, TypeResponseItem: true, TypeEventMsg: true, TypeTurnContext: true,
	TypeCompacted: true, TypeWorldState: true, TypeTokenUsage: true,
}

// Record is one line of a rollout. Exactly one of the pointers is set for
// the decoded types; world_state and token_usage_record carry none.
type Record struct {
	Line    int        // 1-based line number in the file
	Ordinal int        // Codex's own 0-based line counter (-1 when absent: older versions)
	Time    time.Time  // the line's timestamp (zero when absent or unreadable)
	Type    RecordType // the line's type

	Meta      *SessionMeta
	Item      *Item
	Event     *Event
	Turn      *TurnContext
	Compacted *Compacted

	off int64 // where the line starts in the (decompressed) file
}

// SessionMeta is the first line of a rollout.
type SessionMeta struct {
	ID         string // the thread id
	Cwd        string
	Originator string // codex_exec, codex-tui, …
	CLIVersion string
	Source     string // exec, cli, vscode, …
	Provider   string // model_provider
}

// ItemType is a response item's "type".
type ItemType string

// The response item types the reader names; others keep their type string.
const (
	ItemMessage          ItemType = "message"
	ItemReasoning        ItemType = "reasoning"
	ItemFunctionCall     ItemType = "function_call"
	ItemFunctionOutput   ItemType = "function_call_output"
	ItemCustomToolCall   ItemType = "custom_tool_call"
	ItemCustomToolOutput ItemType = "custom_tool_call_output"
	ItemLocalShellCall   ItemType = "local_shell_call"
	ItemWebSearchCall    ItemType = "web_search_call"
	ItemCompaction       ItemType = "compaction"
)

// Item is a response_item: what the model saw or said.
type Item struct {
	Type ItemType
	Role string // message: user, assistant, developer, system
	// Text is a message's text parts joined by "\n" (images are left out),
	// or the readable summary of a reasoning item.
	Text string
	// Kinds are Codex's content_item_kinds of a message (user.text,
	// environments.environment_context, hooks.additional_context, …), when
	// the version wrote them.
	Kinds []string
	// Injected is why a message is context Codex injected rather than words
	// of the user or the assistant ("" when it is a message of theirs).
	// Reasoning items are always injected (InjectedReasoning).
	Injected Injection
	// Phase is an assistant message's phase (commentary, final_answer) when
	// written.
	Phase string

	// Calls and outputs.
	CallID    string
	Name      string // function or tool name (exec_command, apply_patch, read_bottle, …)
	Namespace string // an MCP server's namespace, mcp__<server>
	Arguments string // function_call: the JSON arguments as written
	Input     string // custom_tool_call: the raw input (apply_patch's patch)
	Output    string // outputs: the text (text parts joined by "\n")
	Status    string
	// Encrypted reports an item whose content is opaque (a remote
	// compaction item, encrypted reasoning without a summary).
	Encrypted bool
}

// Event is an event_msg: what the UI and the protocol saw.
type Event struct {
	Type string // user_message, agent_message, item_completed, task_started, token_count, …
	// Message is the text of user_message and agent_message events.
	Message string
	// ItemType is item_completed's item.type (UserMessage, AgentMessage,
	// ContextCompaction, CommandExecution, …); ItemText its text parts.
	ItemType string
	ItemText string
	TurnID   string
}

// TurnContext is a turn's settings.
type TurnContext struct {
	TurnID string
	Cwd    string
	Model  string
}

// Compacted is a compaction: the summary Codex keeps (when readable) and
// the history that replaced everything before it.
type Compacted struct {
	// Summary is the readable summary message; "" when Codex wrote none,
	// as remote compaction (OpenAI's provider) does: its summary is an
	// encrypted item in Replacement.
	Summary string
	// Replacement is replacement_history: what the model sees next.
	Replacement []Item
}

// Diagnostics counts what the reader read and skipped. None of it is an
// error. Every line read but a blank one is one of Records, Malformed,
// Oversized, UnknownTypes or the torn tail.
type Diagnostics struct {
	Lines        int  // lines read, including blank ones
	Records      int  // lines that are records of a known type
	Malformed    int  // lines that are not a JSON object, or whose payload cannot be decoded
	Oversized    int  // lines longer than MaxLineBytes, skipped unread
	UnknownTypes int  // JSON objects of a type the reader does not know
	TornTail     bool // the last line lacked its newline and did not parse: a write in progress
}

// String summarises the counts that are not zero.
func (d Diagnostics) String() string {
	s := fmt.Sprintf("%d lines, %d records", d.Lines, d.Records)
	add := func(n int, what string) {
		if n > 0 {
			s += fmt.Sprintf(", %d %s", n, what)
		}
	}
	add(d.Malformed, "malformed")
	add(d.Oversized, "oversized")
	add(d.UnknownTypes, "of unknown type")
	if d.TornTail {
		s += ", torn final line"
	}
	return s
}

// Rollout is a rollout read: its records in file order and what was
// skipped.
type Rollout struct {
	Records []Record
	Diag    Diagnostics
}

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Read reads the rollout at path, plain or zstd-compressed (told by its
// content, not its name).
func Read(path string) (*Rollout, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	defer f.Close()
	r, err := ReadFrom(f)
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	return r, nil
}

// ReadFrom reads a rollout from r, plain or zstd-compressed.
func ReadFrom(r io.Reader) (*Rollout, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(len(zstdMagic)); bytes.Equal(head, zstdMagic) {
		dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(maxDecodedBytes))
		if err != nil {
			return nil, fmt.Errorf("open zstd stream: %w", err)
		}
		defer dec.Close()
		br = bufio.NewReaderSize(dec, 64<<10)
	}
	return readLines(br, 0)
}

// readLines reads a rollout's lines from r, whose first byte is at offset
// base of the file.
func readLines(r *bufio.Reader, base int64) (*Rollout, error) {
	out := &Rollout{}
	err := eachLine(r, func(line []byte, start int64, torn, oversized bool) {
		out.Diag.Lines++
		if oversized {
			out.Diag.Oversized++
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		rec, kind := parseLine(line)
		switch {
		case kind == lineBad && torn:
			out.Diag.TornTail = true
		case kind == lineBad:
			out.Diag.Malformed++
		case kind == lineUnknown:
			out.Diag.UnknownTypes++
		default:
			out.Diag.Records++
			rec.Line = out.Diag.Lines
			rec.off = base + start
			out.Records = append(out.Records, rec)
		}
	})
	if err != nil {
		return out, err
	}
	return out, nil
}

// eachLine calls fn for every line of r, without its newline, with the
// offset of its start. torn is set for a final line without a newline; a
// line over MaxLineBytes (one byte more for a torn one) is reported
// oversized and not kept.
func eachLine(r *bufio.Reader, fn func(line []byte, start int64, torn, oversized bool)) error {
	var buf []byte
	over := false
	var pos, start int64
	for {
		frag, err := r.ReadSlice('\n')
		pos += int64(len(frag))
		if !over {
			if len(buf)+len(frag) > MaxLineBytes+2 {
				over, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		switch {
		case err == nil:
			if over || len(buf)-1 > MaxLineBytes {
				fn(nil, start, false, true)
			} else {
				fn(buf[:len(buf)-1], start, false, false)
			}
			buf, over, start = buf[:0], false, pos
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) > 0 || over {
				fn(buf, start, true, over || len(buf) > MaxLineBytes+1)
			}
			return nil
		default:
			return err
		}
	}
}

// lineKind is what parseLine made of a line.
type lineKind int

const (
	lineRecord lineKind = iota
	lineBad
	lineUnknown
)

// envelope is a rollout line.
type envelope struct {
	Timestamp string          `json:"timestamp"`
	Ordinal   *int            `json:"ordinal"`
	Type      RecordType      `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	Metadata  *struct {
		CompactionOutput bool `json:"compaction_output"`
	} `json:"metadata"`
}

func parseLine(line []byte) (Record, lineKind) {
	var env envelope
	if line[0] != '{' && bytes.TrimSpace(line)[0] != '{' {
		return Record{}, lineBad
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return Record{}, lineBad
	}
	if !known[env.Type] {
		return Record{}, lineUnknown
	}
	rec := Record{Type: env.Type, Ordinal: -1}
	if env.Ordinal != nil {
		rec.Ordinal = *env.Ordinal
	}
	if t, err := time.Parse(time.RFC3339Nano, env.Timestamp); err == nil {
		rec.Time = t
	}
	var err error
	switch env.Type {
	case TypeSessionMeta:
		rec.Meta, err = decodeMeta(env.Payload)
	case TypeResponseItem:
		var it Item
		if it, err = decodeItem(env.Payload); err == nil {
			if env.Metadata != nil && env.Metadata.CompactionOutput && it.Type == ItemMessage {
				// The answer to a compaction request: the summary, not
				// an assistant message.
				it.Injected = InjectedSummary
			}
			rec.Item = &it
		}
	case TypeEventMsg:
		rec.Event, err = decodeEvent(env.Payload)
	case TypeTurnContext:
		rec.Turn, err = decodeTurn(env.Payload)
	case TypeCompacted:
		rec.Compacted, err = decodeCompacted(env.Payload)
	}
	if err != nil {
		return Record{}, lineBad
	}
	return rec, lineRecord
}

// objectPayload unmarshals a payload that must be a JSON object.
func objectPayload(raw json.RawMessage, v any) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return errors.New("payload is not an object")
	}
	return json.Unmarshal(raw, v)
}

func decodeMeta(raw json.RawMessage) (*SessionMeta, error) {
	var p struct {
		ID         string          `json:"id"`
		Cwd        string          `json:"cwd"`
		Originator string          `json:"originator"`
		CLIVersion string          `json:"cli_version"`
		Source     json.RawMessage `json:"source"`
		Provider   string          `json:"model_provider"`
		// Some versions nest the meta under "meta".
		Meta *struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"meta"`
	}
	if err := objectPayload(raw, &p); err != nil {
		return nil, err
	}
	m := &SessionMeta{ID: p.ID, Cwd: p.Cwd, Originator: p.Originator, CLIVersion: p.CLIVersion, Provider: p.Provider}
	if p.Meta != nil && m.ID == "" {
		m.ID, m.Cwd = p.Meta.ID, p.Meta.Cwd
	}
	var s string
	if json.Unmarshal(p.Source, &s) == nil {
		m.Source = s
	} else if len(p.Source) > 0 && p.Source[0] == '{' {
		// A subagent's source is an object ({"subagent": …}).
		var o map[string]json.RawMessage
		if json.Unmarshal(p.Source, &o) == nil {
			for k := range o {
				m.Source = k
			}
		}
	}
	return m, nil
}

// rawItem is a response item as written.
type rawItem struct {
	Type      ItemType        `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Phase     string          `json:"phase"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
	Status    string          `json:"status"`
	Summary   json.RawMessage `json:"summary"`
	Encrypted *string         `json:"encrypted_content"`
	Action    json.RawMessage `json:"action"`
	Meta      *struct {
		Kinds []string `json:"content_item_kinds"`
	} `json:"internal_chat_message_metadata_passthrough"`
}

func decodeItem(raw json.RawMessage) (Item, error) {
	var p rawItem
	if err := objectPayload(raw, &p); err != nil {
		return Item{}, err
	}
	return p.item()
}

func (p rawItem) item() (Item, error) {
	it := Item{Type: p.Type, Role: p.Role, Phase: p.Phase, CallID: p.CallID, Name: p.Name,
		Namespace: p.Namespace, Input: p.Input, Status: p.Status}
	if p.Meta != nil {
		it.Kinds = p.Meta.Kinds
	}
	switch p.Type {
	case ItemMessage:
		text, err := textParts(p.Content)
		if err != nil {
			return Item{}, err
		}
		it.Text = text
		it.Injected = classify(it.Role, it.Text, it.Kinds)
	case ItemReasoning:
		text, err := textParts(p.Summary)
		if err != nil {
			return Item{}, err
		}
		it.Text = text
		it.Injected = InjectedReasoning
		it.Encrypted = p.Encrypted != nil && text == ""
	case ItemFunctionCall:
		it.Arguments = stringOrJSON(p.Arguments)
	case ItemLocalShellCall, ItemWebSearchCall:
		it.Arguments = stringOrJSON(p.Action)
	case ItemFunctionOutput, ItemCustomToolOutput:
		out, err := outputText(p.Output)
		if err != nil {
			return Item{}, err
		}
		it.Output = out
	case ItemCompaction:
		it.Encrypted = p.Encrypted != nil
	}
	return it, nil
}

// stringOrJSON is a JSON string's value, or other JSON as written.
func stringOrJSON(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		return string(t)
	}
	return ""
}

// textParts joins the text of content parts (input_text, output_text,
// summary_text, text, …) by "\n"; a plain string is its own text. Parts
// without text (images) are left out.
func textParts(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "", nil
	}
	if t[0] == '"' {
		var s string
		err := json.Unmarshal(t, &s)
		return s, err
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(t, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, part := range parts {
		if part.Text == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(*part.Text)
	}
	return b.String(), nil
}

// outputText is a tool output's text: a string, a list of content parts
// (MCP results), or an object with "content" (older versions' function
// outputs).
func outputText(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '{' {
		var o struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(t, &o); err != nil {
			return "", err
		}
		return textParts(o.Content)
	}
	return textParts(t)
}

func decodeEvent(raw json.RawMessage) (*Event, error) {
	var p struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		TurnID  string `json:"turn_id"`
		Item    *struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"item"`
	}
	if err := objectPayload(raw, &p); err != nil {
		return nil, err
	}
	e := &Event{Type: p.Type, TurnID: p.TurnID}
	switch p.Type {
	case "user_message", "agent_message":
		e.Message = p.Message
	}
	if p.Item != nil {
		e.ItemType = p.Item.Type
		// A content that is not a list of parts (a command's) has no text.
		e.ItemText, _ = textParts(p.Item.Content)
	}
	return e, nil
}

func decodeTurn(raw json.RawMessage) (*TurnContext, error) {
	var p TurnContext
	var q struct {
		TurnID string `json:"turn_id"`
		Cwd    string `json:"cwd"`
		Model  string `json:"model"`
	}
	if err := objectPayload(raw, &q); err != nil {
		return nil, err
	}
	p = TurnContext(q)
	return &p, nil
}

func decodeCompacted(raw json.RawMessage) (*Compacted, error) {
	var p struct {
		Message     string    `json:"message"`
		Replacement []rawItem `json:"replacement_history"`
	}
	if err := objectPayload(raw, &p); err != nil {
		return nil, err
	}
	c := &Compacted{Summary: p.Message}
	for _, r := range p.Replacement {
		it, err := r.item()
		if err != nil {
			return nil, err
		}
		c.Replacement = append(c.Replacement, it)
	}
	return c, nil
}
