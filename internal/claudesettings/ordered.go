package claudesettings

import "encoding/json"

// Object is a JSON object that keeps its keys in file order and its values
// as raw JSON, for editors of other hooks-format files (Codex's hooks.json)
// that must leave foreign keys as they were.
type Object struct{ o *object }

// NewObject is an empty object.
func NewObject() *Object { return &Object{newObject()} }

// DecodeObject parses raw, which must be exactly one JSON object.
func DecodeObject(raw []byte) (*Object, error) {
	o, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	return &Object{o}, nil
}

// Keys are the object's keys in order.
func (x *Object) Keys() []string { return append([]string(nil), x.o.keys...) }

// Get is the raw value of k.
func (x *Object) Get(k string) (json.RawMessage, bool) { return x.o.get(k) }

// Set replaces the value of k in place, or appends k.
func (x *Object) Set(k string, v json.RawMessage) { x.o.set(k, v) }

// Del removes k.
func (x *Object) Del(k string) { x.o.del(k) }

// Raw encodes the object compactly.
func (x *Object) Raw() json.RawMessage { return x.o.raw() }

// Encode is the object as a settings file: two-space indentation and a
// final newline.
func (x *Object) Encode() []byte { return encodeFile(x.o) }
