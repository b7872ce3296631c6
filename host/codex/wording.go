package codex

import (
	"bottle/internal/codexconfig"
	"bottle/pointer"
)

// ReadWith is how a model in Codex reads a file without bottle's tools:
// Codex has no file-reading tool but its shell.
const ReadWith = "exec_command (sed -n '1,400p' on that path, then the next ranges)"

// Wording is how bottle words what it tells Codex's model (the pointer,
// the server's instructions and tool descriptions): bottle's tools are
// the functions of the namespace the install registers its server under,
// and files are read with the shell.
var Wording = pointer.Host{Name: HostName, Namespace: "mcp__" + codexconfig.ServerName, ReadWith: ReadWith}

// SinceCompaction is what a rollout holds after its last compaction: the
// context Codex restores from it on resume.
type SinceCompaction struct {
	// Compacted reports that the rollout holds a compaction at all.
	Compacted bool
	// HookContext holds the texts hooks injected since (bottle's pointer
	// among them).
	HookContext []string
	// Prompts counts the user's messages since: none means the compaction
	// was the thread's last act, and the SessionStart hook of source
	// compact that follows it is still to run.
	Prompts int
}

// Since is what r holds after its last compaction.
func Since(r *Rollout) SinceCompaction {
	var s SinceCompaction
	for k := range r.Records {
		rec := &r.Records[k]
		switch {
		case rec.Compacted != nil:
			s = SinceCompaction{Compacted: true}
		case rec.Item == nil || rec.Item.Type != ItemMessage:
		case rec.Item.Injected == InjectedHookContext:
			s.HookContext = append(s.HookContext, rec.Item.Text)
		case rec.Item.Injected == "" && rec.Item.Role == "user":
			s.Prompts++
		}
	}
	return s
}
