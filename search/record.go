package search

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"bottle/claudemem"
	"bottle/internal/jsonscan"
	"bottle/privacy"
	"bottle/session"
)

// Kind is what a record is.
type Kind string

// Record kinds, as the kinds filter names them.
const (
	KindPrompt      Kind = "prompt"      // a genuine prompt, another party's message, mid-turn words, a slash command's or bash-mode input
	KindAssistant   Kind = "assistant"   // a turn's assistant text
	KindTool        Kind = "tool"        // one tool call: its input and result
	KindObservation Kind = "observation" // a claude-mem observation
	KindSummary     Kind = "summary"     // a claude-mem session summary
)

// Kinds are every kind, in the order results and messages list them.
var Kinds = []Kind{KindPrompt, KindAssistant, KindTool, KindObservation, KindSummary}

// ParseKind reads a kind name (either case; plural accepted).
func ParseKind(s string) (Kind, bool) {
	s = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "s")
	for _, k := range Kinds {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// Record is one searchable text of a session. Text is stripped of private
// blocks, valid UTF-8 without NUL bytes; low is Text folded.
type Record struct {
	Session string
	// ID is the bottle id that expands the record: "t17", "u3" (a turn's
	// user words, mid-turn ones too), "a3", "102401", "s12".
	ID   string
	Kind Kind
	// Label says more than Kind where it helps: the tool's name, "mid-turn",
	// "command", "bash", the sender of another party's message ("Teammate
	// team-lead"), an observation's type.
	Label string
	Time  time.Time
	Text  string
	// Paths are a tool call's path inputs (file_path, path, notebook_path),
	// stripped, for the file filter.
	Paths []string
	// seq orders the records of one session (file order, then stored order).
	seq    int
	low    string
	packed []byte // Text as the store keeps it
	// same marks a tool call the store holds as it is: one of the first
	// results of a transcript that only grew since the store read it
	// (transcriptRecordsFrom), handed over without its text.
	same bool
}

func newRecord(r Record) Record {
	return newRecordIn(r, nil)
}

// newRecordIn is newRecord with its folded text in sc's storage, when sc
// is set.
func newRecordIn(r Record, sc *scratch) Record {
	// Redacted before it is indexed: a credential is neither shown in a
	// snippet nor findable.
	r.Text = cleanText(privacy.Redact(r.Text))
	r.Label = privacy.Redact(r.Label)
	if sc != nil {
		r.low, sc.low = foldInto(sc.low, r.Text)
	} else {
		r.low = Fold(r.Text)
	}
	return r
}

// scratch is the storage a streamed read builds each tool record's text
// and folded text in: a record emitted with it is good only until emit
// returns (a scan of a transcript too large to keep keeps no record, and
// building each one anew allocated as much as the transcript's results).
type scratch struct{ text, low []byte }

// transcriptInfo is what a read of a transcript tells beside its records.
type transcriptInfo struct {
	prompts int
	cwd     string
	// results counts the tool calls handed over as their results arrived
	// (in file order); 0 after a resumed read, which does not know it.
	results int
	// resume is where a later read of the file, grown, can go on from
	// (nil: the reader offers none); resumed says the read went on from
	// one, and lines counts the lines it read.
	resume  *resumeState
	resumed bool
	from    int64 // the offset a resumed read started at
	lines   int
}

// textSeq is the order of a transcript's first record that is not a tool
// call: after the calls (ordered by their numbers), and independent of
// how many there are, so that a grown transcript's earlier records keep
// theirs.
const textSeq = 1 << 29

// transcriptRecords reads the transcript at path and hands each record of
// session id to emit, tool calls as their results arrive, the rest after.
func transcriptRecords(ctx context.Context, read session.Reader, path, id string, own *ownRules, emit func(Record)) (transcriptInfo, error) {
	return transcriptRecordsFrom(ctx, read, path, id, own, 0, nil, emit, nil, nil)
}

// streamRecords is transcriptRecords for a reader of records that keeps
// none: each is good only until emit returns. With keep, only the records
// whose seq it keeps are built and handed over.
func streamRecords(ctx context.Context, read session.Reader, path, id string, own *ownRules, keep func(seq int) bool, emit func(Record)) (transcriptInfo, error) {
	return transcriptRecordsFrom(ctx, read, path, id, own, 0, nil, emit, &scratch{}, keep)
}

// transcriptRecordsFrom is transcriptRecords of a transcript that only grew
// since a read whose info.results was known: the first known calls with
// a result are the same calls with the same results (the file's bytes up
// to there are the same), so they are handed over marked same, without
// their text — the work of a read is mostly the tool calls' records. With
// sc, tool records are built in its storage (see scratch). With keep,
// only the records whose seq it keeps are built and handed over (the
// others are numbered as ever).
//
// With from, a point an earlier read of the file handed back, the read
// goes on from there when the reader can: it hands over the records of
// the turns from the point on and of the calls still waiting there — what
// a whole read hands over besides those of the earlier turns and calls,
// which are the same — and info.resumed is set. A reader that cannot go on
// from it fails with session.ErrResume.
//
// A read that keeps no record (sc) asks for no point.
func transcriptRecordsFrom(ctx context.Context, read session.Reader, path, id string, own *ownRules, known int, from *resumeState, emit func(Record), sc *scratch, keep func(seq int) bool) (transcriptInfo, error) {
	seq, results := 0, 0
	var point *session.ResumePoint
	if from != nil {
		point, known = &from.ResumePoint, 0
	}
	t, err := read(ctx, path, &session.ReadOptions{
		CaptureTools: func(string) bool { return true },
		// Each call as its result arrives (one without at the end): its
		// input is the reader's, so the record copies what it keeps.
		Observe: func(i int, d *session.ToolDetail, result func() string) {
			if d.HasResult {
				if results++; results <= known {
					emit(Record{Session: id, ID: "t" + strconv.Itoa(i+1), Kind: KindTool, seq: i, same: true})
					return
				}
			}
			if keep != nil && !keep(i) {
				return
			}
			d.Result = result()
			emit(toolRecord(id, i, d, own, sc))
		},
		NoDigests:  true,
		FewResults: keep != nil,
		Resume:     sc == nil,
		From:       point,
	})
	if err != nil {
		return transcriptInfo{}, err
	}
	// A resumed read's turns and records go on from the point's.
	base := 0
	seq = textSeq
	if t.Resumed {
		base, seq, results = from.Turns, textSeq+from.recs, 0
	}
	// The records before the turn the read's point opens.
	var next *resumeState
	switch {
	case t.Resume == nil:
	case t.Resumed && t.Resume == point:
		next = from
	default:
		next = &resumeState{ResumePoint: *t.Resume, recs: -1}
	}
	turn := 0
	var reply strings.Builder
	var replyTime time.Time
	flush := func() {
		if reply.Len() > 0 {
			if keep == nil || keep(seq) {
				emit(newRecord(Record{Session: id, ID: "a" + strconv.Itoa(turn), Kind: KindAssistant, Time: replyTime,
					Text: reply.String(), seq: seq}))
			}
			seq++
			reply.Reset()
		}
	}
	user := func(e session.Event, label string) {
		text := privacy.Strip(e.Text)
		if strings.TrimSpace(text) == "" {
			return
		}
		if keep == nil || keep(seq) {
			emit(newRecord(Record{Session: id, ID: "u" + strconv.Itoa(turn), Kind: KindPrompt, Label: label, Time: e.Time,
				Text: text, seq: seq}))
		}
		seq++
	}
	for _, span := range session.Turns(t.Events) {
		flush()
		turn = base + span.N
		if next != nil && next.recs < 0 && turn == next.Turns+1 {
			next.recs = seq - textSeq
		}
		for _, e := range t.Events[span.Start:span.End] {
			switch e.Kind {
			case session.EvPrompt:
				user(e, privacy.Strip(e.From))
			case session.EvMidTurn:
				if e.From != "" {
					user(e, privacy.Strip(e.From))
					continue
				}
				user(e, "mid-turn")
			case session.EvAnswer:
				user(e, "answer")
			case session.EvCommand:
				user(e, "command")
			case session.EvBash:
				user(e, "bash")
			case session.EvAssistant:
				for _, b := range e.Blocks {
					b = privacy.Strip(b)
					if strings.TrimSpace(b) == "" {
						continue
					}
					if reply.Len() == 0 {
						replyTime = e.Time
					} else {
						reply.WriteString("\n\n")
					}
					reply.WriteString(b)
				}
			}
		}
	}
	flush()
	if next != nil && next.recs < 0 {
		next = nil // not a turn's start after all: no point
	}
	return transcriptInfo{prompts: t.Prompts, cwd: t.Cwd, results: results, resume: next, resumed: t.Resumed, from: from.offset(t.Resumed), lines: t.Diag.Lines}, nil
}

// pathKeys are the tool input fields that name a file.
var pathKeys = map[string]bool{"file_path": true, "path": true, "notebook_path": true}

// toolRecord is tool call i: its name, input values and result, stripped.
// The result of a call that read bottle's own records (own) is left out.
// With sc, the record is built in its storage.
func toolRecord(id string, i int, d *session.ToolDetail, own *ownRules, sc *scratch) Record {
	// The input's values and the result, at most: grown once.
	n := len(d.Name) + len(d.Input) + 1 + len(d.Result)
	var b []byte
	if sc != nil {
		b = slices.Grow(sc.text[:0], n)
	} else {
		b = make([]byte, 0, n)
	}
	b = append(b, privacy.Strip(d.Name)...)
	var paths []string
	walkJSON(d.Input, func(key, value string) {
		value = privacy.Strip(value)
		if strings.TrimSpace(value) == "" {
			return
		}
		if pathKeys[key] {
			paths = append(paths, value)
		}
		b = append(b, '\n')
		b = append(b, value...)
	})
	if d.HasResult && !own.reads(d.Name, paths) {
		if r := privacy.Strip(d.Result); strings.TrimSpace(r) != "" {
			b = append(b, '\n')
			b = append(b, r...)
		}
	}
	if sc != nil {
		sc.text = b
	}
	label := privacy.Strip(d.Name)
	if d.IsError {
		label += " (error)"
	}
	return newRecordIn(Record{Session: id, ID: "t" + strconv.Itoa(i+1), Kind: KindTool, Label: label, Time: d.Time,
		Text: unsafe.String(unsafe.SliceData(b), len(b)), Paths: paths, seq: i}, sc)
}

// walkJSON calls f with every string and number of a JSON text, and the
// key of the object field holding it ("" at the top; an array's items get
// the array's key). The transcript reader hands over validated inputs; on
// anything else it yields what it can and stops at the end of the text.
func walkJSON(raw []byte, f func(key, value string)) {
	var keys []string
	key := ""
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			body := raw[i+1 : min(j, len(raw))]
			k := j + 1
			for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
				k++
			}
			if k < len(raw) && raw[k] == ':' {
				key, i = jsonscan.Decode(body), k
				continue
			}
			f(key, jsonscan.Decode(body))
			i = j
		case c == '{' || c == '[':
			keys = append(keys, key)
		case c == '}' || c == ']':
			if n := len(keys); n > 0 {
				key, keys = keys[n-1], keys[:n-1]
			}
		case c == '-' || '0' <= c && c <= '9':
			j := i + 1
			for j < len(raw) && (raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-' || '0' <= raw[j] && raw[j] <= '9') {
				j++
			}
			f(key, string(raw[i:j]))
			i = j - 1
		}
	}
}

