package digest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"bottle/internal/jsonscan"
)

// DecodeValidInput fills v, a pointer to a struct, from a tool call's
// input as decodeInput does for a Call whose InputValid is set: input must
// be valid JSON, as the transcript reader keeps it (ToolDetail.Input).
func DecodeValidInput(input []byte, v any) {
	decodeInput(&Call{Input: input, InputValid: true}, v)
}

// decodeInput fills v, a pointer to a struct, from c.Input exactly as
// json.Unmarshal would, its error ignored: fields of a wrong type, and all
// of them for a malformed input, keep their values.
//
// When c.InputValid promises a valid input, the top-level object is walked
// without validating it again: values whose key matches no field are
// skipped unread, which spares the bulk of a Write's content or an Edit's
// strings, and only the matched values are decoded. A json.RawMessage
// field then holds its value in place, not copied: it is valid while
// c.Input is, so a describer must not keep one past its call.
func decodeInput(c *Call, v any) {
	if len(c.Input) == 0 {
		return
	}
	if !c.InputValid || !decodeObject(c.Input, v) {
		_ = json.Unmarshal(c.Input, v)
	}
}

// decodeObject decodes the valid JSON text data into v as json.Unmarshal
// would. It reports false when it leaves the work to json.Unmarshal: v is
// not a pointer to a struct it handles or data is not an object, and then
// it has changed nothing; or data turns out malformed, and then it has
// zeroed v.
func decodeObject(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	fields := fieldsOf(rv.Elem().Type())
	if fields == nil {
		return false
	}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	rv = rv.Elem()
	if !decodeStruct(data[i:], rv, fields) {
		return malformed(rv)
	}
	return true
}

// decodeStruct decodes the valid JSON object data, which starts with its
// '{', into the struct rv of the given fields as json.Unmarshal would. It
// reports false when data turns out malformed.
func decodeStruct(data []byte, rv reflect.Value, fields inputFields) bool {
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		keyEnd := stringEnd(data, i)
		if keyEnd < 0 {
			return false
		}
		key := data[i:keyEnd]
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		end := valueEnd(data, i)
		if end < 0 {
			return false
		}
		if f := fields.lookup(key); f != nil {
			if !f.store(rv.Field(f.index), data[i:end]) {
				return false
			}
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
}

// storeStructs decodes the valid JSON array data into fv, a nil slice of
// structs of the given fields, as json.Unmarshal would: an object element
// field by field, any other element (null, a wrong type) as a zero struct.
// It reports false when data turns out malformed.
func storeStructs(fv reflect.Value, data []byte, fields inputFields) bool {
	s := reflect.MakeSlice(fv.Type(), 0, 4)
	zero := reflect.Zero(fv.Type().Elem())
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		fv.Set(s)
		return true
	}
	for {
		end := valueEnd(data, i)
		if end < 0 {
			return false
		}
		s = reflect.Append(s, zero)
		if data[i] == '{' && !decodeStruct(data[i:end], s.Index(s.Len()-1), fields) {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			fv.Set(s)
			return true
		default:
			return false
		}
	}
}

// malformed undoes what decodeObject did to rv and reports false: a
// malformed text breaks the promise of validity, and json.Unmarshal then
// changes nothing, which a zero rv (every caller's) can still match.
func malformed(rv reflect.Value) bool {
	rv.SetZero()
	return false
}

// fieldKind says how a field's value is decoded: directly for the common
// simple types, by json.Unmarshal of the value alone for the others.
type fieldKind uint8

const (
	kindOther     fieldKind = iota // json.Unmarshal of the value
	kindString                     // string
	kindStringPtr                  // *string
	kindBool                       // bool
	kindInt                        // int, int8 … int64
	kindRaw                        // json.RawMessage
	kindStructs                    // a slice of structs decodeObject handles
)

// inputField is one field of a struct decoded by decodeObject.
type inputField struct {
	name  string // the JSON name: the tag's, else the Go name
	index int    // the field's index in the struct
	kind  fieldKind
	elem  inputFields // kindStructs: the fields of the element struct
}

// inputFields are the decodable fields of a struct type, in declaration
// order.
type inputFields []inputField

// fieldCache maps a struct type to a pointer to its inputFields, which
// are nil when decodeObject leaves that type to json.Unmarshal.
var fieldCache sync.Map

var (
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	stringType          = reflect.TypeFor[string]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fieldsOf returns the fields of the struct type t, or nil when t has a
// shape decodeObject does not reproduce (embedded fields, the ",string"
// option, unusual names, types whose decoding can stop json.Unmarshal).
func fieldsOf(t reflect.Type) inputFields {
	if f, ok := fieldCache.Load(t); ok {
		return *f.(*inputFields)
	}
	fields := structFields(t, true)
	f, _ := fieldCache.LoadOrStore(t, &fields)
	return *f.(*inputFields)
}

// structFields builds the fields of the struct type t for fieldsOf; nest
// lets a field be a slice of structs, themselves without such fields.
func structFields(t reflect.Type, nest bool) inputFields {
	fields := inputFields{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		name, ok := fieldName(sf)
		if !ok {
			return nil
		}
		if name == "" {
			continue
		}
		// encoding/json drops fields whose names collide.
		if seen[name] || !safeType(sf.Type, map[reflect.Type]bool{}) {
			return nil
		}
		seen[name] = true
		f := inputField{name: name, index: i, kind: kindOf(sf.Type)}
		if t := sf.Type; nest && f.kind == kindOther && t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			// Not cached: fieldsOf would take the cache's lock again.
			if f.elem = structFields(t.Elem(), false); f.elem != nil {
				f.kind = kindStructs
			}
		}
		fields = append(fields, f)
	}
	return fields
}

