package digest

import (
	"fmt"
	"strings"
	"testing"

	"bottle/internal/jsonscan"
)

// rawMinimal is the JSON string body of s as an encoder writes it.
func rawMinimal(s string) []byte { return rawEncodings["minimal"](s) }

// digestMix is a realistic mix of tool calls as the transcript reader hands
// them over: results still JSON-escaped, ResultNoUnicodeEscapes set where
// it holds.
func digestMix(tb testing.TB) []Call {
	tb.Helper()
	var calls []Call
	add := func(c Call, result string, isError bool) {
		c.InputValid, c.HasResult, c.IsError = true, true, isError
		c.ResultRaw = scanned(tb, rawMinimal(result), 5)
		calls = append(calls, c)
	}
	var src strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&src, "%6d→\tif err := render.Line(ctx, \"x\\n\", %d); err != nil { return err }\n", i, i)
	}
	add(call("Read", `{"file_path":"/home/dev/proj/render/bottle.go"}`), src.String(), false)
	var src2 strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&src2, "%d\t// café → línea %d «texte»\n", i, i)
	}
	add(call("Read", `{"file_path":"/home/dev/proj/README.md","offset":10,"limit":60}`), src2.String(), false)
	var out strings.Builder
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&out, "ok  \tbottle/render/pkg%d\t0.%03ds\n", i, i)
	}
	add(call("Bash", `{"command":"cd /home/dev/proj && go test ./...","description":"Run tests"}`), out.String(), false)
	add(call("Bash", `{"command":"go vet ./...","description":"Vet"}`), "Exit code 1\n"+out.String(), true)
	var grep strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&grep, "render/file%d.go:%d:\tfunc Foo%d(x int) string {\n", i, i*3, i)
		if i%5 == 4 {
			grep.WriteString("--\n")
		}
	}
	add(call("Grep", `{"pattern":"func Foo","path":"/home/dev/proj/render","output_mode":"content","-n":true}`), grep.String(), false)
	add(call("Grep", `{"pattern":"TODO","output_mode":"files_with_matches"}`), "Found 12 files\nrender/a.go\nrender/b.go\n", false)
	var glob strings.Builder
	for i := 0; i < 90; i++ {
		fmt.Fprintf(&glob, "/home/dev/proj/render/sub%d/file_%d_test.go\n", i%7, i)
	}
	add(call("Glob", `{"pattern":"**/*_test.go","path":"/home/dev/proj"}`), glob.String(), false)
	add(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"`+strings.Repeat("x", 2000)+`","new_string":"y"}`),
		"The file /home/dev/proj/a.go has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"+src.String()[:3000], false)
	var todos strings.Builder
	todos.WriteString(`{"todos":[`)
	for i := 0; i < 8; i++ {
		if i > 0 {
			todos.WriteString(",")
		}
		status := []string{"completed", "in_progress", "pending"}[min(i/3, 2)]
		fmt.Fprintf(&todos, `{"content":"Step %d: do the thing","status":%q,"activeForm":"Doing step %d"}`, i, status, i)
	}
	todos.WriteString(`]}`)
	add(call("TodoWrite", todos.String()), "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable", false)
	add(call("Task", `{"description":"review security","prompt":"Look at the code","subagent_type":"Explore"}`),
		strings.Repeat("The agent found several things worth noting about the code.\n", 60), false)
	return calls
}

func BenchmarkDigestMix(b *testing.B) {
	calls := digestMix(b)
	b.ResetTimer()
	for b.Loop() {
		for _, c := range calls {
			Describe(c, cwd)
		}
	}
}

func TestDigestMixRaw(t *testing.T) {
	for _, c := range digestMix(t) {
		c.Result, c.ResultRaw = jsonscan.Decode(c.ResultRaw.Body), jsonscan.String{}
		sameWithRaw(t, c, cwd)
	}
}

func BenchmarkDigestKinds(b *testing.B) {
	for _, c := range digestMix(b) {
		b.Run(c.Name, func(b *testing.B) {
			for b.Loop() {
				Describe(c, cwd)
			}
		})
	}
}
