package workstate

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"bottle/internal/shown"
	"bottle/privacy"
	"bottle/render/digest"
	"bottle/session"
)

// The working state is a short block after the header that
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
	// stateCheckMax is the runes a check's command shows (the [#id] after
	// it expands to the whole): what tells the check, and not more, for
	// the block's every byte is paid for in the budget and the ratio rule.
	stateCheckMax = 60
	stateFiles    = 6 // files changed shown, the most recent first
	// stateMoreMax is the bytes the files changed before them take, by
	// their names alone: a file the session changed early is still named.
	stateMoreMax = 200
	stateChecks  = 3 // checks shown
	stateCommits = 3 // commits shown
	stateReviews = 2 // pull requests shown, the last opened first
)

// Heading heads the block in a bottle.
const Heading = "## Working state"

// The block's fields: each line is "- <field>: …".
const (
	fieldTasks   = "Open tasks"
	fieldPlan    = "Plan"
	fieldFiles   = "Files changed"
	fieldChecks  = "Checks"
	fieldCommits = "Commits"
	fieldPushed  = "Pushed"
	fieldReview  = "Pull request"
	fieldReviews = "Pull requests"
)

// Openings are the starts of the lines the block is made of: its
// [Heading] and "- <field>:" for each field [Builder.Lines] writes. A
// message line that starts so would read as the block: the bottle escapes
// it.
var Openings = []string{Heading, "- " + fieldTasks + ":", "- " + fieldPlan + ":", "- " + fieldFiles + ":",
	"- " + fieldChecks + ":", "- " + fieldCommits + ":", "- " + fieldPushed + ":", "- " + fieldReview + ":", "- " + fieldReviews + ":"}

// stateTools are the tools whose calls the working state reads in full.
var stateTools = map[string]bool{
	"TodoWrite": true, "TaskCreate": true, "TaskUpdate": true, "TaskList": true, "ExitPlanMode": true,
	"Bash": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true,
}

// ReadOptions are the read options of a read that feeds b: every call of
// the tools the working state follows handed to [Builder.Observe] as its
// result arrives, nothing of them kept by the reader. id is the reader's
// Session option.
func (b *Builder) ReadOptions(id string) *session.ReadOptions {
	return &session.ReadOptions{
		CaptureTools: func(name string) bool { return stateTools[name] },
		Observe:      b.Observe,
		Actions:      true,
		Session:      id,
	}
}

// checkCommand matches the first words of the test, build and lint
// commands the Checks line follows. This file's regexps compile on first
// use: every hookbin start initialises this package, and most (--version,
// a hook with nothing to render) never build a working state.
var checkCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:go (?:test|build|vet))|(?:(?:npm|pnpm|yarn|bun) (?:run )?(?:test|build|lint|check|typecheck))|` +
		`(?:cargo (?:test|build|check|clippy))|(?:make(?: (?:test|build|check|lint|all))?$)|(?:make (?:test|build|check|lint))|` +
		`pytest|(?:python3? -m (?:pytest|unittest|mypy))|mypy|ruff|tox|` +
		`(?:mise run)|golangci-lint|staticcheck|eslint|tsc|vitest|jest|(?:npx (?:tsc|eslint|vitest|jest|prettier))|` +
		`(?:\./)?gradlew?|mvn|(?:dotnet (?:test|build))|(?:mix test)|(?:bundle exec (?:rspec|rake))|rspec|(?:swift (?:test|build)))\b`)
})

// exitCode finds the status Claude Code's Bash tool reports for a failed
// command ("Exit code 2").
var exitCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit code (\d+)`) })

// gitCommit finds the summary line git prints for a commit:
// "[main c2b0273] subject" (or "[main (root-commit) c2b0273] subject").
var gitCommit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$`) })

// gitTrailer matches a line of a commit message that is a git trailer with
// a hyphenated key ("Co-Authored-By: …", "Signed-off-by: …"): a single word
// before a colon is as often prose ("Note: …").
var gitTrailer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+: +\S.*)$`)
})