// fieldName is the JSON name of a struct field, "" for a field json
// ignores; ok is false for a tag decodeObject does not handle: options other
// than omitempty and omitzero, or a name with characters beyond plain ASCII
// letters, digits, '_' and '-'.
func fieldName(sf reflect.StructField) (name string, ok bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, opts, _ := strings.Cut(tag, ",")
	for opt := range strings.SplitSeq(opts, ",") {
		if opt != "" && opt != "omitempty" && opt != "omitzero" {
			return "", false
		}
	}
	if name == "" {
		name = sf.Name
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return "", false
		}
	}
	return name, true
}

// safeType reports whether decoding a value of type t never stops
// json.Unmarshal early: an error it returns (rather than saves) would
// leave the later fields of the object undecoded, which decoding each
// value alone cannot reproduce. Only custom unmarshalers and the ",string"
// option return such errors; json.RawMessage's never fails.
func safeType(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == rawMessageType {
		return true
	}
	if seen[t] {
		return true
	}
	seen[t] = true
	if t.Implements(unmarshalerType) || t.Implements(textUnmarshalerType) ||
		reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return safeType(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && safeType(t.Key(), seen) && safeType(t.Elem(), seen)
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if _, ok := fieldName(sf); !ok || !safeType(sf.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// kindOf is how a field of type t is decoded.
func kindOf(t reflect.Type) fieldKind {
	switch {
	case t == stringType:
		return kindString
	case t == reflect.PointerTo(stringType):
		return kindStringPtr
	case t == rawMessageType:
		return kindRaw
	case t.PkgPath() != "" || t.Name() == "":
		// Defined types, whose methods may change their decoding, and
		// composite types.
		return kindOther
	}
	switch t.Kind() {
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt
	}
	return kindOther
}

// lookup finds the field of a key, the JSON string key (quotes included),
// as encoding/json does: the exact name first, else the first field whose
// name matches under Unicode case folding.
func (fs inputFields) lookup(key []byte) *inputField {
	k := key[1 : len(key)-1]
	if !jsonscan.PlainASCII(k) {
		s, ok := unquote(key)
		if !ok {
			return nil
		}
		return fs.lookupString(s)
	}
	for i := range fs {
		if string(k) == fs[i].name {
			return &fs[i]
		}
	}
	for i := range fs {
		if equalFoldASCII(k, fs[i].name) {
			return &fs[i]
		}
	}
	return nil
}

// lookupString is lookup for a key already unquoted.
func (fs inputFields) lookupString(k string) *inputField {
	for i := range fs {
		if k == fs[i].name {
			return &fs[i]
		}
	}
	for i := range fs {
		if strings.EqualFold(k, fs[i].name) {
			return &fs[i]
		}
	}
	return nil
}

// equalFoldASCII is strings.EqualFold for an ASCII s and name: only the
// letters fold.
func equalFoldASCII(s []byte, name string) bool {
	if len(s) != len(name) {
		return false
	}
	for i := range len(s) {
		if lowerASCII(s[i]) != lowerASCII(name[i]) {
			return false
		}
	}
	return true
}

// store decodes the JSON value raw into the field fv as json.Unmarshal
// does. It reports false on a malformed value.
func (f *inputField) store(fv reflect.Value, raw []byte) bool {
	switch c := raw[0]; {
	case f.kind == kindString && c == '"':
		s, ok := unquote(raw)
		fv.SetString(s)
		return ok
	case f.kind == kindStringPtr && c == '"':
		s, ok := unquote(raw)
		if fv.IsNil() {
			fv.Set(reflect.New(stringType))
		}
		fv.Elem().SetString(s)
		return ok
	case f.kind == kindBool && (c == 't' || c == 'f'):
		fv.SetBool(c == 't')
		return true
	case f.kind == kindInt && (c == '-' || '0' <= c && c <= '9'):
		// A fraction, an exponent or an overflow leaves the field as it is.
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && !fv.OverflowInt(n) {
			fv.SetInt(n)
		}
		return true
	case f.kind == kindRaw:
		// Not copied: a describer reads its input only while it runs
		// (see decodeInput).
		fv.SetBytes(raw[:len(raw):len(raw)])
		return true
	case f.kind == kindStructs && c == '[' && fv.IsNil():
		// A slice already set (a repeated key) is decoded into in place:
		// the slow way.
		return storeStructs(fv, raw, f.elem)
	}
	// Anything else, null and wrong types included, goes the slow way.
	_ = json.Unmarshal(raw, fv.Addr().Interface())
	return true
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// skipSpace is the index of the first non-space byte of data at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// stringEnd is the index just past the JSON string starting at data[i],
// a '"', or -1 when it does not end. A quote ends the string unless an odd
// run of backslashes precedes it.
func stringEnd(data []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		n := 0
		for q-n-1 > i && data[q-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd is the index just past the JSON value starting at data[i], or
// -1 when it does not end. Containers are skipped by counting depth, their
// strings whole.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := stringEnd(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	}
	// A number or a literal runs to the next delimiter.
	j := i
	for j < len(data) && !isSpace(data[j]) && data[j] != ',' && data[j] != '}' && data[j] != ']' {
		j++
	}
	return j
}

// unquote decodes the JSON string s, quotes included, as encoding/json
// does: escapes resolved, invalid UTF-8 and unpaired surrogates replaced by
// U+FFFD. ok is false for a malformed string.
func unquote(s []byte) (t string, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || !jsonscan.Check(s[1:len(s)-1]) {
		return "", false
	}
	return jsonscan.Decode(s[1 : len(s)-1]), true
}