// storedRecords are the records of a claude-mem session: its observations
// and summaries, and its prompts when prompts is set (a session without a
// transcript).
func storedRecords(s *claudemem.Session, prompts bool, emit func(Record)) {
	id := s.ContentSessionID
	seq := 1 << 30 // after the transcript's records
	if prompts {
		seen := map[int]bool{}
		n := 0
		for _, p := range s.Prompts {
			if seen[p.Number] {
				continue
			}
			seen[p.Number] = true
			n++
			text := privacy.Strip(p.Text)
			if strings.TrimSpace(text) == "" {
				continue
			}
			emit(newRecord(Record{Session: id, ID: "u" + strconv.Itoa(n), Kind: KindPrompt, Label: "stored",
				Time: p.Created, Text: text, seq: seq}))
			seq++
		}
	}
	for _, o := range s.Observations {
		var b strings.Builder
		add := func(v string) {
			if v = strings.TrimSpace(privacy.Strip(v)); v != "" {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(v)
			}
		}
		add(o.Title)
		add(o.Subtitle)
		add(o.Narrative)
		add(o.Text)
		for _, l := range [][]string{o.Facts, o.Concepts, o.FilesRead, o.FilesModified} {
			for _, v := range l {
				add(privacy.StripValue(v))
			}
		}
		if b.Len() == 0 {
			continue
		}
		emit(newRecord(Record{Session: id, ID: strconv.FormatInt(o.ID, 10), Kind: KindObservation,
			Label: strings.TrimSpace(privacy.Strip(o.Type)), Time: o.Created, Text: b.String(), seq: seq}))
		seq++
	}
	for _, sm := range s.Summaries {
		var b strings.Builder
		for _, f := range []string{sm.Request, sm.Investigated, sm.Learned, sm.Completed, sm.NextSteps, sm.Notes} {
			if v := strings.TrimSpace(privacy.Strip(f)); v != "" {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(v)
			}
		}
		if b.Len() == 0 {
			continue
		}
		emit(newRecord(Record{Session: id, ID: "s" + strconv.FormatInt(sm.ID, 10), Kind: KindSummary,
			Time: sm.Created, Text: b.String(), seq: seq}))
		seq++
	}
}
