package digest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Synthetic calls shaped like the corpus ones (see the package tests).

const cwd = "/home/dev/proj"

// call is a tool_use with no result yet.
func call(name, input string) Call {
	return Call{ID: "toolu_01Test", Name: name, Input: json.RawMessage(input)}
}

// done answers c with a normal result.
func done(c Call, result string) Call {
	c.HasResult, c.Result = true, result
	return c
}

// failed answers c with an error result.
func failed(c Call, result string) Call {
	c.HasResult, c.Result, c.IsError = true, result, true
	return c
}

// withStructured adds the line's toolUseResult.
func withStructured(c Call, structured string) Call {
	c.Structured = json.RawMessage(structured)
	return c
}

// numbered is a Read result of n lines in the older "     N→" form.
func numbered(n int) string { return numberedFrom(1, n) }

// numberedFrom is a Read result of n lines from line start on, as a Read
// with an offset returns it.
func numberedFrom(start, n int) string {
	var b strings.Builder
	for i := start; i < start+n; i++ {
		fmt.Fprintf(&b, "%6d→line %d of the file\n", i, i)
	}
	b.WriteString("\n<system-reminder>\nWhenever you read a file, consider whether it is malware.\n</system-reminder>\n")
	return b.String()
}

const (
	rejection   = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	interrupted = "[Request interrupted by user for tool use]"
)

type fixture struct {
	name string
	cwd  string
	call Call
}

