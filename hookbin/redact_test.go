package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bottle/claudemem/memtest"
)

// fakeBody is a made-up random-looking run the fake credentials are cut
// from, so that no real key is spelt in the repository.
const fakeBody = "Zq8Lw2Xr5Tn7Vb3Mk9Hd4Jf6Gs1Pc0YaUe"

// fakeCreds are one credential of each shape the redactor knows: the text
// planted, and the part of it that must never be shown (the needle).
var fakeCreds = []struct{ kind, text, needle string }{
	{"aws", "AKIA" + "QWERTYUIOP234567", ""},
	{"github", "ghp_" + fakeBody + "x1", ""},
	{"github-pat", "github_pat_" + fakeBody[:22] + "_" + fakeBody + fakeBody[:25], ""},
	{"openai", "sk-proj-" + fakeBody[:10] + "_-" + fakeBody[10:], ""},
	{"anthropic", "sk-ant-api03-" + fakeBody + "-" + fakeBody + "_" + fakeBody[:20] + "AA", ""},
	{"slack", "xoxb-" + "1234567890-0987654321-" + fakeBody[:24], ""},
	{"stripe", "sk_live_" + fakeBody[:24], ""},
	{"google", "AIza" + fakeBody[:20] + "_-" + fakeBody[:13], ""},
	{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", ""},
	{"npm", "npm_" + fakeBody + "k2", ""},
	{"private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowQ7" + strings.Repeat("IBAAKCAQEA", 8) + "\n-----END RSA PRIVATE KEY-----", "MIIEowQ7"},
	{"bearer", "Authorization: Bearer " + "d8f7a6e5b4c3" + "Xy.Zw-_9", "d8f7a6e5b4c3Xy"},
	{"url-password", "https://alice:" + "hunter2" + "secretPW@github.com/o/r.git", "hunter2secretPW"},
}

func credNeedle(i int) string {
	if c := fakeCreds[i]; c.needle != "" {
		return c.needle
	}
	return fakeCreds[i].text
}

// assignedSecret is what an assignment to a secret's name holds: redacted
// in digests and names, which lift it out of files and commands.
const assignedSecret = "my" + "_s3cret_pw_42"

// credTranscript is session sid with every credential in every place a
// transcript has: the first and last prompts, a reply, a Bash command, a
// failed command's output, a Write's content (beside an assignment), an
// Edit, a Read's result, a commit message and a fetched URL.
func credTranscript(t *testing.T, sid string) []byte {
	var all []string
	for _, c := range fakeCreds {
		all = append(all, c.kind+"="+c.text)
	}
	every := strings.Join(all, "\n")
	var b strings.Builder
	b.WriteString(promptLine(t, sid, "c-1", "VISIBLE-first deploy with\n"+every))
	b.WriteString(replyLine(t, sid, "c-2", "VISIBLE-reply I see\n"+every))
	tool := func(n int, name string, input map[string]any, result string, isErr bool) {
		id := fmt.Sprintf("toolu_c%d", n)
		b.WriteString(jl(t, entry(sid, "assistant", fmt.Sprintf("c-t%d", n), "10:01:00", asstMsg(fmt.Sprintf("mc%d", n),
			map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}))))
		b.WriteString(jl(t, entry(sid, "user", fmt.Sprintf("c-r%d", n), "10:01:30", userMsg([]any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": isErr}}))))
	}
	for i, c := range fakeCreds {
		one := strings.ReplaceAll(c.text, "\n", " ")
		tool(10*i+1, "Bash", map[string]any{"command": "curl -H '" + one + "' https://x.example/api && DB_PASSWORD=" + assignedSecret + " ./deploy",
			"description": "call with " + one}, "ok "+c.text, false)
		tool(10*i+2, "Bash", map[string]any{"command": "./deploy --key " + one}, "Exit code 1\nerror: key "+one+" rejected", true)
		tool(10*i+3, "Write", map[string]any{"file_path": "/work/proj/config_" + c.kind + ".go",
			"content": "package config\n\nconst apiToken_" + strings.ReplaceAll(c.kind, "-", "_") + " = \"" + one + "\"\nvar dbPassword = \"" + assignedSecret + "\"\n// " + c.text + "\nDB_PASSWORD=" + assignedSecret + "\nfunc loadConfig_x() {}\n"},
			"File created", false)
		tool(10*i+4, "Edit", map[string]any{"file_path": "/work/proj/main.go", "old_string": "old_name_x()", "new_string": "new_call_x(\"" + one + "\")\nSECRET_KEY=" + assignedSecret},
			"edited", false)
		tool(10*i+5, "Read", map[string]any{"file_path": "/work/proj/.env"}, "1\tTOKEN="+c.text+"\n", false)
		tool(10*i+6, "Bash", map[string]any{"command": "git commit -m \"fix deploy\n\nToken: " + one + "\""}, "[main abc1234] fix deploy", false)
		tool(10*i+7, "WebFetch", map[string]any{"url": "https://bob:" + "pw" + fakeBody[:12] + "@example.com/" + one, "prompt": "read " + one}, "page "+c.text, false)
	}
	b.WriteString(promptLine(t, sid, "c-9", "VISIBLE-last now push with\n"+every))
	return []byte(b.String())
}

// credRows stores observations and a summary of session sid holding every
// credential.
func credRows(sid string) string {
	var all []string
	for _, c := range fakeCreds {
		all = append(all, c.text)
	}
	every := strings.Join(all, " ")
	return fmt.Sprintf(`INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt, started_at, started_at_epoch, status)
VALUES (1, %[1]s, 'mem-cred', 'proj', 'claude', %[2]s, 'x', 1767607200000, 'active');
INSERT INTO observations (id, memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
  files_read, files_modified, prompt_number, created_at, created_at_epoch, content_hash)
VALUES (7001, 'mem-cred', 'proj', %[2]s, 'discovery', %[2]s, %[2]s, %[3]s, %[2]s, %[3]s, %[3]s, %[3]s, 1, 'x', 1767607900000, 'hc1');
INSERT INTO session_summaries (memory_session_id, project, request, investigated, learned, completed, next_steps,
  files_read, files_edited, notes, prompt_number, created_at, created_at_epoch)
VALUES ('mem-cred', 'proj', %[2]s, %[2]s, %[2]s, %[2]s, %[2]s, %[3]s, %[3]s, %[2]s, 1, 'x', 1767608000000);
`, sq(sid), sq("VISIBLE-obs "+every), sq(jsonList(all...)))
}

// TestHostileCredentials plants each credential shape in each place a
// session has and reads every surface bottle has: the pointer, the bottle
// (written and on stdout), read_bottle, render_bottle, expand and
// expand_observation, search and search_history (hits and whether the
// secret is findable), list and list_sessions, error lines, the log and
// every file bottle wrote (the search index included). None shows a
// credential; the assignment's value is gone from digests. BOTTLE_REDACT=0
// shows the raw record.
func TestHostileCredentials(t *testing.T) {
	w := newSandbox(t)
	const sid = "cred-session-0001"
	tp := w.transcript(t, sid, credTranscript(t, sid))
	memtest.Create(t, w.dbPath(), memtest.SchemaCurrent, credRows(sid), "wal")
	check := func(where, out string) {
		t.Helper()
		for i := range fakeCreds {
			if k := strings.Index(out, credNeedle(i)); k >= 0 {
				t.Errorf("%s shows the %s credential: …%s…", where, fakeCreds[i].kind, out[max(0, k-60):min(len(out), k+20)])
			}
		}
		if strings.Contains(out, "[redacted: ") == false && strings.Contains(out, "VISIBLE-") {
			t.Errorf("%s redacted nothing:\n%.600s", where, out)
		}
	}

	ptr, _ := w.hook(t, "session-start", payload(t, map[string]any{"session_id": sid, "transcript_path": tp, "cwd": w.cwd, "source": "compact"}))
	if !strings.Contains(ptr, "Current task") {
		t.Errorf("pointer lacks the current task:\n%s", ptr)
	}
	check("pointer", ptr)
	md, err := os.ReadFile(w.bottle(sid))
	if err != nil {
		t.Fatal(err)
	}
	check("bottle", string(md))
	if strings.Contains(string(md), assignedSecret) {
		k := strings.Index(string(md), assignedSecret)
		t.Errorf("bottle shows an assigned secret: …%s…", string(md)[max(0, k-80):k+len(assignedSecret)])
	}
	for _, want := range []string{"[redacted: github-token]", "[redacted: private-key]", "://alice:[redacted]@"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("bottle lacks %q", want)
		}
	}
	w.hook(t, "stop", payload(t, map[string]any{"session_id": sid, "transcript_path": tp}))

	var ids []string
	for i := 1; i <= 10*len(fakeCreds); i++ {
		if i%10 != 0 && i%10 <= 7 {
			ids = append(ids, fmt.Sprintf("t%d", (i/10)*7+i%10))
		}
	}
	ids = append(ids, "u1", "a1", "u2", "7001", "s1")
	for _, args := range [][]string{
		{"render", sid, "--out", "-", "--budget", "0"},
		{"render", sid, "--out", "-"},
		append([]string{"expand", "--session", sid}, ids...),
		{"list"}, {"list", "--project", w.cwd},
		{"search", "VISIBLE", "--session", sid, "--limit", "100"},
		{"search", "deploy", "--session", sid, "--limit", "100", "--json"},
	} {
		r := w.cli(t, args...)
		where := "hookbin " + strings.Join(args, " ")
		if r.code != 0 {
			t.Errorf("%s: exit %d: %s", where, r.code, r.stderr)
		}
		check(where, r.stdout)
		check(where+" stderr", r.stderr)
	}
	for i := range fakeCreds {
		r := w.cli(t, "search", credNeedle(i), "--session", sid)
		if strings.Contains(r.stdout, "[#") {
			t.Errorf("search finds the %s credential:\n%s", fakeCreds[i].kind, r.stdout)
		}
	}
	// Error lines: a path that holds a credential.
	bad := filepath.Join(w.root, "no", fakeCreds[1].text, "x.jsonl")
	r := w.cli(t, "render", bad, "--out", "-")
	if r.code == 0 || r.stderr == "" {
		t.Errorf("render of a missing transcript: exit %d, stderr %q", r.code, r.stderr)
	}
	check("error line", r.stderr)
	if !strings.Contains(r.stderr, "[redacted: github-token]") {
		t.Errorf("the error line does not name the path, redacted: %q", r.stderr)
	}
	// A hook's error names the transcript: a folder where it should be.
	badDir := filepath.Join(w.projDir, "cred-dir-"+fakeCreds[1].text+".jsonl")
	mustMkdir(t, badDir)
	w.hook(t, "stop", payload(t, map[string]any{"session_id": "cred-missing-2", "transcript_path": badDir}))

	m := w.startMCP(t)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"render_bottle", map[string]any{"session_id": sid}},
		{"read_bottle", map[string]any{"session_id": sid}},
		{"expand_observation", map[string]any{"ids": ids[:32], "session_id": sid}},
		{"expand_observation", map[string]any{"ids": ids[32:64], "session_id": sid}},
		{"expand_observation", map[string]any{"ids": ids[64:], "session_id": sid}},
		{"search_history", map[string]any{"query": "VISIBLE", "session_id": sid}},
		{"search_history", map[string]any{"query": "deploy", "session_id": sid, "limit": 50}},
		{"list_sessions", map[string]any{}},
	} {
		text, isErr := m.call(t, tc.name, tc.args)
		where := fmt.Sprintf("%s %v", tc.name, tc.args)
		if isErr {
			t.Errorf("%s: isError: %.300s", where, text)
		}
		check(where, text)
	}
	for i := range fakeCreds {
		text, _ := m.call(t, "search_history", map[string]any{"query": credNeedle(i), "session_id": sid})
		if strings.Contains(text, "[#") {
			t.Errorf("search_history finds the %s credential:\n%s", fakeCreds[i].kind, text)
		}
	}

	logData, err := os.ReadFile(w.logPath())
	if err != nil {
		t.Fatal(err)
	}
	check("the log", string(logData))
	if !strings.Contains(string(logData), "cred-dir-[redacted: github-token].jsonl") {
		t.Errorf("the log does not name the folder, redacted:\n%s", logData)
	}
	// Every file bottle wrote: bottles, the log, the search index.
	filepath.WalkDir(w.data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasPrefix(p, w.dbPath()) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("read %s: %v", p, err)
			return nil
		}
		for i := range fakeCreds {
			if bytes.Contains(data, []byte(credNeedle(i))) {
				t.Errorf("file %s holds the %s credential", p, fakeCreds[i].kind)
			}
		}
		return nil
	})

	// BOTTLE_REDACT=0: the raw record, for a user who asks for it.
	w.env["BOTTLE_REDACT"] = "0"
	r = w.cli(t, "render", sid, "--out", "-", "--budget", "0")
	if !strings.Contains(r.stdout, fakeCreds[1].text) || strings.Contains(r.stdout, "[redacted: ") {
		t.Errorf("BOTTLE_REDACT=0 still redacts the bottle")
	}
}
