package transcript

import (
	"slices"
	"testing"
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
