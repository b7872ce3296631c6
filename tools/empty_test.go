package tools

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestListSessionsLeavesOutEmpty: a session with no prompt and no tool call
// (Claude Code started for a command alone) is not offered to pick up;
// files that are no transcripts are skipped and counted.
func TestListSessionsLeavesOutEmpty(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow.Add(-time.Hour))
	const emptyID = "eeeeeeee-0000-4000-8000-000000000001"
	f.writeTranscript(t, emptyID, []byte(`{"type":"user","uuid":"u1","sessionId":"`+emptyID+
		`","timestamp":"2026-01-05T11:00:00Z","message":{"role":"user","content":"<command-name>/bottle:doctor</command-name>"}}`+"\n"), fixedNow)
	f.writeTranscript(t, "0badf11e-0000-4000-8000-000000000001", []byte("\x00junk\n"), fixedNow)
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "list_sessions", nil))
	wantContains(t, got, basicSID, "newest first: 1.", "1 file skipped: not a Claude Code transcript")
	if strings.Contains(got, emptyID) || strings.Contains(got, "0badf11e") {
		t.Errorf("list_sessions offers an empty session or junk:\n%s", got)
	}
}

// TestUnknownSessionLastActivity: the sessions an unknown session_id error
// lists carry their last activity (the transcript's last entry, as
// list_sessions shows it), not the file's time.
func TestUnknownSessionLastActivity(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow) // its last entry: 2026-01-05 10:05
	c := newClient(t, f.deps)
	got := wantError(t, call(t, c, "read_bottle", map[string]any{"session_id": "0badf11e-0000-4000-8000-000000000001"}),
		basicSID+" (transcript, last activity 2026-01-05 10:05)")
	if strings.Contains(got, "modified") {
		t.Errorf("error lists file times:\n%s", got)
	}
}

// TestRenderBottleBigBudget: budget_tokens takes what hookbin render
// --budget takes, beyond 32 bits.
func TestRenderBottleBigBudget(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	c := newClient(t, f.deps)
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": basicSID, "budget_tokens": 10000000000}))
	wantError(t, call(t, c, "render_bottle", map[string]any{"session_id": basicSID, "budget_tokens": 1e300}), "budget_tokens must be an integer")
}

// TestRenderBottleRefusesJunk: a file in the projects folder that is not a
// transcript is refused by id, as hookbin render refuses it, and no bottle
// is written.
func TestRenderBottleRefusesJunk(t *testing.T) {
	f := newFixture(t)
	const junk = "0badf11e-0000-4000-8000-000000000001"
	f.writeTranscript(t, junk, []byte("\x00\x9frandom bytes\n\x01"), fixedNow)
	c := newClient(t, f.deps)
	wantError(t, call(t, c, "render_bottle", map[string]any{"session_id": junk}), "not a Claude Code transcript: 0 of 2 lines are transcript entries")
	if _, err := os.Stat(f.bottlePath(junk)); err == nil {
		t.Error("render_bottle wrote a bottle for junk")
	}
}
