package privacy

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name, in, indent, want string
	}{
		{"Escaped", `{"command":"echo \u003cprivate\u003eSECRET\u003c/private\u003e ok"}`, "", `{"command":"echo  ok"}`},
		{"EscapedLetters", `{"a":"<\u0070rivate>SECRET</priv\u0061te> ok"}`, "", `{"a":" ok"}`},
		{"SlashInClose", `{"a":"<private>SECRET<\/private> ok","b":"visible"}`, "", `{"a":" ok","b":"visible"}`},
		{"Key", `{"<private>SECRET</private>k":1}`, "", `{"k":1}`},
		{"BlockPerString", `{"a":"<private>SECRET","b":"visible"}`, "", `{"a":"","b":"visible"}`},
		{"OrderAndNumbers", `{"z":1.50,"a":[true,false,null,-0,1e3],"m":{}}`, "", `{"z":1.50,"a":[true,false,null,-0,1e3],"m":{}}`},
		{"NoHTMLEscape", `{"a":"<b> & </b> \u2028"}`, "", "{\"a\":\"<b> & </b> \\u2028\"}"},
		{"Indent", `{"a":[1,{"b":"c"}],"e":[]}`, "  ", "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"c\"\n    }\n  ],\n  \"e\": []\n}"},
		{"Scalar", `"\u003cprivate\u003ex\u003c/private\u003ey"`, "", `"y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON([]byte(tt.in), tt.indent, Strip)
			if err != nil || got != tt.want {
				t.Errorf("JSON(%s) = %s, %v\nwant %s", tt.in, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{"a":1}x`, `{"a" 1}`, `[1,]`} {
		if got, err := JSON([]byte(bad), "", Strip); err == nil {
			t.Errorf("JSON(%q) = %q, want an error", bad, got)
		}
	}
}

func TestStripValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"file":"\u003cprivate\u003eSECRET\u003c/private\u003ea.go"}`, `{"file":"a.go"}`},
		{`["x",{"y":"<private>SECRET<\/private>"}]`, `["x",{"y":""}]`},
		{`plain <private>SECRET</private> text`, `plain  text`},
		{`{not json <private>SECRET</private>`, `{not json `},
	}
	for _, tt := range tests {
		if got := StripValue(tt.in); got != tt.want {
			t.Errorf("StripValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzJSON: JSON keeps a valid value valid, and whatever the encoding of a
// private block inside a string, no byte of a planted secret survives.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\u003cprivate\u003eS\u003c/private\u003e"}`, `[1,"<private>x<\/private>",{"k":null}]`, `"\u0061"`, `{"a":{"b":[[]]}}`} {
		f.Add(s, "")
	}
	f.Add(`{"a":"x"}`, "  ")
	f.Fuzz(func(t *testing.T, in, indent string) {
		if strings.Trim(indent, " \t") != "" {
			return
		}
		got, err := JSON([]byte(in), indent, Strip)
		if err != nil {
			return
		}
		if !json.Valid([]byte(got)) {
			t.Fatalf("JSON(%q) = %q: not valid JSON", in, got)
		}
		// Every string of the output is stripped already.
		JSON([]byte(got), "", func(s string) string {
			if strings.Contains(strings.ToLower(s), "<private") && Contains(s) {
				t.Fatalf("JSON(%q) kept a private opening: %q", in, s)
			}
			return s
		})
	})
}
