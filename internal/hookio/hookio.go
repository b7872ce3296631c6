package hookio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// MaxPayload bounds the payload read from stdin (real ones are under 1 KB).
const MaxPayload = 1 << 20

// Abandoned counts hook work still running after its deadline. main exits
// without waiting for it; tests wait, so that no work outlives its test.
var Abandoned sync.WaitGroup

// Bounded runs work in a goroutine, a panic in it becoming an error, and
// returns what it returns; finished is false when ctx ends first, and the
// work is then abandoned (main exits without waiting for it).
func Bounded[T any](ctx context.Context, work func() (T, error)) (res T, finished bool, err error) {
	type outcome struct {
		res T
		err error
	}
	done := make(chan outcome, 1)
	Abandoned.Add(1)
	go func() {
		defer Abandoned.Done()
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o = outcome{err: fmt.Errorf("panic: %v", r)}
			}
			done <- o
		}()
		o.res, o.err = work()
	}()
	select {
	case o := <-done:
		return o.res, true, o.err
	case <-ctx.Done():
		return res, false, nil
	}
}

// PayloadError says in words what is wrong with a payload that does not
// decode, for the log line of someone who piped the wrong thing in.
func PayloadError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("payload is not JSON: %v (at byte %d); Claude Code sends one JSON object", syn, syn.Offset)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("payload is a JSON %s, not the JSON object Claude Code sends", typ.Value)
	case errors.As(err, &typ):
		return fmt.Errorf("payload field %q is a JSON %s, not a %s", typ.Field, typ.Value, jsonKind(typ.Type.Kind().String()))
	}
	return fmt.Errorf("payload does not decode: %v", err)
}

// jsonKind names a Go kind as JSON would.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "map", "struct":
		return "object"
	case "slice", "array":
		return "array"
	}
	return "number"
}

// EncodeAnswer is a hook's JSON answer {"hookSpecificOutput": specific},
// one line.
func EncodeAnswer(specific any) ([]byte, error) {
	out := struct {
		HookSpecificOutput any `json:"hookSpecificOutput"`
	}{specific}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The values are text for the model and the user: "\u003c" for "<"
	// would be valid JSON too, but longer and harder to read in Claude
	// Code's debug log.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encode answer: %w", err)
	}
	return buf.Bytes(), nil
}
