package render_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"bottle/render"
)

// Render a session from its transcript alone (no claude-mem database):
// every prompt and reply verbatim, each tool call one [#tN] line.
func ExampleRender() {
	res, err := render.Render(context.Background(), render.Options{
		SessionID:      "basic",
		TranscriptPath: filepath.Join("testdata", "basic.jsonl"),
		Now:            time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC),
		Location:       time.UTC,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Mode, res.Turns, "turn,", res.Digests, "digest")
	for _, line := range strings.Split(string(res.Markdown), "\n")[:3] {
		fmt.Println(line)
	}
	// Output:
	// full 1 turn, 1 digest
	// # Session bottle — basic
	// project: /home/dev/proj · started: 2026-01-05T10:01:00Z · last active: 2026-01-05T10:05:00Z · rendered: 2026-01-05T12:00:00Z
	// mode: full
}

// Expand the records behind the ids of a bottle: a tool call's input and
// result, a turn's words; ids it cannot find say why.
func ExampleExpand() {
	exps, err := render.Expand(context.Background(), render.ExpandOptions{
		TranscriptPath: filepath.Join("testdata", "basic.jsonl"),
		Location:       time.UTC,
	}, []string{"#u1", "t1", "t9", "x1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range exps {
		if !e.Found {
			fmt.Printf("%s: %s\n", e.ID, e.Missing)
			continue
		}
		fmt.Printf("%s: %s\n", e.ID, strings.SplitN(e.Text, "\n", 2)[0])
	}
	// Output:
	// u1: List the Go files in this project.
	// t1: tool: Glob
	// t9: no such tool call (the session has 1)
	// x1: not a bottle id (ids look like 102401, #102401, t17, u3, a3, s12)
}