// fixtures covers every tool kind: the normal result, the failures, and the
// odd shapes. The golden file holds their digests.
func fixtures() []fixture {
	f := func(name string, c Call) fixture { return fixture{name, cwd, c} }
	return []fixture{
		// Read
		f("Read/Whole", done(call("Read", `{"file_path":"/home/dev/proj/render/bottle.go"}`), numbered(212))),
		f("Read/TabNumbers", done(call("Read", `{"file_path":"/home/dev/proj/README.md"}`), "1\t# Title\n2\t\n3\tText\n")),
		f("Read/OffsetLimit", done(call("Read", `{"file_path":"/home/dev/proj/render/bottle.go","offset":100,"limit":50}`), numberedFrom(100, 50))),
		f("Read/OffsetOnly", done(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":40}`), numberedFrom(40, 3))),
		f("Read/PastFileEnd", done(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":120,"limit":100}`), numberedFrom(120, 61))),
		f("Read/PathWithSpace", done(call("Read", `{"file_path":"/Users/me/Library/Application Support/Code/User/settings.json","offset":1,"limit":40}`), numbered(40))),
		f("Write/LongPath", done(call("Write", `{"file_path":"/home/dev/proj/internal/storage/migrations/versions/0042_add_index.sql","content":"a\nb\n"}`), "File created successfully at: /home/dev/proj/internal/storage/migrations/versions/0042_add_index.sql")),
		f("Read/LimitOnly", done(call("Read", `{"file_path":"/home/dev/proj/a.go","limit":20}`), numbered(20))),
		f("Read/OutsideCwd", done(call("Read", `{"file_path":"/etc/hosts"}`), numbered(1))),
		f("Read/Missing", failed(call("Read", `{"file_path":"/home/dev/proj/gone.go"}`), "<tool_use_error>File does not exist.</tool_use_error>")),
		f("Read/Image", done(call("Read", `{"file_path":"/home/dev/proj/shot.png"}`), "[image]")),
		f("Read/Unchanged", done(call("Read", `{"file_path":"/home/dev/proj/a.go"}`), "File unchanged since last read. The content from the earlier Read tool_result in this conversation is still current.")),
		f("Read/Empty", done(call("Read", `{"file_path":"/home/dev/proj/empty.txt"}`), "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>")),
		f("Read/PastEnd", withStructured(done(call("Read", `{"file_path":"/home/dev/proj/a.go","offset":500,"limit":50}`),
			"<system-reminder>Warning: the file exists but is shorter than the provided offset (500). The file has 480 lines.</system-reminder>"),
			`{"type":"text","file":{"filePath":"/home/dev/proj/a.go","content":"","numLines":0,"startLine":500,"totalLines":480}}`)),
		f("Read/LongPath", done(call("Read", `{"file_path":"/home/dev/proj/`+strings.Repeat("deeply/", 15)+`nested/file_with_a_long_name.go"}`), numbered(2))),
		f("Read/NoResult", call("Read", `{"file_path":"/home/dev/proj/render/bottle.go"}`)),
		{"Read/WindowsCwd", `C:\Users\dev\proj`, done(call("Read", `{"file_path":"c:\\Users\\dev\\proj\\src\\main.go"}`), numbered(7))},
		{"Read/NoCwd", "", done(call("Read", `{"file_path":"/home/dev/proj/a.go"}`), numbered(7))},
		f("Read/PDFPages", done(call("Read", `{"file_path":"/home/dev/proj/spec.pdf","pages":"1-3"}`), "[image]")),

		// Write
		f("Write/Created", done(call("Write", `{"file_path":"/home/dev/proj/docs/plan.md","content":"# Plan\n\nStep one.\n"}`), "File created successfully at: /home/dev/proj/docs/plan.md")),
		f("Write/Updated", done(call("Write", `{"file_path":"/home/dev/proj/docs/plan.md","content":"one line, no newline"}`), "The file /home/dev/proj/docs/plan.md has been updated. Here's the result of running `cat -n`:\n     1→one line")),
		f("Write/NotRead", failed(call("Write", `{"file_path":"/home/dev/proj/x.md","content":""}`), "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>")),

		// Edit, MultiEdit, NotebookEdit
		f("Edit/Ok", done(call("Edit", `{"file_path":"/home/dev/proj/render/bottle.go","old_string":"a","new_string":"b","replace_all":false}`), "The file /home/dev/proj/render/bottle.go has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n    10→b")),
		f("Edit/ReplaceAll", done(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"x","new_string":"y","replace_all":true}`), "The file /home/dev/proj/a.go has been updated. All occurrences of 'x' were successfully replaced with 'y'.")),
		f("Edit/NotFound", failed(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"func old() {","new_string":"func new() {"}`), "<tool_use_error>String to replace not found in file.\nString: func old() {</tool_use_error>")),
		f("Edit/Rejected", failed(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"x","new_string":"y"}`), rejection)),
		f("MultiEdit/Three", done(call("MultiEdit", `{"file_path":"/home/dev/proj/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"},{"old_string":"e","new_string":"f"}]}`), "Applied 3 edits to /home/dev/proj/a.go")),
		f("Edit/Names", done(call("Edit", `{"file_path":"/home/dev/proj/fetch/retry.go","old_string":"func fetch(url string) error {\n\treturn http.Get(url)\n}","new_string":"func fetch(url string) error {\n\treturn retryGet(url, max_tries)\n}\n\nfunc retryGet(url string, n int) error { return backoff.Retry(n) }"}`), "The file /home/dev/proj/fetch/retry.go has been updated.")),
		f("Edit/LibraryLast", done(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"x","new_string":"fmt.Fprintf(os.Stderr, msg)\nretryCount := strings.TrimSpace(s)\nfetch.Do(retryCount)"}`), "The file /home/dev/proj/a.go has been updated.")),
		f("Edit/Qualified", done(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"x","new_string":"retryCount := 1\nfetchAll()\nclient.fetchAll()\nfetchAll()"}`), "The file /home/dev/proj/a.go has been updated.")),
		f("Edit/NamesBounded", done(call("Edit", `{"file_path":"/home/dev/proj/a.go","old_string":"x","new_string":"`+manyNames(40)+`"}`), "The file /home/dev/proj/a.go has been updated.")),
		f("MultiEdit/Names", done(call("MultiEdit", `{"file_path":"/home/dev/proj/a.go","edits":[{"old_string":"oldName()","new_string":"newName()"},{"old_string":"cfg.Old","new_string":"cfg.New"}]}`), "Applied 2 edits to /home/dev/proj/a.go")),
		f("Write/Names", done(call("Write", `{"file_path":"/home/dev/proj/fetch/client.go","content":"package fetch\n\ntype Client struct{ maxRetries int }\n\nfunc NewClient() *Client { return &Client{maxRetries: 3} }\n"}`), "File created successfully at: /home/dev/proj/fetch/client.go")),
		f("NotebookEdit/Insert", done(call("NotebookEdit", `{"notebook_path":"/home/dev/proj/nb/analysis.ipynb","cell_id":"c3f9","new_source":"print(1)","cell_type":"code","edit_mode":"insert"}`), "Inserted cell c3f9")),
		f("NotebookRead/Cell", done(call("NotebookRead", `{"notebook_path":"/home/dev/proj/nb/analysis.ipynb","cell_id":"c3f9"}`), "<cell id=\"c3f9\">print(1)</cell>")),

		// Bash and shells
		f("Bash/Ok", done(call("Bash", `{"command":"go test ./...","description":"Run tests"}`), "ok  \tbottle/render\t0.4s")),
		f("Bash/Exit1", failed(call("Bash", `{"command":"go test ./...","description":"Run tests"}`), "Exit code 1\n--- FAIL: TestLine (0.00s)\n    digest_test.go:12: got x\nFAIL")),
		f("Bash/ExitAfterBanner", failed(call("Bash", `{"command":"make lint"}`), "Exit code 2\n[lint] $ golangci-lint run ./...\nrender/bottle.go:41:2: ineffectual assignment to err (ineffassign)\nmake: *** [lint] Error 1")),
		f("Bash/ExitNotFlagged", done(call("Bash", `{"command":"test -f go.sum"}`), "Exit code 1")),
		f("Bash/Heredoc", done(call("Bash", `{"command":"git commit -m \"$(cat <<'EOF'\nfix: bound digests\n\nBody.\nEOF\n)\"","description":"Commit"}`), "[main 1a2b3c4] fix: bound digests\n 1 file changed")),
		f("Bash/CdCwd", done(call("Bash", `{"command":"cd /home/dev/proj && make lint"}`), "")),
		f("Bash/Background", done(call("Bash", `{"command":"npm run dev","run_in_background":true}`), "Command running in background with ID: b7x2k")),
		f("Bash/Interrupted", failed(call("Bash", `{"command":"sleep 600"}`), interrupted)),
		f("Bash/InterruptedStructured", withStructured(done(call("Bash", `{"command":"sleep 600"}`), ""), `{"stdout":"","stderr":"","interrupted":true,"isImage":false}`)),
		f("Bash/NoMatches", withStructured(done(call("Bash", `{"command":"grep -rn TODO lib"}`), ""), `{"stdout":"","stderr":"","interrupted":false,"isImage":false,"returnCodeInterpretation":"No matches found"}`)),
		f("Bash/Timeout", failed(call("Bash", `{"command":"npm run serve","timeout":30000}`), "Command timed out after 30s\nserver listening on :8080")),
		f("Bash/Diff", done(call("Bash", `{"command":"git diff HEAD~1"}`), "diff --git a/render/a.go b/render/a.go\nindex 1..2 100644\n--- a/render/a.go\n+++ b/render/a.go\n@@ -1 +1 @@\n-see a/notes.md\n+x\ndiff --git a/cmd/b.go b/cmd/b.go\n")),
		f("Bash/HookError", failed(call("Bash", `{"command":"git commit -am wip"}`), `pre-commit hook failed:\n\n[fmt] 2 files need formatting.`)),
		f("Bash/Rejected", failed(call("Bash", `{"command":"git push --force"}`), rejection)),
		f("Bash/SiblingError", failed(call("Bash", `{"command":"make check"}`), "<tool_use_error>Sibling tool call errored</tool_use_error>")),
		f("Bash/OnlyDescription", done(call("Bash", `{"command":"","description":"Nothing to run"}`), "")),
		f("Bash/NoResult", call("Bash", `{"command":"npm test","description":"Run the tests"}`)),
		f("BashOutput/Running", done(call("BashOutput", `{"bash_id":"b7x2k"}`), "<status>running</status>\n\n<stdout>\nListening on :4000\n</stdout>")),
		f("BashOutput/Exited", done(call("BashOutput", `{"bash_id":"b7x2k"}`), "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nbuilt\n</stdout>")),
		f("KillShell/Ok", done(call("KillShell", `{"shell_id":"b7x2k"}`), `{"message":"Successfully killed shell: b7x2k (npm run dev)","shell_id":"b7x2k"}`)),
		f("TaskStop/Ok", done(call("TaskStop", `{"task_id":"b7x2k"}`), "Stopped task b7x2k")),

		// Grep, Glob, LS
		f("Grep/Files", done(call("Grep", `{"pattern":"func Line","path":"/home/dev/proj/render","output_mode":"files_with_matches"}`), "Found 2 files\nrender/digest/digest.go\nrender/bottle.go")),
		f("Grep/DefaultMode", done(call("Grep", `{"pattern":"TODO"}`), "Found 1 file\nrender/bottle.go")),
		f("Grep/Content", done(call("Grep", `{"pattern":"ctx\\.Done","path":"/home/dev/proj","output_mode":"content","-n":true,"glob":"*.go"}`), "a.go:31:\tcase <-ctx.Done():\nb.go:88:\t<-ctx.Done()\n\n[Showing results with pagination = limit: 20, offset: 0]")),
		f("Grep/Context", done(call("Grep", `{"pattern":"MaxRunes","path":"/home/dev/proj/render","output_mode":"content","-C":1}`), "a.go-9-\tx\na.go:10:\tMaxRunes\na.go-11-\ty\n--\nb.go-1-\tz\nb.go:2:\tMaxRunes\n")),
		f("Grep/Count", done(call("Grep", `{"pattern":"t\\.Helper","output_mode":"count","type":"go"}`), "a.go:3\nb.go:9\n\nFound 12 total occurrences across 2 files.")),
		f("Grep/CompactPattern", done(call("Grep", `{"pattern":"FilesTouched|ModifiedFiles|NewFiles|DeletedFiles|tree|Tree","path":"/home/dev/proj/internal/checkpoint","output_mode":"files_with_matches"}`), "Found 4 files\ninternal/checkpoint/checkpoint.go\ninternal/checkpoint/committed.go\ninternal/checkpoint/checkpoint_test.go\ninternal/checkpoint/temporary.go")),
		f("Grep/ManyFiles", done(call("Grep", `{"pattern":"digest\\.Line","output_mode":"files_with_matches"}`), "Found 9 files\nrender/digest/digest.go\nrender/digest/digest_test.go\nhost/claudecode/transcript/digester.go\nrender/budget.go\nrender/bottle.go\nrender/merge.go\nhookbin/main.go\nREADME.md\ndocs/notes.md")),
		f("Grep/ContentOneFile", done(call("Grep", `{"pattern":"func ","path":"/home/dev/proj/render/budget.go","output_mode":"content","-n":true}`), "12:func fold() {\n40:func shorten() {\n")),
		f("Grep/ContentAbsolute", done(call("Grep", `{"pattern":"TODO","output_mode":"content","-B":1}`), "/home/dev/proj/a.go-9-\tx()\n/home/dev/proj/a.go:10:\t// TODO\n--\n/home/dev/proj/cmd/main.go:3:// TODO\n")),
		f("Grep/NoMatches", done(call("Grep", `{"pattern":"nothing here","output_mode":"content"}`), "No matches found")),
		f("Grep/Persisted", withStructured(done(call("Grep", `{"pattern":"Options","output_mode":"content","-A":30}`),
			"<persisted-output>\nOutput too large (41KB). Full output saved to: /home/dev/.claude/out.txt\n\nPreview (first 2KB):\na.go:1:Options\n</persisted-output>"),
			`{"mode":"content","numFiles":0,"filenames":[],"content":"a.go:1:Options\na.go-2-\tx\n--\n/home/dev/proj/cmd/b.go:7:Options{}\n/home/dev/proj/cmd/b.go-8-}","numLines":5}`)),
		f("Grep/PersistedFiles", withStructured(done(call("Grep", `{"pattern":"Options"}`),
			"<persisted-output>\nOutput too large (30KB). Full output saved to: /home/dev/.claude/out.txt\n\nPreview (first 2KB):\nFound 3 files\n</persisted-output>"),
			`{"mode":"files_with_matches","numFiles":3,"filenames":["/home/dev/proj/a.go","/home/dev/proj/cmd/b.go","/home/dev/proj/c.go"]}`)),
		f("Grep/PersistedCount", withStructured(done(call("Grep", `{"pattern":"Options","output_mode":"count"}`),
			"<persisted-output>\nOutput too large (30KB). Full output saved to: /home/dev/.claude/out.txt\n</persisted-output>"),
			`{"mode":"count","numFiles":2,"filenames":[],"content":"a.go:3\ncmd/b.go:9","numMatches":12}`)),
		f("Grep/PersistedNoContent", withStructured(done(call("Grep", `{"pattern":"Options","output_mode":"content"}`),
			"<persisted-output>\nOutput too large (41KB). Full output saved to: /home/dev/.claude/out.txt\n</persisted-output>"),
			`{"mode":"content","numLines":412}`)),
		f("Glob/Persisted", withStructured(done(call("Glob", `{"pattern":"**/*.go"}`),
			"<persisted-output>\nOutput too large (60KB). Full output saved to: /home/dev/.claude/out.txt\n</persisted-output>"),
			`{"filenames":["/home/dev/proj/a.go","/home/dev/proj/cmd/b.go"],"numFiles":2,"truncated":true}`)),
		f("Bash/Persisted", withStructured(done(call("Bash", `{"command":"gh pr diff 88"}`),
			"<persisted-output>\nOutput too large (154KB). Full output saved to: /home/dev/.claude/out.txt\n\nPreview (first 2KB):\ndiff --git a/a.go b/a.go\n</persisted-output>"),
			`{"stdout":"diff --git a/render/a.go b/render/a.go\n+x\n<private>diff --git a/secret/key.go b/secret/key.go</private>\ndiff --git a/cmd/b.go b/cmd/b.go","stderr":"","interrupted":false,"isImage":false}`)),
		f("Grep/PersistedBare", done(call("Grep", `{"pattern":"Options","output_mode":"content"}`),
			"<persisted-output>\nOutput too large (41KB). Full output saved to: /home/dev/.claude/out.txt\n</persisted-output>")),
		f("Glob/Files", done(call("Glob", `{"pattern":"**/*_test.go","path":"/home/dev/proj/render"}`), "/home/dev/proj/render/a_test.go\n/home/dev/proj/render/b_test.go\n/home/dev/proj/render/c_test.go")),
		f("Glob/Truncated", done(call("Glob", `{"pattern":"**/*.css"}`), "/home/dev/proj/a.css\n/home/dev/proj/b.css\n(Results are truncated. Consider using a more specific path or pattern.)")),
		f("Glob/Many", done(call("Glob", `{"pattern":"render/**/*.go"}`), "/home/dev/proj/render/bottle.go\n/home/dev/proj/render/budget.go\n/home/dev/proj/render/digest/digest.go\n/home/dev/proj/render/digest/tools.go\n/home/dev/proj/render/digest/result.go\n/home/dev/proj/render/merge.go\n/home/dev/proj/render/pointer.go")),
		f("Glob/None", done(call("Glob", `{"pattern":"docs/plans/*.md"}`), "No files found")),
		f("LS/Dir", done(call("LS", `{"path":"/home/dev/proj/render"}`), "- /home/dev/proj/render/\n  - bottle.go\n")),

		// Agents, tasks, todos
		f("Task/Finished", done(call("Task", `{"description":"review security","prompt":"Review the diff for security issues.","subagent_type":"general-purpose"}`), "I reviewed the diff. Findings:\n1. none\nagentId: a1b2c3")),
		f("Bash/CitesFiles", done(call("Bash", `{"command":"git status --short && git diff --stat"}`), " M cmd/main.go\n?? docs/notes.md\n cmd/main.go | 4 ++--\n pushed to git@github.com:org/repo.git and https://example.com/a/b.html; /x.go")),
		f("Task/CitesFiles", done(call("Task", `{"description":"Map the retries","prompt":"Find retries","subagent_type":"Explore"}`), "Retries live in `fetch/retry.go` (see /home/dev/proj/fetch/client.go:12).\nAlso https://example.com/x/doc.html and cmd/main.go, again fetch/retry.go; not e.g. or fmt.Errorf.")),
		f("Task/Explore", done(call("Task", `{"description":"Map the config loaders","prompt":"Search…","subagent_type":"Explore"}`), "Summary of findings")),
		f("Task/Background", withStructured(done(call("Task", `{"description":"Dependency audit","prompt":"Audit go.mod","subagent_type":"general-purpose","run_in_background":true}`),
			"Async agent launched successfully.\nagentId: a51c0de (This is an internal ID for your use.)"),
			`{"isAsync":true,"status":"async_launched","agentId":"a51c0de","description":"Dependency audit","prompt":"Audit go.mod","outputFile":"/tmp/x.output"}`)),
		f("Task/Interrupted", failed(call("Task", `{"description":"Survey the fixtures","prompt":"Survey","subagent_type":"Explore"}`), interrupted)),
		f("Task/PromptOnly", call("Task", `{"prompt":"Look for dead code\nin render/","subagent_type":"Explore"}`)),
		f("Agent/Finished", done(call("Agent", `{"description":"Plan the migration","prompt":"Plan it","subagent_type":"Plan"}`), "Plan: …")),
		f("TaskOutput/Timeout", done(call("TaskOutput", `{"task_id":"a7e1f00","block":true,"timeout":60000}`), "<retrieval_status>timeout</retrieval_status>\n\n<task_id>a7e1f00</task_id>\n\n<task_type>local_agent</task_type>\n\n<status>running</status>\n\n<output>\n[Tool: Bash] {\"command\":\"go test ./...\"}\n</output>")),
		f("TaskOutput/Completed", done(call("TaskOutput", `{"task_id":"a3c9d21","block":true,"timeout":60000}`), "<retrieval_status>success</retrieval_status>\n\n<task_id>a3c9d21</task_id>\n\n<status>completed</status>\n\n<output>\nAll done.\n</output>")),
		f("TaskCreate/Ok", done(call("TaskCreate", `{"subject":"Bound digest length","description":"Long description","activeForm":"Bounding digest length"}`), "Task #1 created successfully: Bound digest length")),
		f("TaskUpdate/Status", done(call("TaskUpdate", `{"taskId":"1","status":"completed"}`), "Updated task #1 status")),
		f("TaskUpdate/BlockedBy", done(call("TaskUpdate", `{"taskId":"2","addBlockedBy":["1"]}`), "Updated task #2 blockedBy")),
		f("TaskUpdate/NumericID", done(call("TaskUpdate", `{"taskId":3,"status":"in_progress","description":"new"}`), "Updated task #3 description, status")),
		f("TaskGet/Ok", done(call("TaskGet", `{"taskId":"4"}`), "#4 [pending] Write hooks")),
		f("SendMessage/Summary", done(call("SendMessage", `{"to":"team-lead","summary":"Parser done","message":"The parser is done.\nAll tests pass."}`), "Message sent to team-lead")),
		f("SendMessage/FirstLine", done(call("SendMessage", `{"to":"tester","message":"\nPlease run the suite.\nThen report."}`), "Message sent")),
		f("SendMessage/Protocol", done(call("SendMessage", `{"to":"researcher","message":{"type":"shutdown_request","reason":"done"}}`), "ok")),
		f("SendMessage/Private", done(call("SendMessage", `{"to":"lead","summary":"<private>key</private>","message":"key is <private>abc</private>"}`), "ok")),
		f("TeamCreate", done(call("TeamCreate", `{"team_name":"parsers","description":"Build the parser\nand its tests"}`), "Team created")),
		f("TeamDelete", done(call("TeamDelete", `{}`), "Team deleted")),
		f("TaskList/Four", done(call("TaskList", `{}`), "#1 [pending] Parse transcripts\n#2 [pending] Render bottles [blocked by #1]\n#3 [completed] Strip private tags\n#4 [pending] Write hooks")),
		f("TaskList/Empty", done(call("TaskList", `{}`), "No tasks found")),
		f("TodoWrite/Progress", done(call("TodoWrite", `{"todos":[{"content":"Write the parser","status":"completed","activeForm":"Writing the parser"},{"content":"Add golden tests","status":"in_progress","activeForm":"Adding golden tests"},{"content":"Run the fuzzer","status":"pending","activeForm":"Running the fuzzer"}]}`), "Todos have been modified successfully.")),
		f("TodoWrite/AllPending", done(call("TodoWrite", `{"todos":[{"content":"One","status":"pending"},{"content":"Two","status":"pending"}]}`), "Todos have been modified successfully.")),

		// Web
		f("WebFetch/Ok", done(call("WebFetch", `{"url":"https://user:pw@pkg.example.org/docs/Widget.html?token=abc#setup","prompt":"What does Widget do?"}`), "# Widget\n\nA widget.")),
		f("WebFetch/404", failed(call("WebFetch", `{"url":"https://docs.example.net/cli/","prompt":"Find limits"}`), "Request failed with status code 404")),
		f("WebFetch/NotAURL", done(call("WebFetch", `{"url":"not a url?x=1","prompt":"?"}`), "…")),
		f("WebSearch/Ok", done(call("WebSearch", `{"query":"sqlite wal read-only open"}`), "Web search results for query: \"sqlite wal read-only open\"\n\nLinks: [{\"title\":\"x\",\"url\":\"https://example.org\"}]")),

		// Claude Code itself
		f("Skill/Ok", done(call("Skill", `{"skill":"notes:outline"}`), "Launching skill: notes:outline")),
		f("Skill/Args", done(call("Skill", `{"skill":"review-helper","args":"42\nmore"}`), "Launching skill: review-helper")),
		f("SlashCommand/Ok", done(call("SlashCommand", `{"command":"/review 42"}`), "Launching command /review")),
		f("ExitPlanMode/Approved", done(call("ExitPlanMode", `{"plan":"# Split the renderer in two\n\n## Context\n\nDetails."}`), "User has approved your plan. You can now start coding.\n\n## Approved Plan:\n# Split the renderer in two")),
		f("ExitPlanMode/Rejected", failed(call("ExitPlanMode", `{"plan":"## Cache parsed transcripts\n\nBody"}`), rejection)),
		f("EnterPlanMode/Ok", done(call("EnterPlanMode", `{}`), "Entered plan mode. You should now focus on exploring the codebase.")),
		f("AskUserQuestion/Several", done(call("AskUserQuestion", `{"questions":[{"question":"Which rig do these beads belong to? (should I use 'x'?)","header":"Rig prefix","options":[]},{"question":"Which tools?","header":"Tools","multiSelect":true,"options":[]},{"question":"Push?","options":[]}]}`),
			`User has answered your questions: "Which rig do these beads belong to? (should I use 'x'?)"="No rig", "Which tools?"="Credo,mix_audit", "Push?"="push, and make sure it is "linked"
to a checkpoint". You can now continue with the user's answers in mind.`)),
		f("AskUserQuestion/PrivateAnswer", done(call("AskUserQuestion", `{"questions":[{"question":"Token?","header":"Token"}]}`),
			`Your questions have been answered: "Token?"="use <private>SECRET-TOKEN</private> the staging one". You can now continue with these answers in mind.`)),
		f("AskUserQuestion/PrivateQuestion", done(call("AskUserQuestion", `{"questions":[{"question":"Which <private>SECRET</private> key?","header":"Key"}]}`),
			`User has answered your questions: "Which <private>SECRET</private> key?"="the second". You can now continue.`)),
		f("AskUserQuestion/Answered", done(call("AskUserQuestion", `{"questions":[{"question":"Which database driver should we use?","header":"Driver","options":[{"label":"modernc"}],"multiSelect":false},{"question":"Which linters?","header":"Lint","options":[]}]}`), `User has answered your questions: "Which database driver should we use?"="modernc". You can now continue.`)),
		f("LSP/References", done(call("LSP", `{"operation":"findReferences","filePath":"/home/dev/proj/render/digest/digest.go","line":42,"character":6}`), "Found 7 references across 3 files:\n\nrender/digest/digest.go:\n  Line 42:6\n")),
		f("ListMcpResourcesTool/Ok", done(call("ListMcpResourcesTool", `{"server":"github"}`), "[]")),
		f("ReadMcpResourceTool/Ok", done(call("ReadMcpResourceTool", `{"server":"docs","uri":"docs://guide/intro"}`), "Intro text")),

		// MCP and unknown tools
		f("MCP/GetIssue", done(call("mcp__tracker__get_issue", `{"id":"BOT-12"}`), `{"id":"BOT-12","title":"Bound digests"}`)),
		f("MCP/ListIssues", done(call("mcp__tracker__list_issues", `{"team":"Core","query":"BOT-7"}`), `{"issues":[]}`)),
		f("MCP/CreateIssue", done(call("mcp__github__create_issue", `{"owner":"acme","repo":"bottle","title":"Digest lines overflow","body":"Long body"}`), "Created issue #7")),
		f("MCP/Error", failed(call("mcp__github__create_issue", `{"owner":"acme","repo":"bottle","title":"x"}`), "MCP error -32603: Bad credentials\nstack trace")),
		f("MCP/PathArg", done(call("mcp__fs__read_text_file", `{"path":"/home/dev/proj/notes.txt"}`), "notes")),
		f("MCP/NoToolPart", done(call("mcp__weird", `{"q":"x"}`), "")),
		f("Unknown/FirstString", done(call("FutureTool", `{"count":3,"mode":"fast","target":"render"}`), "done")),
		f("Unknown/LongTextOnly", done(call("FutureTool", `{"text":"`+strings.Repeat("word ", 200)+`"}`), "done")),
		f("Unknown/NoStrings", done(call("FutureTool", `{"n":1,"flags":[true]}`), "done")),
		f("Unknown/InvalidInput", done(call("FutureTool", `{"n":`), "done")),
		f("Unknown/NoName", done(call("", `{"x":"y"}`), "done")),
		f("Unknown/OldResultCleared", done(call("FutureTool", `{"x":"y"}`), "[Old tool result content cleared]")),
	}
}

// manyNames is a line of n distinct code names, more than a detail holds.
func manyNames(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "name_%02d ", i)
	}
	return b.String()
}
