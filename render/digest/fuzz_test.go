package digest

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzLine checks that no call makes a digest panic, run long, span lines,
// carry invalid UTF-8, differ between runs, or show text marked private.
func FuzzLine(f *testing.F) {
	for _, fx := range fixtures() {
		c := fx.call
		f.Add(c.Name, string(c.Input), c.Result, string(c.Structured), fx.cwd, c.HasResult, c.IsError)
	}
	f.Add("Bash", `{"command":"<pri<private>x</private>vate>y"}`, "Exit code", "{", "", true, true)
	f.Add("mcp____", `{"":""}`, "\xff", "null", `\`, true, false)
	const secret = "SECRET-b2e9"
	f.Fuzz(func(t *testing.T, name, input, result, structured, cwd string, hasResult, isError bool) {
		c := Call{
			ID: "toolu_fuzz", Name: name, Input: json.RawMessage(input),
			HasResult: hasResult, Result: result, IsError: isError, Structured: json.RawMessage(structured),
		}
		line := fullLine(c, cwd)
		if err := checkDigest(line, LineMax(name)); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		for _, got := range []string{Pending(c, cwd), Salient(c, cwd)} {
			if err := checkDigest(got, MaxRunes); err != nil {
				t.Fatalf("%v: %q", err, got)
			}
		}
		if again := fullLine(c, cwd); again != line {
			t.Fatalf("Line not deterministic: %q then %q", line, again)
		}
		if fs := Describe(c, cwd); checkParts(&fs) != nil {
			t.Fatal(checkParts(&fs))
		} else if fs.Full() != line {
			t.Fatalf("Describe's line %q, Line %q", fs.Full(), line)
		} else if fs.Detail() != "" {
			if err := checkDigest(line+fs.Detail(), MaxRunes); err != nil {
				t.Fatalf("line and detail: %v: %q", err, line+fs.Detail())
			}
		}
		if strings.Contains(name+input+result+structured+cwd, "SECRET") {
			return
		}
		// The same call with private text spliced into every field.
		p := "<private>" + secret + "</private>"
		mid := func(s string) string { return s[:len(s)/2] + p + s[len(s)/2:] }
		c.Name, c.Result = mid(c.Name), mid(c.Result)
		c.Input = spliceStrings(c.Input, p)
		for _, got := range []string{fullLine(c, cwd), Pending(c, cwd), Salient(c, cwd), describedDetail(c, cwd)} {
			if strings.Contains(got, secret) {
				t.Fatalf("digest %q shows private text", got)
			}
		}
	})
}

// spliceStrings inserts p at the start of every string value of a JSON
// object, leaving other inputs as they are.
func spliceStrings(in json.RawMessage, p string) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return in
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			return p + v
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		}
		return v
	}
	out, err := json.Marshal(walk(m))
	if err != nil {
		return in
	}
	return out
}