// gitPushRef finds the ref lines git push prints for a branch it updated:
// "   36ff9a9..c2b0273  main -> main" (a forced update "+ a...b") or
// " * [new branch]      topic -> topic".
var gitPushRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?:[+]?[ \t]*([0-9a-f]{7,40})\.\.\.?([0-9a-f]{7,40})|\*[ \t]+\[new branch\])[ \t]+(\S+)[ \t]+->[ \t]+(\S+)`)
})

// pushed is what a git push's output says it updated, "c2b0273 to main" or
// "topic (new branch)", read from its last ref line; "" when it updated
// none ("Everything up-to-date", a rejected or deleted ref).
func pushed(out string) string {
	ms := gitPushRef().FindAllStringSubmatch(out, -1)
	if ms == nil {
		return ""
	}
	m := ms[len(ms)-1]
	if m[2] != "" {
		return m[2][:7] + " to " + shown.Line(m[4], stateItemMax)
	}
	return shown.Line(m[4], stateItemMax) + " (new branch)"
}

// reviewURL finds the address of a pull (GitHub) or merge (GitLab) request
// that gh pr create or glab mr create prints.
var reviewURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://[^\s/]+/[^\s]+?/(?:pull|-/merge_requests|merge_requests)/\d+`)
})

// stateTrailers bounds the trailers the Commits line names.
const stateTrailers = 2

// commitTrailers are the trailers of the message a git commit command
// writes: its lines after the first in trailer form, without the quote or
// backslash that closes the message, at most stateTrailers of them.
func commitTrailers(cmd string) []string {
	_, body, ok := strings.Cut(cmd, "\n")
	if !ok {
		return nil
	}
	var out []string
	for _, m := range gitTrailer().FindAllStringSubmatch(body, -1) {
		t := shown.Line(strings.TrimRight(m[1], " \t\"'\\"), stateItemMax)
		if t != "" && !slices.Contains(out, t) {
			if out = append(out, t); len(out) == stateTrailers {
				break
			}
		}
	}
	return out
}

// Builder gathers the working state from the calls a read observes: what
// the block shows and no more, whatever the session's length. The zero
// Builder is ready to use.
type Builder struct {
	seq          int    // calls observed
	todo         []byte // the last TodoWrite's input
	todoID       string
	tasks        map[string]*stateTask
	taskOrder    []string
	plan, planID string
	files        map[string]*stateFile // by path as the call gave it
	checks       map[string]*stateCheck
	commits      []string
	trailers     []string        // the last commit's trailers
	pushed       string          // the last push: "c2b0273 to main [#t9]"
	reviews      []string        // the requests opened: "https://…/pull/7 [#t9]"
	in           stateInput      // the input of the call observed, reused
	isCheck      map[string]bool // isCheck of the commands seen that start as a check does
}

