package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"bottle/privacy"
)

// senderTags are the wrappers Claude Code puts around a message another
// party sent the session — a teammate of an agent team, another agent,
// another session, a channel, Slack, a coordinator — with the word the
// bottle names that party by. Such a message is an input the session acts
// on, as a prompt is.
var senderTags = map[string]string{
	"teammate-message":      "Teammate",
	"agent-message":         "Agent",
	"cross-session-message": "Peer",
	"channel":               "Channel",
	"slack-ping":            "Slack",
	"slack-tag-message":     "Slack",
	"coordinator-relay":     "Coordinator",
}

// SenderWords are the words a sender's label starts with ([Event].From):
// the renderer escapes message lines that would read as their headings.
var SenderWords = []string{"Teammate", "Agent", "Peer", "Channel", "Slack", "Coordinator"}

// senderAttrs are the attributes that name a sender, the most specific
// first: a teammate's id, a peer's display name before its address, a
// channel's source.
var senderAttrs = []string{"teammate_id", "from-name", "from", "source", "user", "channel"}

// message is one message of another party's: its sender's label
// ("Teammate team-lead") and its body, made readable.
type message struct{ from, text string }

// senderMessages reads the messages of a user text that starts with a
// sender wrapper; nil when it does not. Several wrappers in one text are
// several messages. The text is stripped of private blocks first, as the
// command wrappers are: a private block may span a wrapper's parts.
func senderMessages(text string) []message {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "<") {
		return nil
	}
	if _, ok := senderTags[leadingTag(t)]; !ok {
		return nil
	}
	t = strings.TrimLeft(privacy.Strip(t), " \t\r\n")
	var msgs []message
	for t != "" {
		name := leadingTag(t)
		word, ok := senderTags[name]
		if !ok {
			// Text after the last wrapper belongs to the message before
			// it (the stripping may also have removed the first opening).
			if len(msgs) == 0 {
				return []message{{text: strings.TrimSpace(t)}}
			}
			last := &msgs[len(msgs)-1]
			last.text = strings.TrimSpace(last.text + "\n\n" + t)
			break
		}
		attrs, rest := openingTag(t)
		body, after := senderBody(rest, name)
		msgs = append(msgs, message{from: senderLabel(word, attrs), text: readableBody(body)})
		t = strings.TrimLeft(after, " \t\r\n")
	}
	return msgs
}

// openingTag reads the attributes of the opening tag at the start of s and
// returns them with the text after the tag. Quoted values may hold '>'.
func openingTag(s string) (attrs map[string]string, rest string) {
	i := 1 + len(leadingTag(s))
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] == '>' {
			return attrs, s[i+1:]
		}
		k := i
		for i < len(s) && s[i] != '=' && s[i] != '>' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
			i++
		}
		key := s[k:i]
		if i < len(s) && s[i] == '=' && i+1 < len(s) && s[i+1] == '"' {
			end := strings.IndexByte(s[i+2:], '"')
			if end < 0 {
				return attrs, ""
			}
			if attrs == nil {
				attrs = map[string]string{}
			}
			attrs[key] = s[i+2 : i+2+end]
			i += 2 + end + 1
			continue
		}
		if i < len(s) && s[i] != '>' {
			i++
		}
	}
	return attrs, ""
}

// senderBody cuts a message's body from the text after its opening tag:
// up to a closing tag followed by nothing but another wrapper (as Claude
// Code reads them), else to the end without a final closing tag.
func senderBody(rest, name string) (body, after string) {
	closing := "</" + name + ">"
	for off := 0; ; {
		j := strings.Index(rest[off:], closing)
		if j < 0 {
			break
		}
		j += off
		next := strings.TrimLeft(rest[j+len(closing):], " \t\r\n")
		if next == "" {
			return rest[:j], ""
		}
		if _, ok := senderTags[leadingTag(next)]; ok {
			return rest[:j], next
		}
		off = j + len(closing)
	}
	body = strings.TrimSuffix(strings.TrimRight(rest, " \t\r\n"), closing)
	return body, ""
}

// senderLabel names a sender: the tag's word and the first naming
// attribute ("Teammate team-lead"), or the word alone.
func senderLabel(word string, attrs map[string]string) string {
	for _, a := range senderAttrs {
		if v := strings.TrimSpace(attrs[a]); v != "" {
			return word + " " + v
		}
	}
	return word
}

// readableBody is a message's body as the bottle shows it: verbatim, but a
// protocol message — a JSON object with a "type", such as a task
// assignment — as its type and then one "key: value" line per field, in
// the object's own order (a private block spanning fields stays in one
// piece for the stripper).
func readableBody(body string) string {
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, "{") || !strings.HasSuffix(body, "}") {
		return body
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return body
	}
	var b strings.Builder
	kind := ""
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return body
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return body
		}
		val := jsonValueText(v)
		if key == "type" && kind == "" && b.Len() == 0 {
			kind = strings.ReplaceAll(val, "_", " ")
			continue
		}
		b.WriteString("\n" + key + ":")
		if strings.Contains(val, "\n") {
			b.WriteString("\n" + val)
		} else if val != "" {
			b.WriteString(" " + val)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || dec.More() || kind == "" {
		return body
	}
	return strings.ToUpper(kind[:1]) + kind[1:] + b.String()
}

// jsonValueText shows a JSON value: a string as its text, anything else
// as compact JSON with '<' and '>' as they are (the stripper must see a
// private tag).
func jsonValueText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return string(v)
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if e.Encode(x) != nil {
		return string(v)
	}
	return strings.TrimSpace(b.String())
}

// userSenderMessages reads the messages of a user message without tool
// results whose text starts with a sender wrapper; nil for any other
// (looked at without joining its blocks: most are not).
func userSenderMessages(c userContent) []message {
	if len(c.texts) == 0 {
		return nil
	}
	k := 0
	for k < len(c.texts)-1 && isBlank(c.texts[k]) {
		k++
	}
	t := strings.TrimLeft(c.texts[k], " \t\r\n")
	if !strings.HasPrefix(t, "<") {
		return nil
	}
	if _, ok := senderTags[leadingTag(t)]; !ok {
		return nil
	}
	return senderMessages(userText(c))
}

// userText is a user message's words as classification reads them: its
// text blocks, joined.
func userText(c userContent) string { return strings.Join(c.texts, "\n\n") }

// inputEvents are the events of an entry of other parties' messages: the
// first message starts a turn (with the IDE context beside it), the others
// are further messages of that turn.
func inputEvents(msgs []message, c userContent, ts time.Time) []Event {
	evs := make([]Event, len(msgs))
	for i, m := range msgs {
		evs[i] = Event{Kind: EvMidTurn, Time: ts, Text: m.text, From: m.from}
	}
	evs[0].Kind, evs[0].IDE = EvPrompt, c.ide
	return evs
}
