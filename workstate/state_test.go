package workstate

import (
	"slices"
	"strings"
	"testing"
)

// TestCommitTrailers pins what the Commits line takes of a commit
// message: the hyphenated trailers after its first line, unquoted.
func TestCommitTrailers(t *testing.T) {
	tests := []struct {
		name, cmd string
		want      []string
	}{
		{"one line", `git commit -m "fix: x"`, nil},
		{"two -m on one line", `git commit -m "fix" -m "Signed-off-by: A <a@x>"`, nil},
		{"heredoc", "git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"", []string{"Co-Authored-By: Claude <noreply@anthropic.com>"}},
		{"quoted message", "git commit -m \"fix\n\nSigned-off-by: A <a@x>\"", []string{"Signed-off-by: A <a@x>"}},
		{"prose and a heading are not trailers", "git commit -m 'fix\n\nNote: why\n## Refs-to: x\nhttp://a-b.c: d'", nil},
		{"two at most, each once", "git commit -F- <<EOF\nfix\nAcked-by: a\nAcked-by: a\nTested-by: b\nReviewed-by: c\nEOF", []string{"Acked-by: a", "Tested-by: b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := commitTrailers(tt.cmd); !slices.Equal(got, tt.want) {
				t.Errorf("commitTrailers(%q) = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
}

// TestPushedAndReviews pins what the Pushed and Pull request lines read
// of git push and gh pr create output.
func TestPushedAndReviews(t *testing.T) {
	push := []struct{ name, out, want string }{
		{"update", "To github.com:o/r.git\n   36ff9a9..c2b0273  main -> main", "c2b0273 to main"},
		{"forced", " + 36ff9a9...c2b0273 topic -> topic (forced update)", "c2b0273 to topic"},
		{"new branch", "remote: Create a pull request:\nremote:   https://github.com/o/r/pull/new/t\n * [new branch]      t -> t\nbranch 't' set up to track 'origin/t'.", "t (new branch)"},
		{"hook lines first", "[entire] Pushing session logs to origin...\nTo github.com:o/r.git\n   3696270..b87e0d5  alex/ent-109 -> alex/ent-109", "b87e0d5 to alex/ent-109"},
		{"up to date", "Everything up-to-date", ""},
		{"not a ref line", "see a1b2c3d..e4f5a6b in the log -> later", ""},
	}
	for _, tt := range push {
		if got := pushed(tt.out); got != tt.want {
			t.Errorf("%s: pushed(%q) = %q, want %q", tt.name, tt.out, got, tt.want)
		}
	}
	review := []struct{ out, want string }{
		{"https://github.com/entireio/cli/pull/136", "https://github.com/entireio/cli/pull/136"},
		{"Warning: 3 uncommitted changes\nhttps://github.com/EntityProcess/agentv/pull/754\n", "https://github.com/EntityProcess/agentv/pull/754"},
		{"a pull request for branch \"t\" into branch \"main\" already exists:\nhttps://github.com/o/r/pull/7", "https://github.com/o/r/pull/7"},
		{"!42 created: https://gitlab.com/group/sub/proj/-/merge_requests/42", "https://gitlab.com/group/sub/proj/-/merge_requests/42"},
		{"https://github.com/o/r/pull/new/topic", ""},
	}
	for _, tt := range review {
		if got := reviewURL().FindString(tt.out); got != tt.want {
			t.Errorf("reviewURL in %q = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// TestMoreFiles pins the names of the files changed before the ones the
// Files changed line shows: each file name once, bounded.
func TestMoreFiles(t *testing.T) {
	files := func(paths ...string) []*stateFile {
		var fs []*stateFile
		for _, p := range paths {
			fs = append(fs, &stateFile{path: p})
		}
		return fs
	}
	long := strings.Repeat("n", 70) + ".go"
	tests := []struct {
		name  string
		files []*stateFile
		want  string
	}{
		{"one", files("a/b.go"), "+1 more: b.go"},
		{"same name twice", files("a/main.go", `C:\x\main.go`, "plan.md"), "+3 more: main.go, plan.md"},
		{"bounded", files("1/"+long, "2/"+long+"x", "3/"+long+"y", "4/z.go"), "+4 more: " + long + ", " + long + "x, …"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := moreFiles(tt.files); got != tt.want {
				t.Errorf("moreFiles = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestIsCheck holds isCheck's prefilter equal to checkCommand: every
// check the pattern knows starts with one of checkStarts.
func TestIsCheck(t *testing.T) {
	cmds := []string{
		"go test ./...", "go vet ./x", "go build", "go run .", "npm test", "pnpm run lint", "yarn build", "bun run typecheck",
		"cargo clippy", "make", "make test", "make deploy", "pytest -x", "pytest-watch", "python -m pytest", "python3 -m mypy .",
		"python3 app.py", "mypy src", "ruff check", "tox -e py", "mise run test:ci", "golangci-lint run", "staticcheck ./...",
		"eslint .", "tsc --noEmit", "vitest run", "jest", "npx tsc", "npx cowsay", "./gradlew test", "gradle build", "mvn -q test",
		"dotnet test", "mix test", "bundle exec rspec", "rspec spec", "swift test", "git status", "ls -la", "", "gotest", "tscx",
	}
	for _, c := range cmds {
		if got, want := isCheck(c), checkCommand().MatchString(c); got != want {
			t.Errorf("isCheck(%q) = %v, checkCommand says %v", c, got, want)
		}
	}
}

// TestTaskList pins what the Open tasks line reads of TaskList's result:
// each "#N [status] subject" line, without the note of what blocks it;
// "No tasks found" is an empty list, anything else no list at all.
func TestTaskList(t *testing.T) {
	tests := []struct {
		name, in string
		want     []listedTask
	}{
		{"list", "#1 [completed] Design (lead)\n#2 [in_progress] Write tests\n#3 [pending] Bench [blocked by #2, #1]\n",
			[]listedTask{{"1", "completed", "Design (lead)"}, {"2", "in_progress", "Write tests"}, {"3", "pending", "Bench"}}},
		{"none", "No tasks found", []listedTask{}},
		{"error text", "Error: team not found", nil},
		{"prose with a hash", "See #4 for details", nil},
	}
	for _, tt := range tests {
		if got := taskList(tt.in); !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("%s: taskList(%q) = %#v, want %#v", tt.name, tt.in, got, tt.want)
		}
	}
}
