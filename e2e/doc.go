// Package e2e holds bottle's end-to-end test: the real Claude Code CLI, run as
// a subprocess in a scratch home and project, talks to a scripted mock of the
// Anthropic Messages API on 127.0.0.1. bottle is installed three ways: "hookbin
// install --scope project" with the freshly built hookbin and mcpserver; as the
// plugin, by "claude plugin marketplace add" of a copy of the repository's
// marketplace (the binaries in plugin/libexec) and "claude plugin install
// bottle@bottle"; and as a user without Go installs a release: the folder
// scripts/release.sh writes (BOTTLE_E2E_RELEASE names one; else it is built
// for this platform) committed by scripts/release-branch.sh to the
// plugin-release branch of a git repository served on 127.0.0.1, added by its
// URL, with no go command on the PATH Claude Code and the launcher get. The test drives a
// session through tool calls, auto and manual compaction (/compact with the
// user's own instructions), resume and /clear, without and with a claude-mem
// database, with the PreCompact steering on and off, and checks what the model
// was sent (the pointer and tool names of the install, the summariser's
// instructions), what the hooks answered, which install ran them and that
// none ran twice, what Claude Code logged and what was written to disk.
//
// It runs under "go test ./e2e" (and so under "go test ./...") when
// $BOTTLE_E2E_CLAUDE names a claude binary, and skips with a message
// otherwise:
//
//	claude=$(scripts/install-claude.sh 2.1.332)   # installs into ~/.cache/bottle-e2e/2.1.332
//	BOTTLE_E2E_CLAUDE=$claude go test -race -v -run TestClaudeCode ./e2e
//
// Nothing leaves the machine: HTTP(S)_PROXY point at the mock, which refuses
// and records any CONNECT, and on Linux the test re-runs itself in a network
// namespace with only loopback where the kernel allows one
// (BOTTLE_E2E_NETNS=auto|on|off). BOTTLE_E2E_KEEP=DIR keeps each scratch
// world (home, project, bottles, Claude Code's stream and debug log, every
// request the mock got) for a look after a failure. The package has no code
// outside its tests; they drive the built binaries only, as Claude Code does,
// and import nothing of bottle's but the fixture databases (memtest) and the
// Codex rollout reader (host/codex).
//
// TestCodex does the same for the OpenAI Codex CLI when $BOTTLE_E2E_CODEX
// names a codex binary (scripts/install-codex.sh 0.171.0 prints one): a
// scripted mock of the Responses API on 127.0.0.1, bottle installed with
// "hookbin install --host codex --trust" into a scratch CODEX_HOME, "codex
// exec" through a shell call, a call of bottle's MCP server and an auto
// compaction on resume, once with local compaction and once with a provider
// named "OpenAI" (remote compaction, its summary encrypted); it checks the
// hooks Codex ran, the tools it offered, and the rollout it wrote as
// host/codex reads it.
package e2e
