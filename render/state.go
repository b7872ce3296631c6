package render

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"bottle/render/digest"
	"bottle/render/privacy"
	"bottle/render/transcript"
)

// The working state (SPEC §3.8) is a short block after the header that
// tells a resumed model where things stand: open tasks, the latest plan,
// the files changed, the last run of each check and the commits. Each line
// is derived from the transcript's tool calls, carries the [#id]s that
// prove it, and is bounded, so that the block stays under stateMaxBytes
// (about 1,500 estimated tokens) whatever the session did.
// Every line the block adds is a line of the conversation that folding
// must take back to meet the budget, so the block keeps to the freshest:
// the last few files, checks and commits.
const (
	stateMaxBytes = 4500
	stateLineMax  = 400 // bytes of one field's line
	stateItemMax  = 80  // runes of one item (a task, a plan line, a commit subject)
	stateFiles    = 6   // files changed shown, the most recent first
	stateChecks   = 3   // checks shown
	stateCommits  = 3   // commits shown
)

// stateTools are the tools whose calls the working state reads in full.
var stateTools = map[string]bool{
	"TodoWrite": true, "TaskCreate": true, "TaskUpdate": true, "ExitPlanMode": true,
	"Bash": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true,
}

// readOptions are the read options of a render: every call of stateTools
// kept in full, but only the results the block reads: a task's number, a
// commit's summary line, a failed command's exit code.
var readOptions = &transcript.ReadOptions{
	CaptureTools: func(name string) bool { return stateTools[name] },
	CaptureResult: func(d *transcript.ToolDetail, isError bool) bool {
		switch d.Name {
		case "TaskCreate":
			return true
		case "Bash":
			return isError || bytes.Contains(d.Input, []byte("git commit"))
		}
		return false
	},
}

// checkCommand matches the first words of the test, build and lint
// commands the Checks line follows.
var checkCommand = regexp.MustCompile(`^(?:(?:go (?:test|build|vet))|(?:(?:npm|pnpm|yarn|bun) (?:run )?(?:test|build|lint|check|typecheck))|` +
	`(?:cargo (?:test|build|check|clippy))|(?:make(?: (?:test|build|check|lint|all))?$)|(?:make (?:test|build|check|lint))|` +
	`pytest|(?:python3? -m (?:pytest|unittest|mypy))|mypy|ruff|tox|` +
	`(?:mise run)|golangci-lint|staticcheck|eslint|tsc|vitest|jest|(?:npx (?:tsc|eslint|vitest|jest|prettier))|` +
	`(?:\./)?gradlew?|mvn|(?:dotnet (?:test|build))|(?:mix test)|(?:bundle exec (?:rspec|rake))|rspec|(?:swift (?:test|build)))\b`)

// exitCode finds the status Claude Code's Bash tool reports for a failed
// command ("Exit code 2").
var exitCode = regexp.MustCompile(`(?m)^Exit code (\d+)`)

// gitCommit finds the summary line git prints for a commit:
// "[main c2b0273] subject" (or "[main (root-commit) c2b0273] subject").
var gitCommit = regexp.MustCompile(`(?m)^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$`)

