package digest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"bottle/privacy"
)

// agentTools are the describers of the agent, task, team and to-do tools.
var agentTools = map[string]describer{
	"Task":        describeTask,
	"Agent":       describeTask,
	"TaskOutput":  describeShellOutput,
	"TaskCreate":  describeTaskCreate,
	"TaskUpdate":  describeTaskUpdate,
	"TaskGet":     describeTaskGet,
	"TaskList":    describeTaskList,
	"SendMessage": describeSendMessage,
	"TeamCreate":  describeTeamCreate,
	"TeamDelete":  describeNothing,
	"TodoWrite":   describeTodoWrite,
	"TodoRead":    describeNothing,
}

func describeTask(c *Call, cwd string, ok bool) description {
	var in struct {
		Description  string `json:"description"`
		Prompt       string `json:"prompt"`
		SubagentType string `json:"subagent_type"`
	}
	decodeInput(c, &in)
	sal := clean(in.Description, 80)
	if sal == "" {
		sal = clean(firstLine(privacy.Strip(in.Prompt)), 80)
	}
	if t := clean(in.SubagentType, 32); t != "" && t != "general-purpose" {
		sal += " (" + t + ")"
	}
	d := description{salient: strings.TrimSpace(sal)}
	if ok {
		if c.headContains(512, "Async agent launched") ||
			bytes.Contains(c.Structured, []byte(`"async_launched"`)) {
			d.success = "launched in background"
		} else {
			d.success = "agent finished"
			d.detail = func(room int) string { return citedFiles(c, cwd, room) }
		}
	}
	return d
}

func describeTaskCreate(c *Call, _ string, ok bool) description {
	var in struct {
		Subject string `json:"subject"`
	}
	decodeInput(c, &in)
	d := description{salient: clean(in.Subject, salientMax)}
	if ok {
		// "Task #3 created successfully: …"
		if rest, found := strings.CutPrefix(head(c), "Task #"); found {
			if n := leadingDigits(rest); n != "" {
				d.success = "task #" + n
			}
		}
	}
	return d
}

func describeTaskUpdate(c *Call, _ string, _ bool) description {
	var in struct {
		TaskID       json.RawMessage `json:"taskId"`
		Status       string          `json:"status"`
		Subject      json.RawMessage `json:"subject"`
		Description  json.RawMessage `json:"description"`
		Owner        json.RawMessage `json:"owner"`
		AddBlockedBy json.RawMessage `json:"addBlockedBy"`
		AddBlocks    json.RawMessage `json:"addBlocks"`
	}
	decodeInput(c, &in)
	sal := taskID(in.TaskID)
	var parts []string
	if s := clean(in.Status, 20); s != "" {
		parts = append(parts, "→ "+s)
	}
	for _, f := range [...]struct {
		raw  json.RawMessage
		name string
	}{{in.Subject, "subject"}, {in.Description, "description"}, {in.Owner, "owner"},
		{in.AddBlockedBy, "blockedBy"}, {in.AddBlocks, "blocks"}} {
		if len(f.raw) > 0 {
			parts = append(parts, f.name)
		}
	}
	if len(parts) > 0 {
		sal = strings.TrimSpace(sal + " " + strings.Join(parts, ", "))
	}
	return description{salient: sal}
}

func describeTaskGet(c *Call, _ string, _ bool) description {
	var in struct {
		TaskID json.RawMessage `json:"taskId"`
	}
	decodeInput(c, &in)
	return description{salient: taskID(in.TaskID)}
}

// taskID shows a task id, given as a string or a number, as "#3".
func taskID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return ""
		}
		s = n.String()
	}
	if s = clean(s, 24); s != "" {
		return "#" + s
	}
	return ""
}

func describeTaskList(c *Call, _ string, ok bool) description {
	var d description
	if ok {
		if c.headHasPrefix(512, "No tasks") {
			d.success = "no tasks"
		} else {
			n := 0
			c.forResultLines(func(line string, _ bool) {
				if strings.HasPrefix(line, "#") {
					n++
				}
			})
			d.success = plural(n, "task")
		}
	}
	return d
}

// describeSendMessage names a message to a teammate, the lead or another
// agent: its recipient and its subject (the summary given, else the
// message's first line, else a protocol message's type).
func describeSendMessage(c *Call, _ string, _ bool) description {
	var in struct {
		To      string          `json:"to"`
		Summary string          `json:"summary"`
		Message json.RawMessage `json:"message"`
	}
	decodeInput(c, &in)
	subject := clean(in.Summary, 80)
	if subject == "" {
		var text string
		var proto struct {
			Type string `json:"type"`
		}
		switch {
		case json.Unmarshal(in.Message, &text) == nil:
			subject = clean(firstLine(privacy.Strip(text)), 80)
		case json.Unmarshal(in.Message, &proto) == nil:
			subject = clean(strings.ReplaceAll(proto.Type, "_", " "), 40)
		}
	}
	sal := ""
	if to := clean(in.To, 40); to != "" {
		sal = "to " + to
	}
	if subject != "" {
		if sal != "" {
			sal += ": "
		}
		sal += subject
	}
	return description{salient: sal}
}

// describeTeamCreate names the team an agent team's lead creates.
func describeTeamCreate(c *Call, _ string, _ bool) description {
	var in struct {
		TeamName    string `json:"team_name"`
		Description string `json:"description"`
	}
	decodeInput(c, &in)
	sal := clean(in.TeamName, 40)
	if d := clean(firstLine(privacy.Strip(in.Description)), 80); d != "" {
		if sal == "" {
			sal = d
		} else {
			sal += " (" + d + ")"
		}
	}
	return description{salient: sal}
}

func describeTodoWrite(c *Call, _ string, _ bool) description {
	var in struct {
		Todos []struct {
			Content    string `json:"content"`
			Status     string `json:"status"`
			ActiveForm string `json:"activeForm"`
		} `json:"todos"`
	}
	decodeInput(c, &in)
	done, now := 0, ""
	for _, t := range in.Todos {
		switch t.Status {
		case "completed":
			done++
		case "in_progress":
			if now == "" {
				now = firstNonEmpty(clean(t.ActiveForm, salientMax), clean(t.Content, salientMax))
			}
		}
	}
	sal := plural(len(in.Todos), "todo") + ", " + strconv.Itoa(done) + " done"
	if now != "" {
		sal += ", now: " + now
	}
	return description{salient: sal}
}