// Observe takes one call (session.ReadOptions.Observe).
func (s *Builder) Observe(i int, d *session.ToolDetail, result func() string) {
	s.seq++
	// Built only for the calls a line names (most commands are not).
	id := func() string { return "#t" + strconv.Itoa(i+1) }
	if d.Action != nil {
		s.action(d, result, id)
		return
	}
	if d.Name == "TodoWrite" {
		// Only the last list counts: it is read at the end.
		s.todo, s.todoID = append(s.todo[:0], d.Input...), id()
		return
	}
	// A struct of the fields read: the rest of the input (an Edit's
	// strings are most of a transcript's) is skipped unread. A field of
	// the wrong type is left empty. Values are stripped whole, before a
	// line is taken of them: a private block may open on an earlier line.
	in := &s.in
	*in = stateInput{}
	digest.DecodeValidInput(d.Input, in)
	str := privacy.Strip
	switch d.Name {
	case "TaskCreate":
		n := taskNumber(str(result()))
		if n == "" {
			n = "c" + strconv.Itoa(i)
		}
		if s.tasks == nil {
			s.tasks = map[string]*stateTask{}
		}
		if _, ok := s.tasks[n]; !ok {
			s.taskOrder = append(s.taskOrder, n)
		}
		s.tasks[n] = &stateTask{subject: str(in.Subject), status: "pending", id: id()}
	case "TaskList":
		// The shared task list as it stands: it replaces what the session
		// knew of it; later creations and updates apply to it.
		if !d.HasResult || d.IsError {
			return
		}
		list := taskList(str(result()))
		if list == nil {
			return
		}
		s.tasks, s.taskOrder = map[string]*stateTask{}, s.taskOrder[:0]
		for _, tk := range list {
			if _, dup := s.tasks[tk.n]; !dup {
				s.taskOrder = append(s.taskOrder, tk.n)
			}
			s.tasks[tk.n] = &stateTask{subject: tk.subject, status: tk.status, id: id()}
		}
	case "TaskUpdate":
		n := strings.TrimPrefix(in.TaskID, "#")
		tk := s.tasks[n]
		if tk == nil && n != "" && (in.Status != "" || in.Subject != "") {
			// A task of the shared list this session has not listed (a
			// teammate's assignment): known by its number until listed.
			if s.tasks == nil {
				s.tasks = map[string]*stateTask{}
			}
			tk = &stateTask{subject: "task #" + n, status: "pending"}
			s.tasks[n], s.taskOrder = tk, append(s.taskOrder, n)
		}
		if tk == nil {
			return
		}
		if in.Subject != "" {
			tk.subject, tk.id = str(in.Subject), id()
		}
		if in.Status != "" {
			tk.status, tk.id = in.Status, id()
		}
	case "ExitPlanMode":
		if p := firstLine(str(in.Plan)); p != "" {
			s.plan, s.planID = shown.Line(strings.TrimSpace(strings.TrimLeft(p, "# ")), stateItemMax), id()
		}
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		p := in.FilePath
		if p == "" {
			p = in.NotebookPath
		}
		s.edited(p, id)
	case "Bash":
		s.command(in.Command, d, result, nil, id)
	}
}

// action takes a call a host describes by what it did (session.Action)
// rather than by a tool name the working state knows.
func (s *Builder) action(d *session.ToolDetail, result func() string, id func() string) {
	a := d.Action
	switch a.Kind {
	case session.ActPlan:
		// Kept in the shape of a TodoWrite list: the last list counts.
		type todo struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		}
		list := struct {
			Todos []todo `json:"todos"`
		}{Todos: make([]todo, 0, len(a.Plan))}
		for _, st := range a.Plan {
			list.Todos = append(list.Todos, todo{st.Text, st.Status})
		}
		b, err := json.Marshal(list)
		if err == nil {
			s.todo, s.todoID = b, id()
		}
	case session.ActEdit:
		for _, p := range a.Files {
			s.edited(p, id)
		}
	case session.ActCommand:
		s.command(a.Command, d, result, a, id)
	}
}

// edited counts a change of the file at path p.
func (s *Builder) edited(p string, id func() string) {
	if p = shown.Line(p, 300); p == "" {
		return
	}
	if s.files == nil {
		s.files = map[string]*stateFile{}
	}
	f := s.files[p]
	if f == nil {
		f = &stateFile{}
		s.files[p] = f
	}
	f.n++
	f.last, f.seq = id(), s.seq
}

