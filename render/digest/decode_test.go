package digest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// inputTypes returns the struct types the describers decode inputs into.
// Every describer decodes its input first thing, so running each once on
// a promised-valid input leaves its type in the field cache, anonymous
// types included.
func inputTypes(tb testing.TB) []reflect.Type {
	tb.Helper()
	for name, f := range describers {
		f(&Call{Name: name, Input: json.RawMessage(`{}`), InputValid: true}, cwd, false)
	}
	var types []reflect.Type
	fieldCache.Range(func(k, _ any) bool {
		if t := k.(reflect.Type); t.Name() == "" && t.PkgPath() == "" {
			types = append(types, t)
		}
		return true
	})
	slices.SortFunc(types, func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) })
	if len(types) < 20 {
		tb.Fatalf("found %d input types, want one per describer", len(types))
	}
	return types
}

// checkDecode compares decodeInput with json.Unmarshal on one input for
// every type, with and (when the input is valid) without the promise of
// validity. With a broken promise the result may differ, but decodeInput
// must neither panic nor hang.
func checkDecode(t *testing.T, types []reflect.Type, input []byte) {
	t.Helper()
	valid := json.Valid(input)
	for _, typ := range types {
		want := reflect.New(typ)
		_ = json.Unmarshal(input, want.Interface())
		for _, promised := range []bool{false, true} {
			got := reflect.New(typ)
			decodeInput(&Call{Input: input, InputValid: promised}, got.Interface())
			if promised && !valid {
				continue
			}
			// A valid object is decoded without falling back, so a fallback
			// cannot hide a misread.
			if promised && fieldsOf(typ) != nil && strings.HasPrefix(strings.TrimLeft(string(input), " \t\r\n"), "{") {
				got = reflect.New(typ)
				if !decodeObject(input, got.Interface()) {
					t.Fatalf("%v, input %q: decodeObject fell back on a valid object", typ, input)
				}
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Fatalf("%v, valid promised %v, input %q: decodeInput differs from json.Unmarshal (-want +got):\n%s",
					typ, promised, input, cmp.Diff(want.Interface(), got.Interface()))
			}
		}
	}
}

