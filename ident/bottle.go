package ident

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what a bottle id names.
type Kind int

// Id kinds: an observation ("102401"), a tool call ("t17"), a turn's user
// words ("u3") or its assistant reply ("a3"), a claude-mem session summary
// ("s12", search_history's hits name them).
const (
	Invalid Kind = iota
	Observation
	Tool
	User
	Assistant
	Summary
)

// letters are the kind letters of ids that are not observations, in the
// order Pattern lists them. A new kind of record gets a letter here.
var letters = []struct {
	letter byte
	kind   Kind
}{{'t', Tool}, {'u', User}, {'a', Assistant}, {'s', Summary}}

// The id grammar: an optional '#', then 1–18 digits (an observation) or a
// kind letter in either case and 1–9 digits.
const (
	maxObservationDigits = 18
	maxOrdinalDigits     = 9
)

// Pattern is the id grammar as a regular expression, for schemas: what
// [Parse] accepts once surrounding spaces are trimmed.
var Pattern = func() string {
	var b strings.Builder
	for _, l := range letters {
		b.WriteByte(l.letter)
		b.WriteByte(l.letter - 'a' + 'A')
	}
	return fmt.Sprintf("^#?([0-9]{1,%d}|[%s][0-9]{1,%d})$", maxObservationDigits, b.String(), maxOrdinalDigits)
}()

// Examples is how the ids a bottle shows look, for messages.
const Examples = "102401, #102401, t17, u3, a3, s12"

// Parse reads an id as the bottle writes it, with or without '#'
// ("#102401", "t17", "#u3", " T17 "). It returns its kind, its canonical
// form (no '#', lower case, no leading zeros) and its number; Invalid for
// anything outside [Pattern].
func Parse(s string) (kind Kind, canonical string, n int64) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if s == "" {
		return Invalid, "", 0
	}
	kind, digits, prefix, maxDigits := Observation, s, "", maxObservationDigits
	for _, l := range letters {
		if s[0]|0x20 == l.letter {
			kind, digits, prefix, maxDigits = l.kind, s[1:], string(l.letter), maxOrdinalDigits
			break
		}
	}
	if digits == "" || len(digits) > maxDigits || strings.TrimLeft(digits, "0123456789") != "" {
		return Invalid, "", 0
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return Invalid, "", 0
	}
	return kind, prefix + strconv.FormatInt(v, 10), v
}