// command takes a shell command run: a commit, a push, a pull request
// opened, a check's outcome. a, when set, tells the exit code; else the
// result does, as Claude Code's Bash reports it.
func (s *Builder) command(raw string, d *session.ToolDetail, result func() string, a *session.Action, id func() string) {
	str := privacy.Strip
	cmd := checkKey(shown.Line(firstLine(str(raw)), stateItemMax))
	if !d.HasResult || cmd == "" {
		return
	}
	if strings.Contains(cmd, "git commit") {
		if m := gitCommit().FindStringSubmatch(str(result())); m != nil {
			s.commits = append(s.commits, m[1][:7]+" "+shown.Line(m[2], stateItemMax)+" ["+id()+"]")
			s.trailers = commitTrailers(str(raw))
		}
	}
	if !d.IsError && strings.Contains(cmd, "git push") && !strings.Contains(cmd, "--dry-run") {
		if p := pushed(str(result())); p != "" {
			s.pushed = p + " [" + id() + "]"
		}
	}
	if strings.Contains(cmd, "gh pr create") || strings.Contains(cmd, "glab mr create") {
		// A request that exists already is named in the error.
		if u := reviewURL().FindString(str(result())); u != "" {
			u = shown.Line(u, stateItemMax)
			if !slices.ContainsFunc(s.reviews, func(x string) bool { return strings.HasPrefix(x, u+" ") }) {
				s.reviews = append(s.reviews, u+" ["+id()+"]")
			}
		}
	}
	if !s.check(cmd) {
		return
	}
	outcome := "exit 0"
	switch {
	case a != nil && a.ExitKnown:
		outcome = "exit " + strconv.Itoa(a.Exit)
	case a != nil && d.IsError:
		outcome = "failed"
	case d.IsError:
		outcome = "failed"
		if code, ok := leadingExitCode(d.ResultStart(64)); ok {
			outcome = "exit " + code
		} else if m := exitCode().FindStringSubmatch(str(result())); m != nil {
			outcome = "exit " + m[1]
		}
	}
	if s.checks == nil {
		s.checks = map[string]*stateCheck{}
	}
	c := s.checks[cmd]
	if c == nil {
		c = &stateCheck{cmd: cmd}
		s.checks[cmd] = c
	}
	if c.outcome == "exit 0" {
		c.passedAt = c.id
	}
	c.outcome, c.id, c.seq = outcome, id(), s.seq
}

