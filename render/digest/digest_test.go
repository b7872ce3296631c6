package digest

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden files")

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		cwd  string
		call Call
		want string
	}{
		// The examples of docs/format.md, "Tool digests".
		{"ReadWhole", cwd, done(call("Read", `{"file_path":"/home/dev/proj/render/bottle.go"}`), numbered(212)), "Read: render/bottle.go:1-212 — 212 lines"},
		{"EditOk", cwd, done(call("Edit", `{"file_path":"/home/dev/proj/render/bottle.go","old_string":"a","new_string":"b"}`), "The file has been updated."), "Edit: render/bottle.go"},
		{"BashExit", cwd, failed(call("Bash", `{"command":"go test ./..."}`), "Exit code 1\nFAIL"), "Bash: go test ./... — exit 1: FAIL"},
		{"TaskFinished", cwd, done(call("Task", `{"description":"review security","prompt":"p","subagent_type":"general-purpose"}`), "Done."), "Task: review security — agent finished"},

		{"ReadRange", cwd, done(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":100,"limit":50}`), numberedFrom(100, 50)), "Read: a.go:100-149 — 50 lines"},
		{"ReadShorterThanLimit", cwd, done(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":120,"limit":100}`), numberedFrom(120, 61)), "Read: a.go:120-180 — 61 lines"},
		{"ReadOneLine", cwd, done(call("Read", `{"file_path":"/home/dev/proj/a.go"}`), numbered(1)), "Read: a.go:1 — 1 line"},
		{"ReadErrorKeepsInputRange", cwd, failed(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":9,"limit":2}`), "<tool_use_error>File does not exist.</tool_use_error>"), "Read: a.go:9-10 — error: File does not exist."},
		{"ReadStructuredFallback", cwd, withStructured(done(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":9}`), "<system-reminder>short</system-reminder>"), `{"file":{"numLines":0}}`), "Read: a.go:9- — 0 lines"},
		{"ReadNoResult", cwd, call("Read", `{"file_path":"/home/dev/proj/a.go"}`), "Read: a.go — no result"},
		{"WriteCreated", cwd, done(call("Write", `{"file_path":"/home/dev/proj/a.md","content":"a\nb\n"}`), "File created successfully at: /home/dev/proj/a.md"), "Write: a.md (2 lines) — created"},
		{"MultiEdit", cwd, done(call("MultiEdit", `{"file_path":"/home/dev/proj/a.go","edits":[{},{}]}`), "ok"), "MultiEdit: a.go (2 edits)"},
		{"BashOk", cwd, done(call("Bash", `{"command":"cd /home/dev/proj && go vet ./..."}`), ""), "Bash: go vet ./... — ok"},
		{"BashInterrupted", cwd, failed(call("Bash", `{"command":"sleep 9"}`), interrupted), "Bash: sleep 9 — interrupted"},
		{"BashRejected", cwd, failed(call("Bash", `{"command":"git push"}`), rejection), "Bash: git push — rejected"},
		{"BashMultiline", cwd, done(call("Bash", `{"command":"set -e\n\n  make\n"}`), ""), "Bash: set -e ⏎ make — ok"},
		{"BashExitFailureLine", cwd, failed(call("Bash", `{"command":"make test"}`), "Exit code 2\n=== RUN   TestParse\n    parse_test.go:9: got 1\n--- FAIL: TestParse (0.00s)\nFAIL"), "Bash: make test — exit 2: FAIL TestParse; parse_test.go:9: got 1"},
		{"BashExitGoSubtests", cwd, failed(call("Bash", `{"command":"go test ./..."}`),
			"Exit code 1\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/empty (0.00s)\n        a_test.go:9: got 1\n--- FAIL: TestB (0.00s)\n--- FAIL: TestC (0.00s)\n--- FAIL: TestD (0.00s)\n--- FAIL: TestE (0.00s)\n--- FAIL: TestF (0.00s)\nFAIL"),
			"Bash: go test ./... — exit 1: FAIL TestA/empty, TestB, TestC, TestD +2 more; a_test.go:9: got 1"},
		{"BashExitPytest", cwd, failed(call("Bash", `{"command":"pytest -q"}`),
			"Exit code 1\n..F.\n=========================== short test summary info ============================\nFAILED tests/test_parse.py::test_empty - AssertionError: assert 1 == 0\n1 failed, 3 passed in 0.02s"),
			"Bash: pytest -q — exit 1: FAIL tests/test_parse.py::test_empty"},
		{"BashExitCargo", cwd, failed(call("Bash", `{"command":"cargo test"}`),
			"Exit code 101\nrunning 2 tests\ntest parse::empty ... FAILED\ntest parse::one ... ok\n\nfailures:\n"),
			"Bash: cargo test — exit 101: FAIL parse::empty"},
		{"BashExitTestLate", cwd, failed(call("Bash", `{"command":"go test -v ./..."}`),
			"Exit code 1\n"+strings.Repeat("=== RUN   TestOK\n--- PASS: TestOK (0.00s)\n", 60)+"--- FAIL: TestLate (0.00s)\nFAIL"),
			"Bash: go test -v ./... — exit 1: FAIL TestLate"},
		{"BashExitFailureWord", cwd, failed(call("Bash", `{"command":"go build"}`), "Exit code 1\ngo: downloading x v1.0.0\nbuild failed: no space left"), "Bash: go build — exit 1: build failed: no space left"},
		{"BashExitFirstLine", cwd, failed(call("Bash", `{"command":"diff a b"}`), "Exit code 1\n< x\n> y"), "Bash: diff a b — exit 1: < x"},
		{"BashExitNoOutput", cwd, failed(call("Bash", `{"command":"false"}`), "Exit code 1"), "Bash: false — exit 1"},
		{"BashExitNotFlagged", cwd, done(call("Bash", `{"command":"ls x"}`), "Exit code 2\nls: cannot access 'x': No such file or directory"), "Bash: ls x — exit 2: ls: cannot access 'x': No such file or directory"},
		{"BashExitWordStart", cwd, failed(call("Bash", `{"command":"go test"}`), "Exit code 1\n=== RUN   TestInvalidInput\nbad output"), "Bash: go test — exit 1: === RUN TestInvalidInput"},
		{"BashExitLongCommand", cwd, failed(call("Bash", `{"command":"`+strings.Repeat("x", 150)+`"}`), "Exit code 1\nerror: "+strings.Repeat("y", 150)),
			"Bash: " + strings.Repeat("x", 42) + "… — exit 1: error: " + strings.Repeat("y", 92) + "…"},
		{"GrepFiles", cwd, done(call("Grep", `{"pattern":"func Line","path":"/home/dev/proj/render"}`), "Found 2 files\na\nb"), `Grep: "func Line" in render — 2 files: a, b`},
		{"GrepContent", cwd, done(call("Grep", `{"pattern":"x","path":"/home/dev/proj","output_mode":"content"}`), "a:1:x\nb:2:x\n"), `Grep: "x" — 2 matching lines in 2 files: a, b`},
		{"GrepContentOneFile", cwd, done(call("Grep", `{"pattern":"x","path":"/home/dev/proj/a.go","output_mode":"content"}`), "1:x\n2-y\n7:x:1:\n"), `Grep: "x" in a.go — 3 matching lines`},
		{"GrepContentAbsolute", cwd, done(call("Grep", `{"pattern":"x","output_mode":"content","-C":1}`), "/home/dev/proj/a.go:1:x\n/home/dev/proj/a.go-2-y\n/home/dev/proj/a.go:3:x\n--\n/home/dev/proj/b/c.go:9:x\n"), `Grep: "x" — 4 lines in 2 files: a.go, b/c.go`},
		{"GrepContentWindows", `C:\src\proj`, done(call("Grep", `{"pattern":"x","output_mode":"content"}`), "C:\\src\\proj\\a.go:1:x\nC:\\src\\proj\\b.go:2:x\n"), `Grep: "x" — 2 matching lines in 2 files: a.go, b.go`},
		{"GrepManyFiles", cwd, done(call("Grep", `{"pattern":"TODO"}`), "Found 40 files\n"+paths("/home/dev/proj/internal/render/", 40)), `Grep: "TODO" — 40 files: internal/render/file_00.go, internal/render/file_01.go, internal/render/file_02.go, internal/render/file_03.go, internal/render/file_04.go, +35 more`},
		{"GrepLongPaths", cwd, done(call("Grep", `{"pattern":"TODO"}`), "Found 40 files\n"+paths("/home/dev/proj/"+strings.Repeat("nested/", 9), 40)),
			`Grep: "TODO" — 40 files: nested/nested/nested/nested/nested/nested/nested/nested/nested/file_00.go, nested/nested/nested/nested/nested/nested/nested/nested/nested/file_01.go, +38 more`},
		{"GlobMany", cwd, done(call("Glob", `{"pattern":"**/*.go"}`), paths("/home/dev/proj/", 12)), "Glob: **/*.go — 12 files: file_00.go, file_01.go, file_02.go, file_03.go, file_04.go, +7 more"},
		{"GlobOutsideCwd", cwd, done(call("Glob", `{"pattern":"*.conf","path":"/etc"}`), "/etc/a.conf\n/etc/b.conf"), "Glob: *.conf in /etc — 2 files: /etc/a.conf, /etc/b.conf"},
		{"GlobPrivate", cwd, done(call("Glob", `{"pattern":"*"}`), "/home/dev/proj/a\n<private>\n/home/dev/proj/secret\n</private>\n/home/dev/proj/b"), "Glob: * — 5 files: a, b, +3 more"},
		{"GlobNone", cwd, done(call("Glob", `{"pattern":"*.md"}`), "No files found"), "Glob: *.md — no files"},
		{"TaskBackground", cwd, done(call("Task", `{"description":"audit","subagent_type":"Explore"}`), "Async agent launched successfully.\nagentId: a1"), "Task: audit (Explore) — launched in background"},
		{"TaskOutput", cwd, done(call("TaskOutput", `{"task_id":"a1"}`), "<retrieval_status>timeout</retrieval_status>\n<status>running</status>"), "TaskOutput: a1 — timeout, running"},
		{"TodoWrite", cwd, done(call("TodoWrite", `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress","activeForm":"Doing b"}]}`), "ok"), "TodoWrite: 2 todos, 1 done, now: Doing b"},
		{"WebFetch", cwd, done(call("WebFetch", `{"url":"https://example.com/docs/?key=SECRET"}`), "# Docs"), "WebFetch: example.com/docs"},
		{"WebSearch", cwd, done(call("WebSearch", `{"query":"go fuzzing"}`), "Web search results"), `WebSearch: "go fuzzing"`},
		{"Skill", cwd, done(call("Skill", `{"skill":"pdf"}`), "Launching skill: pdf"), "Skill: pdf"},
		{"ExitPlanMode", cwd, done(call("ExitPlanMode", `{"plan":"# Fix it\nsteps"}`), "User has approved your plan."), "ExitPlanMode: Fix it — approved"},
		{"EnterPlanMode", cwd, done(call("EnterPlanMode", `{}`), "Entered plan mode."), "EnterPlanMode"},
		{"AskUserQuestion", cwd, done(call("AskUserQuestion", `{"questions":[{"question":"Which one?"}]}`), "User has answered your questions: …"), "AskUserQuestion: Which one? — answered"},
		{"MCP", cwd, done(call("mcp__github__create_issue", `{"owner":"acme","title":"Overflow"}`), "ok"), "github/create_issue: Overflow"},
		{"MCPError", cwd, failed(call("mcp__github__get_me", `{}`), "Error: Bad credentials\nmore"), "github/get_me — error: Bad credentials"},
		{"Unknown", cwd, done(call("Frobnicate", `{"level":3,"target":"render"}`), "ok"), "Frobnicate: render"},
		{"ToolUseError", cwd, failed(call("Read", `{"file_path":"/home/dev/proj/x"}`), "<tool_use_error>File does not exist.</tool_use_error>"), "Read: x — error: File does not exist."},
		{"EmptyError", cwd, failed(call("Read", `{"file_path":"/home/dev/proj/x"}`), "  \n"), "Read: x — error"},
		{"WindowsPaths", `C:\src\proj\`, done(call("Edit", `{"file_path":"c:/src/proj/main.go"}`), "ok"), "Edit: main.go"},
		{"CwdItself", cwd, done(call("LS", `{"path":"/home/dev/proj/"}`), "- x"), "LS: ."},
		{"SiblingDir", cwd, done(call("LS", `{"path":"/home/dev/project2"}`), "- x"), "LS: /home/dev/project2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fullLine(tt.call, tt.cwd); got != tt.want {
				t.Errorf("Line(%s %s) = %q, want %q", tt.call.Name, tt.call.Input, got, tt.want)
			}
		})
	}
}

// paths is a Glob result of n files in dir.
func paths(dir string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%sfile_%02d.go\n", dir, i)
	}
	return b.String()
}

func TestPendingAndSalient(t *testing.T) {
	tests := []struct {
		name        string
		call        Call
		wantPending string
		wantSalient string
	}{
		{"Bash", call("Bash", `{"command":"npm test"}`), "Bash — npm test", "npm test"},
		{"ResultIgnored", failed(call("Bash", `{"command":"npm test"}`), "Exit code 2"), "Bash — npm test", "npm test"},
		{"Read", call("Read", `{"file_path":"/home/dev/proj/a.go","limit":10}`), "Read — a.go:1-10", "a.go:1-10"},
		{"NoSalient", call("EnterPlanMode", `{}`), "EnterPlanMode", ""},
		{"MCP", call("mcp__tracker__get_issue", `{"id":"BOT-1"}`), "tracker/get_issue — BOT-1", "BOT-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Pending(tt.call, cwd); got != tt.wantPending {
				t.Errorf("Pending() = %q, want %q", got, tt.wantPending)
			}
			if got := Salient(tt.call, cwd); got != tt.wantSalient {
				t.Errorf("Salient() = %q, want %q", got, tt.wantSalient)
			}
		})
	}
}

// TestGolden digests every fixture; refresh with go test ./render/digest -update.
func TestGolden(t *testing.T) {
	var b strings.Builder
	for _, f := range fixtures() {
		line, pending := fullLine(f.call, f.cwd), Pending(f.call, f.cwd)
		if err := checkDigest(line, LineMax(f.call.Name)); err != nil {
			t.Errorf("%s: %v: %q", f.name, err, line)
		}
		if err := checkDigest(pending, MaxRunes); err != nil {
			t.Errorf("%s: %v: %q", f.name, err, pending)
		}
		b.WriteString(f.name + "\n\tline:    " + line + "\n\tpending: " + pending + "\n")
		l := Describe(f.call, f.cwd)
		if d := l.Detail(); d != "" {
			if err := checkDigest(line+d, MaxRunes); err != nil {
				t.Errorf("%s: %v: %q", f.name, err, line+d)
			}
			b.WriteString("\tdetail:  " + d + "\n")
		}
		if err := checkParts(&l); err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
		b.WriteString("\tshort:   " + l.Short(Short) + "\n\tshorter: " + l.Short(Shortest) + "\n\tkey:     " + l.Key() + "\n")
	}
	got := b.String()
	path := filepath.Join("testdata", "digest.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render/digest -update to create it)", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("digests differ from %s (-want +got):\n%s", path, diff)
	}
}

// TestNoResultBulk checks that no digest shows a result's body: only counts,
// line numbers, status words, the first line of an error and the paths a
// search matched may come from a result.
func TestNoResultBulk(t *testing.T) {
	const bulk = "BULK-7f3e"
	body := "\n" + strings.Repeat("filler line\n", 3) + bulk + " output line\n"
	for _, f := range fixtures() {
		c := f.call
		// A path list's lines are its paths.
		if !c.HasResult || c.Name == "Glob" || c.Name == "Grep" && !strings.Contains(string(c.Input), `"content"`) {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			c.Result += body
			if len(c.Structured) > 0 || !c.IsError {
				c.Structured = []byte(`{"stdout":"` + bulk + `","content":"` + bulk + `","file":{"content":"` + bulk + `"}}`)
			}
			if got := fullLine(c, f.cwd); strings.Contains(got, bulk) {
				t.Errorf("Line() = %q, shows result text %q", got, bulk)
			}
		})
	}
	// A normal result's first line is bulk too (file or command output).
	for _, name := range []string{"Read", "Bash", "Grep", "Task", "Agent", "WebFetch", "WebSearch", "TaskOutput", "mcp__x__y", "Other"} {
		c := done(call(name, `{"command":"ls","file_path":"/a","pattern":"p","description":"d","url":"https://a.b/c","query":"q","task_id":"t"}`),
			bulk+"\n"+bulk)
		if got := fullLine(c, cwd); strings.Contains(got, bulk) {
			t.Errorf("Line(%s) = %q, shows result text %q", name, got, bulk)
		}
	}
	// Grep shows the paths of matches, never their text.
	for _, mode := range []string{"content", "count"} {
		c := done(call("Grep", `{"pattern":"p","output_mode":"`+mode+`","-C":2}`),
			"Found 2 files\na.go:1:"+bulk+"\na.go-2-"+bulk+":3:x\n--\nb.go:4:"+bulk+"\n"+bulk+":x\n12:"+bulk+"\n\nFound 5 total occurrences across 2 files.")
		if got := fullLine(c, cwd); strings.Contains(got, bulk) {
			t.Errorf("Line(Grep %s) = %q, shows result text %q", mode, got, bulk)
		}
	}
}

// TestPrivate checks that text inside <private> never reaches a digest,
// wherever it sits in the call.
func TestPrivate(t *testing.T) {
	const secret = "SECRET-4c1d"
	p := "<private>" + secret + "</private>"
	calls := []Call{
		done(call("Read", `{"file_path":"/home/dev/proj/`+p+`/a.go"}`), numbered(2)),
		done(call("Write", `{"file_path":"/home/dev/proj/a`+p+`.go","content":"x"}`), "File created"),
		done(call("Bash", `{"command":"echo `+p+` && ls"}`), ""),
		done(call("Bash", `{"command":"","description":"`+p+`"}`), ""),
		done(call("Grep", `{"pattern":"`+p+`","path":"/home/dev/proj/`+p+`","glob":"`+p+`"}`), "Found 1 file"),
		done(call("Glob", `{"pattern":"`+p+`"}`), "No files found"),
		done(call("Task", `{"description":"`+p+`","prompt":"`+p+`","subagent_type":"`+p+`"}`), "ok"),
		done(call("Task", `{"prompt":"`+p+`"}`), "ok"),
		done(call("TodoWrite", `{"todos":[{"content":"`+p+`","status":"in_progress","activeForm":"`+p+`"}]}`), "ok"),
		done(call("WebFetch", `{"url":"https://`+p+`.example.com/`+p+`"}`), "ok"),
		done(call("WebSearch", `{"query":"`+p+`"}`), "ok"),
		done(call("Skill", `{"skill":"`+p+`","args":"`+p+`"}`), "ok"),
		done(call("ExitPlanMode", `{"plan":"# `+p+`"}`), "User has approved"),
		done(call("AskUserQuestion", `{"questions":[{"question":"`+p+`","header":"`+p+`"}]}`), "answered"),
		done(call("TaskCreate", `{"subject":"`+p+`"}`), "Task #1 created"),
		done(call("mcp__s__t", `{"body":"`+p+`"}`), "ok"),
		done(call("mcp__s__t", `{"title":"`+p+`"}`), "ok"),
		done(call("mcp__s"+p+`__t`, `{}`), "ok"),
		done(call("Other", `{"text":"`+strings.Repeat("x", 500)+p+`"}`), "ok"),
		failed(call("Bash", `{"command":"x"}`), "Error: "+p+" failed"),
		failed(call("Read", `{"file_path":"/a"}`), "<tool_use_error>"+p+"</tool_use_error>"),
		failed(call("Read", `{"file_path":"/a"}`), "<private>\n"+secret),
		// Removing a block must not join the text around it into a new tag.
		done(call("Bash", `{"command":"echo <pri<private>x</private>vate>`+secret+`</private>"}`), ""),
		// An unclosed <private> hides everything after it.
		done(call("Bash", `{"command":"echo <private>`+secret+`"}`), ""),
		done(call("Read", `{"file_path":"/a/<PRIVATE >`+secret+`</Private>b"}`), numbered(1)),
		// Results: a path or an error line inside a private block.
		done(call("Glob", `{"pattern":"*"}`), "/a\n<private>\n/"+secret+"\n</private>\n/b"),
		done(call("Glob", `{"pattern":"*"}`), "/a\n<private>\n/"+secret+"\n"+strings.Repeat("/x\n", 3000)+"</private>"),
		done(call("Grep", `{"pattern":"p"}`), "Found 3 files\n<private>\n"+secret+".go\n</private>\nb.go"),
		done(call("Grep", `{"pattern":"p","output_mode":"content"}`), "a.go:1:<private>\n"+secret+".go:2:x\n</private>"),
		done(call("Grep", `{"pattern":"p","output_mode":"count"}`), "<private>"+secret+".go:2</private>\nb.go:1"),
		failed(call("Bash", `{"command":"make"}`), "Exit code 2\n<private>\nerror: "+secret+"\n</private>\nerror: done"),
		failed(call("Bash", `{"command":"make"}`), "Exit code 2\nok <private>\nerror: "+secret),
		failed(call("Bash", `{"command":"make"}`), "Exit code 2\n<private>"+strings.Repeat("x", 3000)+"\nerror: "+secret+"</private>"),
		// Failed tests' names inside a private block.
		failed(call("Bash", `{"command":"go test"}`), "Exit code 1\n--- FAIL: TestA\n<private>\n--- FAIL: "+secret+"\n</private>\n--- FAIL: TestB"),
		failed(call("Bash", `{"command":"go test"}`), "Exit code 1\n"+strings.Repeat("ok\n", 100)+"<private>--- FAIL: "+secret),
	}
	calls = append(calls,
		done(call("Edit", `{"file_path":"/a.go","old_string":"oldName","new_string":"newName <private>`+secret+`_x</private> keptName"}`), "ok"),
		done(call("Edit", `{"file_path":"/a.go","old_string":"oldName <private>","new_string":"newName `+secret+`_x"}`), "ok"),
		done(call("Write", `{"file_path":"/a.go","content":"a_b <private>\n`+secret+`_x"}`), "ok"),
		done(call("MultiEdit", `{"file_path":"/a.go","edits":[{"old_string":"a","new_string":"<private>`+secret+`_x</private>"}]}`), "ok"),
		done(call("NotebookEdit", `{"notebook_path":"/a.ipynb","new_source":"<private>`+secret+`_x"}`), "ok"),
		done(call("Task", `{"description":"d"}`), "see a/b.go <private>\n"+secret+"/x.go\n</private> and c/d.go"),
		done(call("Bash", `{"command":"git status"}`), " M a/b.go\n<private>\n"+secret+"/x.go\n</private>\n M c/d.go"),
	)
	for _, c := range calls {
		for _, got := range []string{fullLine(c, cwd), Pending(c, cwd), Salient(c, cwd), describedDetail(c, cwd)} {
			if strings.Contains(got, secret) {
				t.Errorf("%s %s: digest %q shows private text", c.Name, c.Input, got)
			}
		}
	}
}

func TestBounds(t *testing.T) {
	long := strings.Repeat("ä", 5000)
	tests := []struct {
		name string
		call Call
	}{
		{"LongCommand", done(call("Bash", `{"command":"`+long+`"}`), "")},
		{"LongError", failed(call("Bash", `{"command":"x"}`), "Error: "+long)},
		{"LongName", done(call(long, `{}`), "")},
		{"LongMCP", done(call("mcp__"+long+"__"+long, `{"a":"`+long+`"}`), "")},
		{"LongPath", done(call("Read", `{"file_path":"/`+long+`"}`), numbered(3))},
		{"LongEverything", failed(call(long, `{"file_path":"/`+long+`","command":"`+long+`"}`), long)},
		{"Newlines", done(call("Bash\r\nX", `{"command":"a\r\rb\u2028c\u0085d\te"}`), "")},
		{"InvalidUTF8", Call{Name: "Bash\xff", Input: []byte("{\"command\":\"a\xff\xfeb\"}"), HasResult: true, IsError: true, Result: "Error: \xc3(\n"}},
		{"ControlChars", done(call("Bash", `{"command":"\u0000\u001b[31mred\u007f"}`), "")},
		{"NullInput", done(call("Read", `null`), "")},
		{"ArrayInput", done(call("Read", `[1,2]`), "")},
		{"WrongTypes", done(call("Read", `{"file_path":7,"offset":"x","limit":-5}`), "")},
		{"HugeNumbers", done(call("Read", `{"file_path":"/a","offset":9223372036854775807,"limit":9223372036854775807}`), "")},
		{"WrongTodoTypes", done(call("TodoWrite", `{"todos":"x"}`), "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fullLine(tt.call, cwd); checkDigest(got, LineMax(tt.call.Name)) != nil {
				t.Errorf("%v: %q", checkDigest(got, LineMax(tt.call.Name)), got)
			}
			for _, got := range []string{Pending(tt.call, cwd), Salient(tt.call, cwd)} {
				if err := checkDigest(got, MaxRunes); err != nil {
					t.Errorf("%v: %q", err, got)
				}
			}
		})
	}
}

func TestRel(t *testing.T) {
	tests := []struct{ p, cwd, want string }{
		{"/home/dev/proj/a.go", "/home/dev/proj", "a.go"},
		{"/home/dev/proj/a.go", "/home/dev/proj/", "a.go"},
		{"/home/dev/proj", "/home/dev/proj", "."},
		{"/home/dev/project/a.go", "/home/dev/proj", "/home/dev/project/a.go"},
		{"/home/dev/proj/a.go", "", "/home/dev/proj/a.go"},
		{"/etc/hosts", "/", "/etc/hosts"},
		{"relative/a.go", "/home/dev/proj", "relative/a.go"},
		{`C:\src\proj\cmd\main.go`, `C:\src\proj`, `cmd\main.go`},
		{`c:/src/proj/main.go`, `C:\src\proj`, `main.go`},
		{`C:\SRC\proj\main.go`, `C:\src\proj`, `main.go`},
		{"/Home/dev/proj/a.go", "/home/dev/proj", "/Home/dev/proj/a.go"},
	}
	for _, tt := range tests {
		if got := Rel(tt.p, tt.cwd); got != tt.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", tt.p, tt.cwd, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"FlattenSpaces", flatten("  a \n\t b\r\nc  "), "a b c"},
		{"FlattenInvalid", flatten("a\xffb"), "a\uFFFDb"},
		{"FlattenLineSeparator", flatten("a\u2028b"), "a b"},
		{"FlattenUnchanged", flatten("go test ./..."), "go test ./..."},
		{"BoundShort", bound("abc", 3), "abc"},
		{"BoundCut", bound("abcdef", 4), "abc…"},
		{"BoundRunes", bound("äöüäöü", 4), "äöü…"},
		{"BoundTrimsSpace", bound("ab  cdef", 4), "ab…"},
		{"BoundTail", boundTail("/aaaa/bbbb/cccc/file.go", 14), "…/cccc/file.go"},
		{"BoundTailShort", boundTail("/a/b.go", 14), "/a/b.go"},
		{"CleanHuge", clean(strings.Repeat("x", 10000), 10), "xxxxxxxxx…"},
		{"CleanHugeSpaces", clean("a"+strings.Repeat(" ", 10000)+"b", 10), "a…"},
		{"CleanJoinedTags", clean("<pri<private>x</private>vate>s</private>", 40), ""},
		{"FirstLine", firstLine("\n  \n  one\ntwo"), "one"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func BenchmarkLine(b *testing.B) {
	read := done(call("Read", `{"file_path":"/home/dev/proj/render/bottle.go","offset":1,"limit":2000}`), numbered(2000))
	bash := failed(call("Bash", `{"command":"go test ./...","description":"Run tests"}`), "Exit code 1\n"+strings.Repeat("output line\n", 5000))
	edit := done(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"`+strings.Repeat("x", 10000)+`","new_string":"y"}`), "The file has been updated.")
	for _, bc := range []struct {
		name string
		c    Call
	}{{"Read2000Lines", read}, {"BashExit", bash}, {"Edit10KB", edit}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				fullLine(bc.c, cwd)
			}
		})
	}
}

// TestNameBytes: the table marks the letters, digits and '_', no other byte.
func TestNameBytes(t *testing.T) {
	for b := range 256 {
		want := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
		if nameByte(byte(b)) != want {
			t.Errorf("nameByte(%q) = %v, want %v", rune(b), !want, want)
		}
	}
}

// TestAnswers: the user's answers, read from the result as asked; a
// private block is stripped before the result is cut into answers, so one
// that spans two answers leaks neither.
func TestAnswers(t *testing.T) {
	input := json.RawMessage(`{"questions":[{"question":"One?","header":"A"},{"question":"Two?"}]}`)
	tests := []struct{ name, result, want string }{
		{"two", `User has answered your questions: "One?"="x", "Two?"="y z". You can now continue.`, "A: x\n\nTwo?: y z"},
		{"private spans two", `User has answered your questions: "One?"="<private>s1", "Two?"="s2</private> z". You can now continue.`, ""},
		{"private in one", `User has answered your questions: "One?"="<private>s1</private>", "Two?"="z". You can now continue.`, "Two?: z"},
		{"not answered", `The user doesn't want to proceed with this tool use.`, ""},
		{"a question missing", `User has answered your questions: "One?"="x". You can now continue.`, ""},
	}
	for _, tt := range tests {
		if got := Answers(input, tt.result); got != tt.want {
			t.Errorf("%s: Answers = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// fullLine is the full form of c's digest.
func fullLine(c Call, cwd string) string {
	l := Of(c, cwd)
	return l.Full()
}

// checkParts checks that a line's parts put together give its forms: the
// parts, not the text, are what the short forms read.
func checkParts(l *Line) error {
	p := Parts{Tool: l.Tool(), Kind: l.Kind(), Subject: l.Subject(), Range: l.Range(), Scope: l.Scope(), Note: l.Note(),
		Outcome: l.Outcome(), Paths: l.Paths(), More: l.More(), Max: l.Max()}
	if st := l.Status(); st != l.Outcome() {
		p.Status = st
	}
	if got := p.Line(); got.Full() != l.Full() {
		return fmt.Errorf("parts %+v give %q, want the full form %q", p, got.Full(), l.Full())
	}
	for _, level := range []ShortLevel{Short, Shortest} {
		if err := checkDigest(l.Short(level), l.Max()); err != nil {
			return fmt.Errorf("short form %d: %v: %q", level, err, l.Short(level))
		}
	}
	return nil
}

// TestShortKeepsFileName: a short form keeps a path's file name, whatever
// the path holds (a space, a long folder) and whatever follows it.
func TestShortKeepsFileName(t *testing.T) {
	tests := []struct {
		call  Call
		level ShortLevel
		want  string
	}{
		{done(call("Read", `{"file_path":"/Users/me/Library/Application Support/Code/User/settings.json","offset":1,"limit":40}`), numbered(40)),
			Short, "Read: …/me/Library/Application Support/Code/User/settings.json — 40 lines"},
		{done(call("Read", `{"file_path":"/Users/me/Library/Application Support/Code/User/settings.json","offset":1,"limit":40}`), numbered(40)),
			Shortest, "Read: settings.json — 40 lines"},
		{done(call("Read", `{"file_path":"/Users/me/Library/Application Support/Code/User/settings.json","offset":10,"limit":40}`), numberedFrom(10, 20)),
			Shortest, "Read: settings.json:10-29"},
		{done(call("Write", `{"file_path":"/home/dev/proj/internal/storage/migrations/versions/0042_add_index.sql","content":"a\nb\n"}`), "File created successfully"),
			Shortest, "Write: 0042_add_index.sql (2 lines) — created"},
		{done(call("Grep", `{"pattern":"TODO","path":"/home/dev/proj/My Documents/notes and drafts"}`), "Found 1 file\nMy Documents/notes and drafts/a.md"),
			Shortest, `Grep: "TODO" — 1 file`},
	}
	for _, tt := range tests {
		l := Describe(tt.call, cwd)
		if got := l.Short(tt.level); got != tt.want {
			t.Errorf("%s.Short(%d) = %q, want %q", l.Full(), tt.level, got, tt.want)
		}
	}
}

// TestCredentials: a digest shows no credential and no value assigned to a
// secret's name, wherever the call holds it (a command, a written file's
// names, an edit, a failed command's error line), and names never come from
// a string literal.
func TestCredentials(t *testing.T) {
	const (
		token  = "ghp_" + "Zq8Lw2Xr5Tn7Vb3Mk9Hd4Jf6Gs1Pc0YaUex1"
		stripe = "sk_live_" + "51Hq8Lw2Xr5Tn7Vb3Mk9Hd4J"
		pw     = "hunter2" + "_horse_battery"
	)
	secrets := []string{token, stripe, pw, "literal_inside_x"}
	calls := []Call{
		done(call("Write", `{"file_path":"/a.go","content":"const GITHUB_TOKEN = \"`+token+`\"\nvar stripeKey = '`+stripe+`'\nDB_PASSWORD=`+pw+`\nmsg := \"literal_inside_x\"\nfunc retryCount_x() {}"}`), "File created"),
		done(call("Edit", `{"file_path":"/a.go","old_string":"old_name()","new_string":"API_TOKEN: `+token+`\nnew_call_x(\"literal_inside_x\")\nsecret_key = `+pw+`"}`), "ok"),
		done(call("Bash", `{"command":"GITHUB_TOKEN=`+token+` DB_PASSWORD=`+pw+` ./deploy"}`), "ok"),
		failed(call("Bash", `{"command":"./deploy"}`), "Exit code 1\nerror: bad token "+token+" (PASSWORD="+pw+")"),
		failed(call("Read", `{"file_path":"/a"}`), "Error: key "+stripe+" rejected"),
		done(call("WebFetch", `{"url":"https://bob:`+pw+`@example.com/x","prompt":"p"}`), "ok"),
	}
	for _, c := range calls {
		l := Of(c, cwd)
		for _, got := range []string{l.Full(), l.Pending(), l.Salient(), l.Short(Short), l.Short(Shortest), l.Detail()} {
			for _, s := range secrets {
				if strings.Contains(got, s) {
					t.Errorf("%s: digest %q shows %q", c.Name, got, s)
				}
			}
		}
	}
	if d := describedDetail(calls[0], cwd); !strings.Contains(d, "retryCount_x") || !strings.Contains(d, "GITHUB_TOKEN") {
		t.Errorf("Write's names lost the code names: %q", d)
	}
	if l := fullLine(calls[3], cwd); !strings.Contains(l, "[redacted: github-token]") {
		t.Errorf("the error line does not say what it redacted: %q", l)
	}
}

// describedDetail is the detail of c's digest.
func describedDetail(c Call, cwd string) string {
	l := Describe(c, cwd)
	return l.Detail()
}
