package session

import (
	"slices"
	"testing"
	"time"
)

func TestTurns(t *testing.T) {
	ev := func(kinds ...EventKind) []Event {
		out := make([]Event, len(kinds))
		for i, k := range kinds {
			out[i].Kind = k
		}
		return out
	}
	tests := []struct {
		name   string
		events []Event
		want   []TurnSpan
	}{
		{"none", nil, []TurnSpan{{0, 0, 0}}},
		{"preamble only", ev(EvAssistant, EvTool), []TurnSpan{{0, 0, 2}}},
		{"prompt first", ev(EvPrompt, EvAssistant), []TurnSpan{{0, 0, 0}, {1, 0, 2}}},
		{"preamble and turns", ev(EvCommand, EvPrompt, EvTool, EvMidTurn, EvPrompt, EvAssistant),
			[]TurnSpan{{0, 0, 1}, {1, 1, 4}, {2, 4, 6}}},
	}
	for _, tt := range tests {
		if got := Turns(tt.events); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Turns = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLastActivity(t *testing.T) {
	entry, stored, modified := time.Unix(300, 0), time.Unix(200, 0), time.Unix(100, 0)
	var zero time.Time
	tests := []struct {
		entry, stored, modified, want time.Time
	}{
		{entry, stored, modified, entry},
		{zero, stored, modified, stored},
		{zero, zero, modified, modified},
		{zero, zero, zero, zero},
		// The transcript's last entry wins even over a later record.
		{stored, entry, zero, stored},
	}
	for _, tt := range tests {
		if got := LastActivity(tt.entry, tt.stored, tt.modified); !got.Equal(tt.want) {
			t.Errorf("LastActivity(%v, %v, %v) = %v, want %v", tt.entry, tt.stored, tt.modified, got, tt.want)
		}
	}
}
