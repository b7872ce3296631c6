package transcript_test

import (
	"fmt"
	"strings"

	"bottle/host/claudecode/transcript"
)

// Read a transcript stream: the main thread's events in order, and each
// tool call with its digest.
func ExampleReadFrom() {
	jsonl := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-05T10:00:00Z","message":{"role":"user","content":"Count the Go files."}}
{"type":"assistant","uuid":"a1","timestamp":"2026-01-05T10:00:05Z","message":{"id":"m1","content":[{"type":"tool_use","id":"tu1","name":"Glob","input":{"pattern":"**/*.go"}}]}}
{"type":"user","uuid":"r1","timestamp":"2026-01-05T10:00:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":"a.go\nb.go"}]}}
{"type":"assistant","uuid":"a2","timestamp":"2026-01-05T10:00:09Z","message":{"id":"m2","content":[{"type":"text","text":"Two."}]}}
this line is not JSON
`
	t, err := transcript.ReadFrom(strings.NewReader(jsonl), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("session", t.SessionID, "prompts", t.Prompts, "malformed lines", t.Diag.Malformed)
	for _, e := range t.Events {
		switch e.Kind {
		case transcript.EvPrompt:
			fmt.Println("prompt:", e.Text)
		case transcript.EvTool:
			fmt.Println("tool:", t.Tools[e.Tool].Line.Full())
		case transcript.EvAssistant:
			fmt.Println("reply:", strings.Join(e.Blocks, " "))
		}
	}
	// Output:
	// session s1 prompts 1 malformed lines 1
	// prompt: Count the Go files.
	// tool: Glob: **/*.go — 2 files: a.go, b.go
	// reply: Two.
}
