package transcript

// TurnSpan is one turn of a session's events: Events[Start:End]. Turn N
// (1, 2, …) opens with its prompt, the EvPrompt at Events[Start]; turn 0,
// the preamble, holds the events before the first prompt and may be
// empty. Bottle ids name turns by N ([#uN] the user's words of turn N,
// [#aN] its replies), so whatever numbers turns — a bottle, search
// records, expansion — takes N from here.
type TurnSpan struct{ N, Start, End int }

// Turns splits events into turns, the preamble first: the one rule by
// which events become turns.
func Turns(events []Event) []TurnSpan {
	n := 1
	for i := range events {
		if events[i].Kind == EvPrompt {
			n++
		}
	}
	spans := make([]TurnSpan, 1, n)
	for i := range events {
		if events[i].Kind == EvPrompt {
			spans[len(spans)-1].End = i
			spans = append(spans, TurnSpan{N: len(spans), Start: i})
		}
	}
	spans[len(spans)-1].End = len(events)
	return spans
}
