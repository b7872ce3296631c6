package transcript

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"bottle/privacy"
)

// TestSenderMessages pins how another party's messages are read: the
// sender named by its tag and attribute, the body verbatim (a protocol
// message readable), several wrappers as several messages, private text
// stripped, and text that is no wrapper left to the other rules.
func TestSenderMessages(t *testing.T) {
	tests := []struct {
		name, in string
		want     []message
	}{
		{"not a sender", "hello <teammate-message>", nil},
		{"other tag", "<command-name>/x</command-name>", nil},
		{"teammate plain", "<teammate-message teammate_id=\"team-lead\" color=\"blue\" summary=\"s\">\nYou are tester on the team.\nRun it.\n</teammate-message>",
			[]message{{"Teammate team-lead", "You are tester on the team.\nRun it."}}},
		{"task assignment", "<teammate-message teammate_id=\"team-lead\">\n{\"type\":\"task_assignment\",\"taskId\":\"17\",\"subject\":\"Parse it\",\"description\":\"Line one\\nline two\",\"blockedBy\":[\"3\"],\"n\":2}\n</teammate-message>",
			[]message{{"Teammate team-lead", "Task assignment\ntaskId: 17\nsubject: Parse it\ndescription:\nLine one\nline two\nblockedBy: [\"3\"]\nn: 2"}}},
		{"two in one", "<teammate-message teammate_id=\"a\">\none\n</teammate-message>\n\n<teammate-message teammate_id=\"b\" summary=\"x > y\">\ntwo\n</teammate-message>\n",
			[]message{{"Teammate a", "one"}, {"Teammate b", "two"}}},
		{"closing tag quoted in a body", "<teammate-message teammate_id=\"a\">\nsee </teammate-message> here\n</teammate-message>",
			[]message{{"Teammate a", "see </teammate-message> here"}}},
		{"unclosed", "<agent-message from=\"rev\"> half", []message{{"Agent rev", "half"}}},
		{"peer by name", "<cross-session-message from=\"uds:x\" from-name=\"docs\">\nhi\n</cross-session-message>", []message{{"Peer docs", "hi"}}},
		{"channel", "<channel source=\"ci\" run=\"7\"> red </channel>", []message{{"Channel ci", "red"}}},
		{"slack", "<slack-ping user=\"U1\">ping</slack-ping>", []message{{"Slack U1", "ping"}}},
		{"coordinator, trailing text", "<coordinator-relay> relay </coordinator-relay> and more", []message{{"Coordinator", "relay </coordinator-relay> and more"}}},
		{"private stripped", "<teammate-message teammate_id=\"a\">\nkeep <private>secret</private> this\n</teammate-message>", []message{{"Teammate a", "keep  this"}}},
		{"private spanning fields", "<teammate-message teammate_id=\"a\">\n{\"type\":\"task_assignment\",\"subject\":\"x \\u003cprivate\\u003ehidden\",\"description\":\"more\\u003c/private\\u003e y\"}\n</teammate-message>",
			[]message{{"Teammate a", "Task assignment\nsubject: x <private>hidden\ndescription: more</private> y"}}},
		{"json without type stays verbatim", "<agent-message from=\"x\">{\"a\":1}</agent-message>", []message{{"Agent x", "{\"a\":1}"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := senderMessages(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("senderMessages(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSenderEntries pins the events of other parties' messages: the first
// of an entry starts a turn, the others follow it in that turn, a meta
// entry counts, and one beside a tool result is mid-turn.
func TestSenderEntries(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"1","timestamp":"2026-01-05T14:39:00Z","message":{"content":"<teammate-message teammate_id=\"lead\">\none\n</teammate-message>\n<teammate-message teammate_id=\"qa\">\ntwo\n</teammate-message>"}}`,
		`{"type":"assistant","uuid":"2","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"user","uuid":"3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"<agent-message from=\"rev\"> mid </agent-message>"}]}}`,
		`{"type":"user","uuid":"4","isMeta":true,"message":{"content":"<channel source=\"ci\">red</channel>"}}`,
	}
	tr, err := ReadFrom(strings.NewReader(strings.Join(lines, "\n")+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		kind       EventKind
		from, text string
	}
	var got []ev
	for _, e := range tr.Events {
		got = append(got, ev{e.Kind, e.From, e.Text})
	}
	want := []ev{{EvPrompt, "Teammate lead", "one"}, {EvMidTurn, "Teammate qa", "two"}, {EvTool, "", ""},
		{EvMidTurn, "Agent rev", "mid"}, {EvPrompt, "Channel ci", "red"}}
	if !reflect.DeepEqual(got, want) || tr.Prompts != 2 {
		t.Errorf("events %v (prompts %d), want %v (prompts 2)", got, tr.Prompts, want)
	}
}

// FuzzSenderMessages: any text is read without a panic; a text read as
// messages starts with a sender wrapper, each message is named by a sender
// word, and a private block inside a message never reaches its text.
func FuzzSenderMessages(f *testing.F) {
	for _, s := range []string{"", "x", "<teammate-message", "<teammate-message teammate_id=\"a\">\n{\"type\":\"task_assignment\",\"taskId\":\"1\"}\n</teammate-message>",
		"<channel source=\"ci\" a=\">\"> b </channel><agent-message>", "<coordinator-relay>{\"type\":1}", "<slack-ping \"=\"x\">{\"type\":\"x\",\"a\":[1,{\"b\":\"<\"}]}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs := senderMessages(s)
		if msgs != nil {
			if _, ok := senderTags[leadingTag(strings.TrimLeft(s, " \t\r\n"))]; !ok {
				t.Fatalf("senderMessages(%q) read messages from a text that is no wrapper", s)
			}
		}
		for _, m := range msgs {
			word, _, _ := strings.Cut(m.from, " ")
			if m.from != "" && !slices.Contains(SenderWords, word) {
				t.Fatalf("sender %q is named by no sender word", m.from)
			}
		}
		if strings.Contains(strings.ToLower(s), "secretx") {
			return
		}
		wrapped := "<teammate-message teammate_id=\"a\">" + s + "<private>SECRETX</private>" + s + "</teammate-message>"
		for _, m := range senderMessages(wrapped) {
			if strings.Contains(strings.ToLower(privacy.Strip(m.from+m.text)), "secretx") {
				t.Fatalf("private text reached a message of %q: %q", wrapped, m)
			}
		}
	})
}
