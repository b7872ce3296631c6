package codex

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"bottle/render/digest"
)

// planInput is update_plan's arguments.
type planInput struct {
	Explanation string `json:"explanation"`
	Plan        []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"plan"`
}

func describePlan(c *Call, _ string) digest.Parts {
	var in planInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	done, now := 0, ""
	for _, s := range in.Plan {
		switch s.Status {
		case "completed":
			done++
		case "in_progress":
			if now == "" {
				now = s.Step
			}
		}
	}
	sal := strconv.Itoa(done) + " of " + strconv.Itoa(len(in.Plan)) + " done"
	if now = text(now, 100); now != "" {
		sal += "; now: " + now
	}
	return digest.Parts{Subject: sal}
}

func describeWebSearch(c *Call, _ string) digest.Parts {
	var in struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	if q := text(in.Query, 140); q != "" {
		return digest.Parts{Subject: `"` + q + `"`}
	}
	return digest.Parts{Subject: text(in.URL, 140)}
}

// questionInput is request_user_input's arguments.
type questionInput struct {
	Questions []struct {
		ID       string `json:"id"`
		Header   string `json:"header"`
		Question string `json:"question"`
	} `json:"questions"`
}

func describeQuestion(c *Call, _ string) digest.Parts {
	var in questionInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	p := digest.Parts{}
	if len(in.Questions) > 0 {
		p.Subject = text(cmp.Or(in.Questions[0].Question, in.Questions[0].Header), 140)
		if len(in.Questions) > 1 {
			p.Note = " (+" + strconv.Itoa(len(in.Questions)-1) + " more)"
		}
	}
	if c.HasResult {
		p.Outcome = "answered"
		if c.Answers() == "" {
			p.Outcome = "no answer"
		}
	}
	return p
}

// Answers is the user's answers to a request_user_input call as they wrote
// them, a "<header or question>: <answer>" paragraph each, from its output
// ({"answers": {"<id>": {"answers": ["…"]}}}); "" when the output holds
// none. Raw: strip before use.
func (c *Call) Answers() string {
	var in questionInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	var out struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if json.Unmarshal([]byte(c.Output), &out) != nil || len(out.Answers) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	label := func(id string) string {
		for _, q := range in.Questions {
			if q.ID == id {
				return cmp.Or(strings.TrimSpace(q.Header), strings.TrimSpace(q.Question), id)
			}
		}
		return id
	}
	put := func(id string) {
		a, ok := out.Answers[id]
		if !ok || seen[id] {
			return
		}
		seen[id] = true
		words := strings.TrimSpace(strings.Join(a.Answers, ", "))
		if words != "" {
			parts = append(parts, label(id)+": "+words)
		}
	}
	for _, q := range in.Questions {
		put(q.ID)
	}
	ids := make([]string, 0, len(out.Answers))
	for id := range out.Answers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		put(id)
	}
	return strings.Join(parts, "\n\n")
}