// workingState returns the block's lines ("- Open tasks: …"), none when
// the session has nothing to say.
func workingState(t *transcript.Transcript) []string {
	if len(t.Captured) == 0 {
		return nil
	}
	var (
		todoLine, todoID string
		todoCalls        []int
		tasks            = map[string]*stateTask{}
		taskOrder        []string
		plan, planID     string
		files            = map[string]*stateFile{}
		fileOrder        []string
		checks           = map[string]*stateCheck{}
		checkOrder       []string
		commits          []string
	)
	for i := range t.Tools {
		d := t.Captured[i]
		if d == nil {
			continue
		}
		id := "#t" + strconv.Itoa(i+1)
		// A struct of the fields read: the rest of the input (an Edit's
		// strings are most of a transcript's) is skipped unread. A field of
		// the wrong type is left empty.
		var in stateInput
		digest.DecodeValidInput(d.Input, &in)
		// Values are stripped whole, before a line is taken of them: a
		// private block may open on an earlier line.
		str := privacy.Strip
		result := func() string { return privacy.Strip(d.Result) }
		switch d.Name {
		case "TodoWrite":
			todoCalls = append(todoCalls, i) // only the last list counts
		case "TaskCreate":
			n := taskNumber(result())
			if n == "" {
				n = "c" + strconv.Itoa(i)
			}
			if _, ok := tasks[n]; !ok {
				taskOrder = append(taskOrder, n)
			}
			tasks[n] = &stateTask{subject: str(in.Subject), status: "pending", id: id}
		case "TaskUpdate":
			if tk := tasks[in.TaskID]; tk != nil {
				if s := in.Status; s != "" {
					tk.status, tk.id = s, id
				}
			}
		case "ExitPlanMode":
			if p := firstLine(str(in.Plan)); p != "" {
				plan, planID = oneLine(strings.TrimLeft(p, "# "), stateItemMax), id
			}
		case "Edit", "Write", "MultiEdit", "NotebookEdit":
			p := str(in.FilePath)
			if p == "" {
				p = str(in.NotebookPath)
			}
			if p = relPath(oneLine(p, 300), t.Cwd); p == "" {
				continue
			}
			f := files[p]
			if f == nil {
				f = &stateFile{}
				files[p] = f
			}
			f.n++
			f.last = id
			fileOrder = moveLast(fileOrder, p)
		case "Bash":
			cmd := checkKey(oneLine(firstLine(str(in.Command)), stateItemMax))
			if !d.HasResult || cmd == "" {
				continue
			}
			if strings.Contains(cmd, "git commit") {
				if m := gitCommit.FindStringSubmatch(result()); m != nil {
					commits = append(commits, m[1][:7]+" "+oneLine(m[2], stateItemMax)+" ["+id+"]")
				}
			}
			if !checkCommand.MatchString(cmd) {
				continue
			}
			outcome := "exit 0"
			if d.IsError {
				outcome = "failed"
				if m := exitCode.FindStringSubmatch(result()); m != nil {
					outcome = "exit " + m[1]
				}
			}
			c := checks[cmd]
			if c == nil {
				c = &stateCheck{}
				checks[cmd] = c
			}
			if c.outcome == "exit 0" {
				c.passedAt = c.id
			}
			c.outcome, c.id = outcome, id
			checkOrder = moveLast(checkOrder, cmd)
		}
	}

	for k := len(todoCalls) - 1; k >= 0; k-- {
		if line, ok := todoList(t.Captured[todoCalls[k]].Input); ok {
			todoLine, todoID = line, "#t"+strconv.Itoa(todoCalls[k]+1)
			break
		}
	}
	var lines []string
	add := func(field string, items []string, proof string) {
		if len(items) == 0 {
			return
		}
		line := "- " + field + ": " + joinBounded(items, stateLineMax)
		if proof != "" {
			line += "   [" + proof + "]"
		}
		lines = append(lines, line)
	}
	var open []string
	if todoLine != "" {
		open = append(open, todoLine)
	}
	proof := todoID
	for _, n := range taskOrder {
		tk := tasks[n]
		mark := map[string]string{"pending": "[ ] ", "in_progress": "[~] "}[tk.status]
		if mark != "" {
			if s := oneLine(tk.subject, stateItemMax); s != "" {
				open = append(open, mark+s+" ["+tk.id+"]")
			}
		}
	}
	add("Open tasks", open, proof)
	if plan != "" {
		add("Plan", []string{plan}, planID)
	}
	var changed []string
	for k := len(fileOrder) - 1; k >= 0 && len(changed) < stateFiles; k-- {
		p := fileOrder[k]
		f := files[p]
		if f.n > 1 {
			changed = append(changed, p+" ×"+strconv.Itoa(f.n)+" ["+f.last+"]")
		} else {
			changed = append(changed, p+" ["+f.last+"]")
		}
	}
	add("Files changed", changed, "")
	var runs []string
	for k := len(checkOrder) - 1; k >= 0 && len(runs) < stateChecks; k-- {
		cmd := checkOrder[k]
		c := checks[cmd]
		r := cmd + " — " + c.outcome + " [" + c.id + "]"
		if c.outcome != "exit 0" && c.passedAt != "" {
			r += " (passed before at [" + c.passedAt + "])"
		}
		runs = append(runs, r)
	}
	add("Checks", runs, "")
	for l, r := 0, len(commits)-1; l < r; l, r = l+1, r-1 {
		commits[l], commits[r] = commits[r], commits[l]
	}
	add("Commits", commits[:min(len(commits), stateCommits)], "")
	// The block's bound: drop whole lines from the end.
	for size(lines) > stateMaxBytes && len(lines) > 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// todoList is the open items of a TodoWrite list, "[~] doing · [ ] to
// do"; ok is false when the input holds no list.
func todoList(input []byte) (line string, ok bool) {
	var list struct {
		Todos []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(input, &list) != nil {
		return "", false
	}
	var open []string
	for _, td := range list.Todos {
		// Stripped whole before a line is taken of it.
		c := privacy.Strip(td.Content)
		switch td.Status {
		case "pending":
			open = append(open, "[ ] "+oneLine(c, stateItemMax))
		case "in_progress":
			open = append(open, "[~] "+oneLine(c, stateItemMax))
		}
	}
	return strings.Join(dropEmptyItems(open), " · "), true
}

// stateInput is what the working state reads of a tool call's input.
type stateInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	Plan         string `json:"plan"`
	Subject      string `json:"subject"`
	TaskID       string `json:"taskId"`
	Status       string `json:"status"`
}

type stateTask struct{ subject, status, id string }

type stateFile struct {
	n    int
	last string
}

type stateCheck struct{ outcome, id, passedAt string }

// checkKey is a check command without what only shapes its output (a
// redirection of stderr, a pipe into tail, head or grep), so that the
// variants of one check count as one.
func checkKey(cmd string) string {
	for _, cut := range []string{" | tail", " | head", " | grep", " |tail", " |head"} {
		if i := strings.Index(cmd, cut); i > 0 {
			cmd = cmd[:i]
		}
	}
	return strings.TrimSpace(strings.ReplaceAll(cmd, " 2>&1", ""))
}

// taskNumber reads the task number TaskCreate's result names ("Task #3
// created successfully: …").
func taskNumber(result string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(result), "Task #")
	if !ok {
		return ""
	}
	n, _, _ := strings.Cut(rest, " ")
	if _, err := strconv.Atoi(n); err != nil {
		return ""
	}
	return n
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// relPath is p relative to the project folder when it lies inside it.
func relPath(p, cwd string) string {
	if cwd != "" {
		if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(cwd, "/")+"/"); ok && rel != "" {
			return rel
		}
	}
	return p
}

// moveLast moves k to the end of order (appending it when absent).
func moveLast(order []string, k string) []string {
	for i, o := range order {
		if o == k {
			return append(order[:i], append(order[i+1:], k)...)
		}
	}
	return append(order, k)
}

// joinBounded joins items with " · " up to max runes, then says how many
// it left out.
func joinBounded(items []string, max int) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 && b.Len()+len(it) > max {
			b.WriteString(" · +" + strconv.Itoa(len(items)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(it)
	}
	return b.String()
}

// dropEmptyItems drops items that are only a checkbox (their text was
// private).
func dropEmptyItems(items []string) []string {
	out := items[:0]
	for _, it := range items {
		if len(it) > 4 {
			out = append(out, it)
		}
	}
	return out
}

func size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}