// Lines returns the block's lines ("- Open tasks: …"), none when the
// session has nothing to say; paths are made relative to cwd, the project
// folder. Each line starts with one of [Openings].
func (s *Builder) Lines(cwd string) []string {
	var lines []string
	// more, when not nil, names the items beyond those listed: see
	// joinBounded.
	add := func(field string, items []string, proof string, more *stateMore) {
		if len(items) == 0 && more == nil {
			return
		}
		line := "- " + field + ": " + joinBounded(items, stateLineMax, more)
		if proof != "" {
			line += "   [" + proof + "]"
		}
		lines = append(lines, line)
	}
	var open []string
	proof := ""
	if s.todo != nil {
		if line, ok := todoList(s.todo); ok && line != "" {
			open, proof = append(open, line), s.todoID
		}
	}
	var ids []string // of the open tasks
	for _, n := range s.taskOrder {
		tk := s.tasks[n]
		mark := map[string]string{"pending": "[ ] ", "in_progress": "[~] "}[tk.status]
		if mark != "" {
			if sub := shown.Line(tk.subject, stateItemMax); sub != "" {
				open, ids = append(open, mark+sub), append(ids, tk.id)
			}
		}
	}
	for k := len(open) - len(ids); k < len(open); k++ {
		// Tasks one TaskList showed share its id: named once, after the
		// last of them.
		if j := k - (len(open) - len(ids)); j+1 == len(ids) || ids[j+1] != ids[j] {
			open[k] += " [" + ids[j] + "]"
		}
	}
	add(fieldTasks, open, proof, nil)
	if s.plan != "" {
		add(fieldPlan, []string{s.plan}, s.planID, nil)
	}
	// Files by their path relative to the project (one file may be named
	// both ways), the most recently changed first.
	rel := map[string]*stateFile{}
	for p, f := range s.files {
		p = digest.Rel(privacy.Strip(p), cwd)
		if p == "" {
			continue
		}
		r := rel[p]
		if r == nil {
			r = &stateFile{path: p}
			rel[p] = r
		}
		r.n += f.n
		if f.seq > r.seq {
			r.last, r.seq = f.last, f.seq
		}
	}
	// Files one call changed (a patch of several) in path order.
	files := slices.SortedFunc(maps.Values(rel), func(a, b *stateFile) int {
		return cmp.Or(cmp.Compare(b.seq, a.seq), cmp.Compare(a.path, b.path))
	})
	var changed []string
	for _, f := range files[:min(len(files), stateFiles)] {
		if f.n > 1 {
			changed = append(changed, f.path+" ×"+strconv.Itoa(f.n)+" ["+f.last+"]")
		} else {
			changed = append(changed, f.path+" ["+f.last+"]")
		}
	}
	if rest := files[min(len(files), stateFiles):]; len(rest) > 0 {
		add(fieldFiles, changed, "", &stateMore{n: len(rest), text: moreFiles(rest)})
	} else {
		add(fieldFiles, changed, "", nil)
	}
	checks := slices.SortedFunc(maps.Values(s.checks), func(a, b *stateCheck) int { return cmp.Compare(b.seq, a.seq) })
	var runs []string
	for _, c := range checks[:min(len(checks), stateChecks)] {
		r := shown.Line(c.cmd, stateCheckMax) + " — " + c.outcome + " [" + c.id + "]"
		if c.outcome != "exit 0" && c.passedAt != "" {
			r += " (passed before at [" + c.passedAt + "])"
		}
		runs = append(runs, r)
	}
	add(fieldChecks, runs, "", nil)
	var commits []string
	for k := len(s.commits) - 1; k >= 0 && len(commits) < stateCommits; k-- {
		commits = append(commits, s.commits[k])
	}
	if len(commits) > 0 && len(s.trailers) > 0 {
		// The session's way of signing its commits, kept by the next.
		label := "trailer: "
		if len(s.trailers) > 1 {
			label = "trailers: "
		}
		commits = append(commits, label+strings.Join(s.trailers, " · "))
	}
	add(fieldCommits, commits, "", nil)
	if s.pushed != "" {
		add(fieldPushed, []string{s.pushed}, "", nil)
	}
	var reviews []string
	for k := len(s.reviews) - 1; k >= 0 && len(reviews) < stateReviews; k-- {
		reviews = append(reviews, s.reviews[k])
	}
	if len(reviews) == 1 {
		add(fieldReview, reviews, "", nil)
	} else {
		add(fieldReviews, reviews, "", nil)
	}
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
			open = append(open, "[ ] "+shown.Line(c, stateItemMax))
		case "in_progress":
			open = append(open, "[~] "+shown.Line(c, stateItemMax))
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
	path string
	n    int
	last string // the id of its last change
	seq  int    // when that was, in calls observed
}

type stateCheck struct {
	cmd, outcome, id, passedAt string
	seq                        int
}

// checkStarts are the starts of the commands checkCommand matches: a
// command that starts with none of them is not matched, and most
// commands are not checks.
var checkStarts = []string{"go ", "npm ", "pnpm ", "yarn ", "bun ", "cargo ", "make", "pytest", "python", "mypy", "ruff", "tox",
	"mise run", "golangci-lint", "staticcheck", "eslint", "tsc", "vitest", "jest", "npx ", "./gradle", "gradle", "mvn",
	"dotnet ", "mix test", "bundle exec ", "rspec", "swift "}

// startsAsCheck reports whether cmd starts with one of checkStarts.
func startsAsCheck(cmd string) bool {
	for _, p := range checkStarts {
		if strings.HasPrefix(cmd, p) {
			return true
		}
	}
	return false
}

// isCheck reports whether cmd is one of the checks the Checks line follows.
func isCheck(cmd string) bool { return startsAsCheck(cmd) && checkCommand().MatchString(cmd) }

