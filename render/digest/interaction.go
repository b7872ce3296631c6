package digest

import (
	"encoding/json"
	"strconv"
	"strings"

	"bottle/privacy"
)

// interactionTools are the describers of the tools that act on the session.
var interactionTools = map[string]describer{
	"Skill":           describeSkill,
	"SlashCommand":    describeSlashCommand,
	"ExitPlanMode":    describeExitPlanMode,
	"EnterPlanMode":   describeNothing,
	"AskUserQuestion": describeAskUserQuestion,
}

func describeSkill(c *Call, _ string, _ bool) description {
	var in struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	decodeInput(c, &in)
	sal := clean(in.Skill, 60)
	if a := clean(firstLine(privacy.Strip(in.Args)), 60); a != "" {
		sal = strings.TrimSpace(sal + " " + a)
	}
	return description{salient: sal}
}

func describeSlashCommand(c *Call, _ string, _ bool) description {
	var in struct {
		Command string `json:"command"`
	}
	decodeInput(c, &in)
	return description{salient: clean(in.Command, salientMax)}
}

func describeExitPlanMode(c *Call, _ string, ok bool) description {
	var in struct {
		Plan string `json:"plan"`
	}
	decodeInput(c, &in)
	title := strings.TrimSpace(strings.TrimLeft(firstLine(privacy.Strip(in.Plan)), "#"))
	d := description{salient: clean(title, salientMax)}
	if ok && c.headHasPrefix(512, "User has approved") {
		d.success = "approved"
	}
	return d
}

// question is one question of an AskUserQuestion call.
type question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
}

func describeAskUserQuestion(c *Call, _ string, ok bool) description {
	var in struct {
		Questions []question `json:"questions"`
	}
	decodeInput(c, &in)
	var d description
	if len(in.Questions) > 0 {
		q := in.Questions[0]
		d.salient = firstNonEmpty(clean(q.Question, salientMax), clean(q.Header, salientMax))
		if len(in.Questions) > 1 {
			d.salient = bound(d.salient, salientMax-10) + " (+" + strconv.Itoa(len(in.Questions)-1) + " more)"
		}
	}
	if ok && strings.Contains(prefix(head(c), 80), "answered") {
		d.success = "answered"
		if a := answers(c, in.Questions); a != "" {
			d.success, d.userWords = d.success+": "+a, true
		}
	}
	return d
}

// answersScan bounds the bytes of an AskUserQuestion result read for the
// answers.
const answersScan = 8 << 10

// answers is the digest's form of the user's answers in an AskUserQuestion
// result (parseAnswers, read from the result stripped of private text):
// the answer alone for one question, "<header>: <answer>" joined by " · "
// for several; "" when the result does not hold every question as asked.
// The answers are the user's words: the line gives them what room it has
// (the turn shows them whole, see [Answers]).
func answers(c *Call, qs []question) string {
	res, _ := c.strippedHead(answersScan)
	as := parseAnswers(res, qs)
	if as == nil {
		return ""
	}
	parts := make([]string, len(as))
	for k, a := range as {
		parts[k] = clean(a, salientMax)
		if len(qs) > 1 {
			parts[k] = answerLabel(qs[k], k) + ": " + parts[k]
		}
	}
	return strings.Join(parts, " · ")
}

// answerLabel names q, question k, in a digest line: its header, else its
// number.
func answerLabel(q question, k int) string {
	if label := clean(q.Header, 24); label != "" {
		return label
	}
	return "#" + strconv.Itoa(k+1)
}

// Answers returns the user's answers to an AskUserQuestion call as they
// wrote them, from its input and its result: a "<header>: <answer>"
// paragraph each (the question where it has no header), but for answers
// that are private text alone; "" when the result, stripped of private
// text, is not the answers to those questions. Only the result is
// stripped: strip the text before use, as every transcript event's.
func Answers(input json.RawMessage, result string) string {
	var in struct {
		Questions []question `json:"questions"`
	}
	if json.Unmarshal(input, &in) != nil || !strings.Contains(prefix(result, 80), "answered") {
		return ""
	}
	// Stripped before it is cut into answers: a private block may span two.
	as := parseAnswers(privacy.Strip(prefix(result, answersScan)), in.Questions)
	if as == nil {
		return ""
	}
	parts := make([]string, 0, len(as))
	for k, a := range as {
		if strings.TrimSpace(a) == "" {
			continue // private text alone
		}
		label := strings.TrimSpace(in.Questions[k].Header)
		if label == "" {
			label = strings.TrimSpace(in.Questions[k].Question)
		}
		parts = append(parts, label+": "+a)
	}
	return strings.Join(parts, "\n\n")
}

// parseAnswers reads the answers to qs, in order, from Claude Code's
// AskUserQuestion result `…: "<question>"="<answer>", "<question>"=
// "<answer>". You can now continue…`, each found by its question as
// asked; nil unless every question has one.
func parseAnswers(res string, qs []question) []string {
	if len(qs) == 0 {
		return nil
	}
	as := make([]string, 0, len(qs))
	pos := 0
	for k, q := range qs {
		key := `"` + q.Question + `"="`
		i := strings.Index(res[pos:], key)
		if q.Question == "" || i < 0 {
			return nil
		}
		start := pos + i + len(key)
		var j int
		if k+1 < len(qs) {
			j = strings.Index(res[start:], `", "`+qs[k+1].Question+`"="`)
		} else if j = strings.LastIndex(res[start:], `". `); j < 0 {
			j = strings.LastIndex(res[start:], `"`)
		}
		if j < 0 {
			return nil
		}
		as = append(as, res[start:start+j])
		pos = start + j
	}
	return as
}
