package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Bounds of [StartContexts]'s backward read.
const (
	// backChunk is how much of the file one read takes, from the end.
	backChunk = 256 << 10
	// maxContextLine is the longest line StartContexts looks into: a
	// compact boundary, a compaction summary and a hook attachment are a few
	// KB (a summary up to about 100 KB); longer lines are tool results and
	// pasted images, skipped unread.
	maxContextLine = 4 << 20
)

// StartContexts returns the texts SessionStart hooks added to the model's
// context after the transcript's last compaction, newest first, and whether
// the transcript holds a compaction at all: the content
// of each main-thread hook_additional_context attachment of hook event
// SessionStart that follows the last compact_boundary (or compaction
// summary) in file order. Claude Code persists a SessionStart answer's
// additionalContext there (2.1.197 and 2.1.332 alike) and restores it with
// the conversation on resume, so these are the injected texts the model
// still sees. Without a compaction in the file it returns every such text.
//
// It reads the file backwards from its end and stops at the boundary, so it
// costs what the last compaction's part of the file costs, not the whole
// transcript. A line it cannot decode is skipped.
func StartContexts(ctx context.Context, path string) (texts []string, compacted bool, err error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("read transcript %s: %w", path, err)
	}
	texts, compacted, err = startContexts(ctx, f, fi.Size())
	if err != nil {
		return nil, false, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return texts, compacted, nil
}

// startContexts is StartContexts of the first size bytes of r.
func startContexts(ctx context.Context, r io.ReaderAt, size int64) (texts []string, compacted bool, err error) {
	err = backLines(ctx, r, size, func(line []byte) bool {
		t, boundary := contextLine(line)
		texts = append(texts, t...)
		compacted = boundary
		return !boundary
	})
	return texts, compacted, err
}

// Markers a line must hold to be decoded at all: most lines hold none.
var (
	markBoundary = []byte(`"compact_boundary"`)
	markSummary  = []byte(`"isCompactSummary"`)
	markHookCtx  = []byte(`"hook_additional_context"`)
)

// contextLine decodes a line that may be a compaction or a SessionStart
// hook attachment: texts are the attachment's, boundary says the line
// starts the context (a main-thread compact boundary or summary).
func contextLine(line []byte) (texts []string, boundary bool) {
	line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark before the first line
	isBoundary := bytes.Contains(line, markBoundary) || bytes.Contains(line, markSummary)
	isHook := bytes.Contains(line, markHookCtx)
	if !isBoundary && !isHook {
		return nil, false
	}
	var e struct {
		Type             string `json:"type"`
		Subtype          string `json:"subtype"`
		IsSidechain      bool   `json:"isSidechain"`
		IsCompactSummary bool   `json:"isCompactSummary"`
		Attachment       *struct {
			Type      string          `json:"type"`
			HookEvent string          `json:"hookEvent"`
			HookName  string          `json:"hookName"`
			Content   json.RawMessage `json:"content"`
		} `json:"attachment"`
	}
	if json.Unmarshal(line, &e) != nil || e.IsSidechain {
		return nil, false
	}
	switch {
	case e.Type == "system" && e.Subtype == "compact_boundary", e.Type == "user" && e.IsCompactSummary:
		return nil, true
	case e.Type == "attachment" && e.Attachment != nil && e.Attachment.Type == "hook_additional_context":
		a := e.Attachment
		if a.HookEvent != "SessionStart" && (a.HookEvent != "" || a.HookName != "SessionStart") {
			return nil, false
		}
		// A list of strings (one per hook), or one string.
		var list []string
		if json.Unmarshal(a.Content, &list) != nil {
			var one string
			if json.Unmarshal(a.Content, &one) != nil {
				return nil, false
			}
			list = []string{one}
		}
		for i := len(list) - 1; i >= 0; i-- {
			texts = append(texts, list[i])
		}
	}
	return texts, false
}

// backLines hands each line of the first size bytes of r to fn, last line
// first, until fn returns false, the start is reached or ctx is done. Lines
// over maxContextLine bytes are skipped; a line's newline is not part of it.
func backLines(ctx context.Context, r io.ReaderAt, size int64, fn func(line []byte) bool) error {
	buf := make([]byte, backChunk)
	// tail is the end of a line whose start lies before the chunk read
	// next; skipping says that line is too long and is being passed over.
	var tail []byte
	skipping := false
	for off := size; off > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(backChunk), off)
		off -= n
		chunk := buf[:n]
		if _, err := r.ReadAt(chunk, off); err != nil && err != io.EOF {
			return err
		}
		end := len(chunk)
		for {
			i := bytes.LastIndexByte(chunk[:end], '\n')
			if i < 0 {
				break
			}
			if !skipping {
				line := chunk[i+1 : end]
				if len(tail) > 0 {
					line = append(append([]byte(nil), line...), tail...)
				}
				if len(bytes.TrimSpace(line)) > 0 && !fn(line) {
					return nil
				}
			}
			tail, skipping, end = tail[:0], false, i
		}
		if !skipping {
			if end+len(tail) > maxContextLine {
				tail, skipping = tail[:0], true
			} else {
				tail = append(append(make([]byte, 0, end+len(tail)), chunk[:end]...), tail...)
			}
		}
	}
	if !skipping && len(bytes.TrimSpace(tail)) > 0 {
		fn(tail)
	}
	return nil
}