// check is isCheck(cmd), the pattern run once per command: a session
// runs its checks again and again.
func (s *Builder) check(cmd string) bool {
	if !startsAsCheck(cmd) {
		return false
	}
	ok, seen := s.isCheck[cmd]
	if !seen {
		if s.isCheck == nil {
			s.isCheck = map[string]bool{}
		}
		ok = checkCommand().MatchString(cmd)
		s.isCheck[cmd] = ok
	}
	return ok
}

// leadingExitCode is the code of an "Exit code N" line that opens the
// text whose start is head, as exitCode finds it in the text stripped:
// ok is false when head cannot tell (it opens otherwise, or holds a '<',
// before which alone stripping keeps the text as it is, or ends in the
// number).
func leadingExitCode(head string) (code string, ok bool) {
	rest, found := strings.CutPrefix(head, "Exit code ")
	if !found || strings.IndexByte(head, '<') >= 0 {
		return "", false
	}
	n := 0
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	if n == 0 || n == len(rest) {
		return "", false
	}
	return rest[:n], true
}

// checkKey is a check command without what only shapes its output (a
// redirection of stderr, a pipe into tail, head or grep), so that the
// variants of one check count as one.
func checkKey(cmd string) string {
	for _, cut := range []string{" | tail", " | head", " | grep", " |tail", " |head"} {
		if strings.IndexByte(cmd, '|') < 0 {
			break // most commands have no pipe
		}
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

// listedTask is one line of TaskList's result: "#3 [pending] Subject",
// perhaps with its owner and what blocks it after the subject.
type listedTask struct{ n, status, subject string }

// taskLine matches a line of TaskList's result.
var taskLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#(\S+) \[([a-z_]+)\] (.+)$`) })

// taskBlocked matches the note of the tasks blocking a listed task.
var taskBlocked = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \[blocked by [^\]]*\]$`) })

// taskList reads TaskList's result: the tasks it lists, an empty list for
// "No tasks found", nil for anything else.
func taskList(result string) []listedTask {
	list := []listedTask{}
	for l := range strings.Lines(result) {
		l = strings.TrimSpace(l)
		if m := taskLine().FindStringSubmatch(l); m != nil {
			list = append(list, listedTask{n: m[1], status: m[2], subject: taskBlocked().ReplaceAllString(m[3], "")})
		}
	}
	if len(list) == 0 && !strings.HasPrefix(strings.TrimSpace(result), "No tasks") {
		return nil
	}
	return list
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// joinBounded joins items with " · " up to max bytes, then says how many
// it left out. more, when not nil, follows the items it names beyond them
// (past max: its text is bounded on its own), or joins the count of those
// left out.
func joinBounded(items []string, max int, more *stateMore) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 && b.Len()+len(it) > max {
			n := len(items) - i
			if more != nil {
				n += more.n
			}
			b.WriteString(" · +" + strconv.Itoa(n) + " more")
			return b.String()
		}
		if i > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(it)
	}
	if more != nil {
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(more.text)
	}
	return b.String()
}

// stateMore is what a line says of the n items it does not list.
type stateMore struct {
	n    int
	text string
}

// moreFiles names the files changed before the ones the line shows in
// full: "+3 more: a.go, plan.md, b_test.go", each file name once, in at
// most stateMoreMax bytes ("…" for names left out).
func moreFiles(files []*stateFile) string {
	var b strings.Builder
	b.WriteString("+" + strconv.Itoa(len(files)) + " more: ")
	seen := map[string]bool{}
	for _, f := range files {
		name := f.path[strings.LastIndexAny(f.path, `/\`)+1:]
		if name == "" {
			continue
		}
		name = shown.Line(name, stateItemMax)
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) > 1 {
			if b.Len()+len(name)+2 > stateMoreMax {
				b.WriteString(", …")
				break
			}
			b.WriteString(", ")
		}
		b.WriteString(name)
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