// trickyInputs are hand-picked inputs for the corners of encoding/json.
var trickyInputs = []string{
	``, ` `, `null`, `true`, `1`, `"s"`, `[]`, `[{"file_path":"a"}]`, `{}`, ` { } `, `{"file_path":"a"} `,
	// Escaped and folded keys, exact names preferred.
	`{"file\u005fpath":"a"}`, `{"FILE_PATH":"a"}`, `{"File_Path":"a","file_path":"b"}`, `{"file_path":"b","FILE_PATH":"a"}`,
	`{"tas\u212Aid":"3"}`, `{"taskId":1,"TASKID":2}`, `{"\u017Fkill":"pdf"}`, `{"ſkill":"pdf"}`, `{"\u212Aey":"k"}`,
	`{"comman\u0064":"ls"}`, `{"command\u0000":"ls"}`, `{"c\u00d3mmand":"ls"}`, `{"-a":"1","-A":2}`, `{"-c":3}`,
	`{"\ud800":"x","\udc00\ud800":"y"}`, "{\"file_path\xff\":\"a\"}", `{"":1}`,
	// Duplicates: the last wins, containers decode into what is there.
	`{"todos":[{"content":"a","status":"completed"},{"content":"b"}],"todos":[{"status":"in_progress"}]}`,
	`{"todos":[{"content":"a"}],"todos":[]}`, `{"todos":[{"content":"a"}],"todos":null}`,
	`{"edits":[1,2,3],"edits":[{}]}`, `{"edits":[1],"edits":{}}`, `{"edits":null}`, `{"edits":[]}`,
	`{"questions":[{"question":"q","header":"h"}],"questions":[{"header":"i"}]}`,
	`{"content":"a","content":null}`, `{"content":null}`, `{"content":5}`, `{"content":{}}`, `{"content":[1]}`, `{"content":"x","content":true}`,
	`{"taskId":null}`, `{"taskId":"3","taskId":4}`, `{"-A":0,"-B":null,"-C":false,"context":{"a":[1]}}`,
	// Wrong types leave the field, other fields still decode.
	`{"file_path":1,"offset":"2","limit":3}`, `{"offset":1.5,"limit":1e3,"file_path":"a"}`, `{"offset":-0,"limit":-7}`,
	`{"offset":9223372036854775807,"limit":9223372036854775808}`, `{"line":-9223372036854775809}`,
	`{"replace_all":"true"}`, `{"replace_all":1}`, `{"replace_all":null}`, `{"replace_all":true,"replace_all":false}`,
	`{"file_path":null,"file_path":"a","file_path":null}`, `{"file_path":["a"],"command":{"x":"}"}}`,
	`{"todos":{"content":"a"}}`, `{"todos":[{"content":1,"status":"completed"},"x",null]}`,
	// Strings: escapes, backslash runs before quotes, invalid UTF-8, surrogates.
	`{"old_string":"\\\"}\\\\","file_path":"a\\"}`, `{"new_string":"\\\\\\\"","file_path":"\"\\\""}`,
	`{"file_path":"\u00e9\ud83d\ude00\ud83d\u0041\ude00\udc00x\/\b\f\n\r\t"}`, "{\"file_path\":\"\xff\xfe\xed\xa0\x80\xef\xbf\xbd\"}",
	`{"content":"line\nline\n","file_path":"\u2028"}`,
	// Whitespace everywhere, nested containers with tricky strings.
	" \t\r\n{ \"file_path\" \t: \"a\" ,\n\"x\" : [ { \"]\" : \"}\" } , [ ] ] , \"limit\" : 2 }\n",
	`{"x":{"a":[{"b":"\\"},"c"]},"file_path":"a"}`, `{"x":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `,"path":"p"}`,
	`{"content":"` + strings.Repeat(`\\\"`, 1000) + `","file_path":"` + strings.Repeat(`\\`, 999) + `"}`,
	`{"prompt":"` + strings.Repeat("x", 1<<16) + `","description":"d"}`,
	// Slices of structs: null, empty, wrong-typed and repeated.
	`{"todos":[{"content":"a","status":"completed"},null,5,"x",[1],{"STATUS":"in_progress","activeForm":"b","activeForm":3}]}`,
	`{"todos":[]}`, `{"todos":null}`, `{"todos":{"a":1}}`, `{"todos":"x"}`, `{"todos":[{}],"todos":[{"status":"pending"},{}]}`,
	`{"todos":[{"status":"completed"}],"todos":null}`, `{"todos":[],"todos":[{"content":"c"}]}`, `{"todos":[{"content":null,"content":"x"}]}`,
	`{"questions":[{"question":"q?","header":"h"},{"question":1}]}`, `{"todos":[ { "content" : "a" } , {} ]}`,
	// Malformed inputs.
	`{`, `{"file_path"`, `{"file_path":`, `{"file_path":"a"`, `{"file_path":"a",}`, `{"file_path":"a"}}`, `{,}`,
	`{"file_path":"a" "b"}`, `{"file_path":"a\x01"}`, `{"file_path":"\q"}`, `{"file_path":"a"}x`, `{"a":[}`, `{"a":tru}`,
}

// FuzzDecodeInput checks that decodeInput decodes every describer's input
// type exactly as json.Unmarshal does.
func FuzzDecodeInput(f *testing.F) {
	for _, fx := range fixtures() {
		f.Add([]byte(fx.call.Input))
	}
	for _, s := range trickyInputs {
		f.Add([]byte(s))
	}
	types := inputTypes(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		checkDecode(t, types, input)
		// The same bytes as a value, as members and as a key make more
		// valid objects.
		for _, s := range []string{`{"content":` + string(input) + `}`, `{` + string(input) + `}`, `{"` + string(input) + `":"v"}`} {
			checkDecode(t, types, []byte(s))
		}
	})
}

// TestDecodeInputFolding checks key folding over every rune that folds:
// a one-rune key against fields named by single ASCII letters, lower case
// only and in both cases (an exact name first, else the first folded one).
func TestDecodeInputFolding(t *testing.T) {
	var lower, both []string
	for c := 'a'; c <= 'z'; c++ {
		lower = append(lower, string(c))
		both = append(both, string(c), string(unicode.ToUpper(c)))
	}
	// Reversed, the upper-case name comes first.
	rev := slices.Clone(both)
	slices.Reverse(rev)
	structOf := func(names []string) reflect.Type {
		var fields []reflect.StructField
		for i, name := range names {
			fields = append(fields, reflect.StructField{
				Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[string](),
				Tag: reflect.StructTag(`json:"` + name + `"`),
			})
		}
		return reflect.StructOf(fields)
	}
	types := []reflect.Type{structOf(lower), structOf(both), structOf(rev)}
	// Keep these types out of inputTypes.
	t.Cleanup(func() {
		for _, typ := range types {
			fieldCache.Delete(typ)
		}
	})
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= utf8.RuneSelf && unicode.SimpleFold(r) == r || !utf8.ValidRune(r) {
			continue
		}
		key, _ := json.Marshal(string(r))
		checkDecode(t, types, []byte(`{`+string(key)+`:"v"}`))
		checkDecode(t, types, []byte(fmt.Sprintf(`{"\u%04x":"v"}`, r)))
	}
}

// TestDecodeInputCorpus compares decodeInput with json.Unmarshal on the
// input of every corpus call, and the digests with and without the promise
// of validity on every fixture and corpus call.
func TestDecodeInputCorpus(t *testing.T) {
	types := inputTypes(t)
	var calls []corpusCall
	for _, fx := range fixtures() {
		calls = append(calls, corpusCall{fx.call, fx.cwd})
	}
	if !testing.Short() {
		for _, path := range corpusFiles(t) {
			calls = append(calls, loadCalls(t, path)...)
		}
	}
	for _, cc := range calls {
		checkDecode(t, types, cc.Input)
		promised := cc.Call
		promised.InputValid = json.Valid(promised.Input)
		if a, b := fullLine(promised, cc.cwd), fullLine(cc.Call, cc.cwd); a != b {
			t.Errorf("%s %s: Line with valid input promised %q, without %q", cc.ID, cc.Name, a, b)
		}
		if a, b := Pending(promised, cc.cwd), Pending(cc.Call, cc.cwd); a != b {
			t.Errorf("%s %s: Pending with valid input promised %q, without %q", cc.ID, cc.Name, a, b)
		}
	}
}

// TestUnquote compares unquote with json.Unmarshal into a string.
func TestUnquote(t *testing.T) {
	for _, s := range []string{
		`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u2028"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`,
		`"\ud83d\u0041"`, `"\ud83dx"`, `"\ud83d\ud83d\ude00"`, "\"\xff\"", "\"a\xedb\"", `"é"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got, ok := unquote([]byte(s)); !ok || got != want {
			t.Errorf("unquote(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
}

// BenchmarkDecodeInput decodes Write and Edit inputs of several KB with
// json.Unmarshal (the former decode), and with decodeInput with and
// without the promise of validity.
func BenchmarkDecodeInput(b *testing.B) {
	src := strings.Repeat("func f(s string) error {\n\tif s == \"\" {\n\t\treturn fmt.Errorf(\"empty: %q\", s)\n\t}\n\treturn nil\n}\n\n", 60)
	text, _ := json.Marshal(src) // about 5.5 KB of source, 6.6 KB escaped
	write := []byte(`{"file_path":"/home/dev/proj/render/bottle.go","content":` + string(text) + `}`)
	edit := []byte(`{"file_path":"/home/dev/proj/render/bottle.go","old_string":` + string(text) +
		`,"new_string":` + string(text) + `,"replace_all":false}`)
	type writeInput = struct {
		FilePath string  `json:"file_path"`
		Content  *string `json:"content"`
	}
	type editInput = struct {
		FilePath   string `json:"file_path"`
		ReplaceAll bool   `json:"replace_all"`
	}
	for _, bc := range []struct {
		name  string
		input []byte
		new   func() any
	}{
		{"Write", write, func() any { return new(writeInput) }},
		{"Edit", edit, func() any { return new(editInput) }},
	} {
		b.Run(bc.name+"/Unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(bc.input)))
			for b.Loop() {
				_ = json.Unmarshal(bc.input, bc.new())
			}
		})
		for _, promised := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/Promised=%v", bc.name, promised), func(b *testing.B) {
				b.SetBytes(int64(len(bc.input)))
				c := &Call{Input: bc.input, InputValid: promised}
				for b.Loop() {
					decodeInput(c, bc.new())
				}
			})
		}
	}
	for _, promised := range []bool{false, true} {
		b.Run(fmt.Sprintf("LineEdit/Promised=%v", promised), func(b *testing.B) {
			c := done(call("Edit", string(edit)), "The file has been updated.")
			c.InputValid = promised
			for b.Loop() {
				fullLine(c, cwd)
			}
		})
	}
}
