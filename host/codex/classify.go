package codex

import "strings"

// Injection says why a message is context Codex injected, never a message
// of the user or the assistant.
type Injection string

// The reasons. A message is classified by Codex's content_item_kinds when
// the version wrote them, else by its role and the tags that open it.
const (
	// InjectedInstructions: a developer or system message (base,
	// permissions, skills or collaboration-mode instructions).
	InjectedInstructions Injection = "instructions"
	// InjectedHookContext: context a hook added (hooks.additional_context),
	// bottle's own pointer among it.
	InjectedHookContext Injection = "hook_context"
	// InjectedEnvironment: <environment_context> (cwd, shell, date, …).
	InjectedEnvironment Injection = "environment"
	// InjectedAgentsMD: the text of AGENTS.md files (<user_instructions>,
	// "# AGENTS.md instructions for …").
	InjectedAgentsMD Injection = "agents_md"
	// InjectedSkill: a skill's SKILL.md injected when it is used.
	InjectedSkill Injection = "skill"
	// InjectedSummary: a compaction summary, as the model wrote it
	// (compaction_output) or as Codex hands it on (compaction.summary).
	InjectedSummary Injection = "compaction_summary"
	// InjectedMarker: a marker Codex writes into the history
	// (<turn_aborted>, …).
	InjectedMarker Injection = "marker"
	// InjectedReasoning: the model's reasoning.
	InjectedReasoning Injection = "reasoning"
	// InjectedOther: a user-role message whose kinds name no user text.
	InjectedOther Injection = "other"
)

// summaryPrefix opens the summary message Codex builds from a local
// compaction's answer.
const summaryPrefix = "Another language model started to solve this problem and produced a summary"

// tagged are the openings of user-role messages that Codex injects, and why.
var tagged = []struct {
	prefix string
	why    Injection
}{
	{"<environment_context>", InjectedEnvironment},
	{"<user_instructions>", InjectedAgentsMD},
	{"# AGENTS.md instructions for ", InjectedAgentsMD},
	{"<skill>", InjectedSkill},
	{"<skills_instructions>", InjectedInstructions},
	{"<permissions instructions>", InjectedInstructions},
	{"<collaboration_mode>", InjectedInstructions},
	{"<turn_aborted>", InjectedMarker},
	{summaryPrefix, InjectedSummary},
}

// classify says why a message of role with text and Codex's content kinds
// is injected context, or "" when it is the user's or the assistant's.
func classify(role, text string, kinds []string) Injection {
	for _, k := range kinds {
		if k == "hooks.additional_context" {
			return InjectedHookContext
		}
		if k == "compaction.summary" {
			return InjectedSummary
		}
	}
	switch role {
	case "developer", "system":
		return InjectedInstructions
	case "user":
	default:
		return ""
	}
	// Codex's kinds, when written, are what it knows: a user's words that
	// happen to open with a tag stay the user's.
	for _, k := range kinds {
		if strings.HasPrefix(k, "user.") {
			return ""
		}
	}
	for _, k := range kinds {
		switch {
		case strings.HasPrefix(k, "environments."):
			return InjectedEnvironment
		case strings.Contains(k, "agents_md"):
			return InjectedAgentsMD
		case strings.HasPrefix(k, "host_skills.") || strings.HasPrefix(k, "skills."):
			return InjectedSkill
		}
	}
	trimmed := strings.TrimLeft(text, " \t\r\n")
	for _, t := range tagged {
		if strings.HasPrefix(trimmed, t.prefix) {
			return t.why
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	return InjectedOther
}
