package render

import (
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/pointer"
)

// PointerFor is the pointer to the bottle of r written at bottlePath, at
// time now; fresh words it for a new conversation (see pointer.Input.Fresh),
// names names the tools as the install shows them, host words it for the
// host it is read in (the zero Host: Claude Code). A record another host
// wrote is named as that host's.
func (r *Result) PointerFor(bottlePath string, now time.Time, fresh bool, names pointer.MCPNames, host pointer.Host) string {
	task, generated := r.CurrentTask()
	recorded := r.Host
	if recorded == "" {
		recorded = transcript.HostName
	}
	if recorded == host.Name || (host.Name == "" && recorded == transcript.HostName) {
		recorded = ""
	}
	return pointer.Text(pointer.Input{
		BottlePath:    bottlePath,
		SessionID:     r.SessionID,
		Mode:          r.Mode,
		CurrentTask:   task,
		TaskGenerated: generated,
		NeedsPaging:   r.NeedsPaging,
		LastActive:    r.LastActivity,
		Now:           now,
		Fresh:         fresh,
		MCP:           names,
		Standalone:    r.Standalone,
		Host:          host,
		RecordedBy:    recorded,
	})
}

// CurrentTask is what the pointer's "Current task:" line names for a
// render: the last prompt, or claude-mem's latest summary when it is newer
// (or the session is reconstructed); generated says it is the summary.
func (r *Result) CurrentTask() (task string, generated bool) {
	sum := ""
	if s := r.LatestSummary; s != nil {
		sum = pointer.SummaryTask(s.Request, s.NextSteps)
	}
	switch {
	case sum == "":
		return r.LastPrompt, false
	case r.LastPrompt == "" || r.TranscriptPath == "":
		return sum, true // reconstructed mode: the summaries are the record
	}
	if r.LastPromptTime.After(r.LatestSummary.Time) {
		return r.LastPrompt, false
	}
	return sum, true
}
