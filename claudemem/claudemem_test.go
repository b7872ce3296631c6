package claudemem

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSession(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	tests := []struct {
		name string
		id   string
		want *Session
	}{
		{
			name: "Full",
			id:   "sess-a",
			want: &Session{
				ContentSessionID: "sess-a", MemorySessionID: "mem-a", Project: "proj", Platform: "claude",
				UserPrompt: "<private>pw hunter2</private>", Status: "completed", Started: at(0),
				Prompts: []Prompt{
					{Number: 1, Text: "first", Created: at(1)},
					{Number: 1, Text: "first again", Created: at(3)},
					{Number: 2, Text: "second", Created: at(2)},
				},
				Observations: []Observation{
					{ID: 2, Type: "change", Title: "Early", Subtitle: "sub", Facts: []string{"just a string"},
						FilesRead: []string{"b.go"}, Created: at(10), Project: "proj"},
					{ID: 1, PromptNumber: 1, Type: "discovery", Title: "Read a.go", Narrative: "Read it; found X",
						Facts: []string{"f1", "f2"}, Concepts: []string{"how-it-works"},
						FilesModified: []string{"a.go", "3"}, Created: at(30), Project: "proj"},
					{ID: 3, PromptNumber: 2, Type: "bugfix", Title: "Same time", Narrative: "n3", Text: "legacy text",
						Facts: []string{`{"k":1}`}, Concepts: []string{"gotcha"}, Created: at(30), Project: "proj"},
				},
				Summaries: []Summary{
					{ID: 2, Notes: "private turn", Created: at(50)},
					{ID: 1, PromptNumber: 1, Request: "r1", Investigated: "i1", Learned: "l1", Completed: "c1",
						NextSteps: "n1", Created: at(60)},
				},
			},
		},
		{
			name: "ObserverNeverAnswered",
			id:   "sess-b",
			want: &Session{
				ContentSessionID: "sess-b", Project: "proj", Platform: "claude", UserPrompt: "only prompt",
				Status: "active", Started: at(3600),
				Prompts: []Prompt{{Number: 1, Text: "only prompt", Created: at(3601)}},
			},
		},
		{
			name: "ClaudeRowWinsOverNewerCodexRow",
			id:   "sess-multi",
			want: &Session{
				ContentSessionID: "sess-multi", MemorySessionID: "mem-multi", Project: "proj", Platform: "claude",
				UserPrompt: "claude run", Status: "completed", Started: at(7200),
				Prompts: []Prompt{{Number: 1, Text: "claude run", Created: at(7201)}},
				Observations: []Observation{{ID: 7, PromptNumber: 1, Type: "discovery", Title: "Multi",
					Created: at(7300), Project: "proj"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Session(t.Context(), tt.id)
			if err != nil {
				t.Fatalf("Session(%q): %v", tt.id, err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreMemory); diff != "" {
				t.Errorf("Session(%q) mismatch (-want +got):\n%s", tt.id, diff)
			}
		})
	}
}

func TestSessionNotFound(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	tests := []struct{ name, id string }{
		{"Unknown", "no-such-session"},
		{"Empty", ""},
		{"StubParent", "mem-stub"},           // content id = memory id
		{"ObserverProject", "sess-observer"}, // claude-mem's internal project
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Session(t.Context(), tt.id)
			if !errors.Is(err, ErrNoSession) {
				t.Errorf("Session(%q) = %v, %v; want ErrNoSession", tt.id, got, err)
			}
		})
	}
}

func TestObservations(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	tests := []struct {
		name string
		ids  []int64
		want []int64
	}{
		{"InputOrder", []int64{3, 1, 2}, []int64{3, 1, 2}},
		{"UnknownAbsentDuplicatesOnce", []int64{999, 4, 4, -1, 6}, []int64{4, 6}},
		{"None", nil, nil},
		{"AllUnknown", []int64{998, 999}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, err := db.Observations(t.Context(), tt.ids)
			if err != nil {
				t.Fatalf("Observations(%v): %v", tt.ids, err)
			}
			var got []int64
			for _, o := range obs {
				got = append(got, o.ID)
			}
			if diff := cmp.Diff(tt.want, got, ignoreMemory); diff != "" {
				t.Errorf("Observations(%v) ids mismatch (-want +got):\n%s", tt.ids, diff)
			}
		})
	}
	obs, err := db.Observations(t.Context(), []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	want := []Observation{{ID: 1, PromptNumber: 1, Type: "discovery", Title: "Read a.go", Narrative: "Read it; found X",
		Facts: []string{"f1", "f2"}, Concepts: []string{"how-it-works"}, FilesModified: []string{"a.go", "3"},
		Created: at(30), Project: "proj"}}
	if diff := cmp.Diff(want, obs, ignoreMemory); diff != "" {
		t.Errorf("Observations([1]) mismatch (-want +got):\n%s", diff)
	}
}

func TestSessions(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	multi := SessionInfo{ContentSessionID: "sess-multi", Project: "proj", Platform: "claude", FirstPrompt: "claude run",
		Started: at(7200), LastActivity: at(7600), Prompts: 1, Observations: 1}
	b := SessionInfo{ContentSessionID: "sess-b", Project: "proj", Platform: "claude", FirstPrompt: "only prompt",
		Started: at(3600), LastActivity: at(3601), Prompts: 1}
	a := SessionInfo{ContentSessionID: "sess-a", Project: "proj", Platform: "claude", FirstPrompt: "first",
		Started: at(0), LastActivity: at(60), Prompts: 3, Observations: 3, Summaries: 2}
	merged := SessionInfo{ContentSessionID: "sess-merged", Project: "proj/wt", Platform: "claude", FirstPrompt: "worktree",
		Started: at(-168400), LastActivity: at(-168399), Observations: 1}
	other := SessionInfo{ContentSessionID: "sess-other", Project: "other", Platform: "claude",
		Started: at(-268400), LastActivity: at(-268399), Summaries: 1}
	tests := []struct {
		project string
		want    []SessionInfo
	}{
		{"", []SessionInfo{multi, b, a, merged, other}},
		{"proj", []SessionInfo{multi, b, a, merged}},
		{"proj/wt", []SessionInfo{merged}},
		{"other", []SessionInfo{other}},
		{"observer-sessions", nil},
		{"nope", nil},
	}
	for _, tt := range tests {
		t.Run("project="+tt.project, func(t *testing.T) {
			got, err := db.Sessions(t.Context(), tt.project)
			if err != nil {
				t.Fatalf("Sessions(%q): %v", tt.project, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Sessions(%q) mismatch (-want +got):\n%s", tt.project, diff)
			}
		})
	}
}

func TestOldSchemas(t *testing.T) {
	t.Run("V10", func(t *testing.T) {
		db := mustOpen(t, mustCreateDB(t, filepath.Join(t.TempDir(), "v10.db"), schemaV10, rowsV10, "wal"))
		got, err := db.Session(t.Context(), "sess-a")
		if err != nil {
			t.Fatal(err)
		}
		want := &Session{
			ContentSessionID: "sess-a", MemorySessionID: "mem-a", Project: "proj", Platform: "claude",
			UserPrompt: "first", Status: "active", Started: at(0),
			Prompts: []Prompt{{Number: 1, Text: "first", Created: at(1)}, {Number: 2, Text: "second", Created: at(2)}},
			Observations: []Observation{
				{ID: 2, PromptNumber: 2, Type: "change", Title: "Edit a.go", Narrative: "n", Facts: []string{"not json"},
					Created: at(20), Project: "proj"},
				{ID: 1, PromptNumber: 1, Type: "discovery", Title: "Read a.go", Narrative: "n", Facts: []string{"f"},
					Created: at(30), Project: "proj"},
			},
			Summaries: []Summary{{ID: 1, PromptNumber: 1, Request: "r", Created: at(60)}},
		}
		if diff := cmp.Diff(want, got, ignoreMemory); diff != "" {
			t.Errorf("Session mismatch (-want +got):\n%s", diff)
		}
		list, err := db.Sessions(t.Context(), "proj")
		if err != nil {
			t.Fatal(err)
		}
		// sess-b has started_at_epoch 0: its ISO started_at is used.
		wantList := []SessionInfo{
			{ContentSessionID: "sess-b", Project: "proj", Platform: "claude", FirstPrompt: "b",
				Started: at(3600), LastActivity: at(3601), Prompts: 1},
			{ContentSessionID: "sess-a", Project: "proj", Platform: "claude", FirstPrompt: "first",
				Started: at(0), LastActivity: at(60), Prompts: 2, Observations: 2, Summaries: 1},
		}
		if diff := cmp.Diff(wantList, list); diff != "" {
			t.Errorf("Sessions mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("Ancient", func(t *testing.T) {
		db := mustOpen(t, mustCreateDB(t, filepath.Join(t.TempDir(), "old.db"), schemaAncient, rowsAncient, "delete"))
		got, err := db.Session(t.Context(), "sess-a")
		if err != nil {
			t.Fatal(err)
		}
		want := &Session{
			ContentSessionID: "sess-a", MemorySessionID: "mem-a", Project: "proj", Platform: "claude",
			UserPrompt: "first", Status: "completed", Started: at(0), // epoch stored in seconds
			Observations: []Observation{{ID: 1, Type: "discovery", Text: "did a thing", Created: at(30), Project: "proj"}},
			Summaries:    []Summary{{ID: 1, Request: "r", Created: at(60)}},
		}
		if diff := cmp.Diff(want, got, ignoreMemory); diff != "" {
			t.Errorf("Session mismatch (-want +got):\n%s", diff)
		}
		if notes := strings.Join(db.Notes(), "\n"); !strings.Contains(notes, "user_prompts") {
			t.Errorf("Notes() = %q, want a note about the missing user_prompts table", notes)
		}
		list, err := db.Sessions(t.Context(), "")
		if err != nil || len(list) != 1 || list[0].FirstPrompt != "first" || list[0].Observations != 1 {
			t.Errorf("Sessions() = %+v, %v; want sess-a with FirstPrompt from sdk_sessions.user_prompt", list, err)
		}
		if obs, err := db.Observations(t.Context(), []int64{1}); err != nil || len(obs) != 1 {
			t.Errorf("Observations([1]) = %v, %v; want one", obs, err)
		}
	})
}

// TestQueryPlans pins index use: no query may scan observations,
// session_summaries or user_prompts, whose size grows with history; only the
// listing scans sdk_sessions (one row per session).
func TestQueryPlans(t *testing.T) {
	fixtures := map[string]string{
		"Current": mustCurrent(t),
		"V10":     mustCreateDB(t, filepath.Join(t.TempDir(), "v10.db"), schemaV10, rowsV10, "wal"),
		"Ancient": mustCreateDB(t, filepath.Join(t.TempDir(), "old.db"), schemaAncient, rowsAncient, "delete"),
	}
	scan := regexp.MustCompile(`\bSCAN (o|m|p|observations|session_summaries|user_prompts)\b`)
	for name, path := range fixtures {
		db := mustOpen(t, path)
		q := db.q
		plans := map[string]struct {
			sql  string
			args []any
		}{
			"session":      {q.session, []any{"x"}},
			"prompts":      {q.prompts, []any{int64(1)}},
			"observations": {q.observations, []any{"x"}},
			"summaries":    {q.summaries, []any{"x"}},
			"obsByID":      {q.obsByID, []any{"[1,2]"}},
			"listAll":      {q.listAll, nil},
			"listProject":  {q.listProject, []any{"proj"}},
		}
		for qname, p := range plans {
			if p.sql == "" {
				continue
			}
			t.Run(name+"/"+qname, func(t *testing.T) {
				plan := explain(t, db.db, p.sql, p.args...)
				if scan.MatchString(plan) {
					t.Errorf("plan scans a history table:\n%s\nSQL: %s", plan, p.sql)
				}
				if qname == "session" && !strings.Contains(plan, "SEARCH s USING INDEX") {
					t.Errorf("session lookup does not use an index:\n%s", plan)
				}
				if qname == "obsByID" && !strings.Contains(plan, "PRIMARY KEY") {
					t.Errorf("observations by id do not use the primary key:\n%s", plan)
				}
			})
		}
	}
}

func explain(tb testing.TB, db *sql.DB, query string, args ...any) string {
	tb.Helper()
	rows, err := db.QueryContext(tb.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		tb.Fatalf("explain: %v\n%s", err, query)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			tb.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	random := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// A valid header with garbage after it.
	headerGarbage := append([]byte("SQLite format 3\x00"), random[16:]...)
	plain := filepath.Join(dir, "plain.db")
	mustCreateDB(t, plain, "CREATE TABLE other (x)", "SELECT 1", "delete")

	tests := []struct {
		name    string
		path    string
		is      error  // errors.Is target, if any
		wantSub string // substring of the message
	}{
		{"Missing", filepath.Join(dir, "nope.db"), fs.ErrNotExist, "open claude-mem db"},
		{"Directory", dir, nil, "is a directory"},
		{"RandomBytes", write("random.db", random), nil, "not an SQLite database"},
		{"HeaderThenGarbage", write("garbage.db", headerGarbage), nil, "open claude-mem db"},
		{"EmptyFile", write("empty.db", nil), nil, "not a claude-mem database"},
		{"OtherSQLiteDB", plain, nil, "not a claude-mem database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(t.Context(), tt.path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) = nil error, want one", tt.path)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Open(%q) = %v, want errors.Is %v", tt.path, err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.wantSub) {
				t.Errorf("Open(%q) = %q, want it to contain %q", tt.path, err, tt.wantSub)
			}
		})
	}
}

// TestOpenCorruptPages: a database whose schema is intact but whose
// observations pages are garbage opens, and then reads fail with an error,
// not a panic or a silently short session.
func TestOpenCorruptPages(t *testing.T) {
	path := mustCreateDB(t, filepath.Join(t.TempDir(), "c.db"), schemaCurrent, rowsCurrent, "delete")
	var root, pageSize int64
	w := mustWriter(t, path)
	if err := w.QueryRowContext(t.Context(), "SELECT rootpage FROM sqlite_master WHERE name = 'observations'").Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := w.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, pageSize)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	if _, err := f.WriteAt(garbage, (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, path)
	_, err = db.Session(t.Context(), "sess-a")
	if err == nil || errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Session on a corrupt observations page = %v, want a corrupt-database error", err)
	}
	if _, err := db.Observations(t.Context(), []int64{1}); err == nil {
		t.Errorf("Observations on a corrupt observations page = nil error, want one")
	}
}

func TestOpenPathEscaping(t *testing.T) {
	for _, name := range []string{"a b", "q?x", "h#x", "p%20x", "ü ñ", "amp&x=y"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := mustCreateDB(t, filepath.Join(dir, name+".db"), schemaCurrent, rowsCurrent, "wal")
			db := mustOpen(t, path)
			if _, err := db.Session(t.Context(), "sess-a"); err != nil {
				t.Fatalf("Session: %v", err)
			}
			if _, err := os.Stat(filepath.Join(t.TempDir(), "q")); err == nil {
				t.Errorf("a file was created at a truncated path")
			}
		})
	}
	t.Run("Relative", func(t *testing.T) {
		dir := t.TempDir()
		mustCreateDB(t, filepath.Join(dir, "rel.db"), schemaCurrent, rowsCurrent, "wal")
		t.Chdir(dir)
		db := mustOpen(t, "rel.db")
		if _, err := db.Session(t.Context(), "sess-a"); err != nil {
			t.Fatalf("Session: %v", err)
		}
	})
}

func TestFileURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/.claude-mem/claude-mem.db", "file:///home/u/.claude-mem/claude-mem.db"},
		{"/tmp/a b/c?d#e%f.db", "file:///tmp/a%20b/c%3Fd%23e%25f.db"},
		{"/x/ü.db", "file:///x/%C3%BC.db"},
		{"C:/Users/Jo Do/.claude-mem/claude-mem.db", "file:///C:/Users/Jo%20Do/.claude-mem/claude-mem.db"},
		{"//server/share/claude-mem.db", "file:////server/share/claude-mem.db"},
	}
	for _, tt := range tests {
		if got := fileURI(tt.in); got != tt.want {
			t.Errorf("fileURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"null", nil},
		{"[]", nil},
		{`["a","b"]`, []string{"a", "b"}},
		{`[" a ", "", null, 3, {"k":1}]`, []string{"a", "3", `{"k":1}`}},
		{`"one"`, []string{"one"}},
		{`""`, nil},
		{"plain text", []string{"plain text"}},
		{`["unterminated`, []string{`["unterminated`}},
		{"{\"k\":1}", []string{`{"k":1}`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, decodeList(tt.in)); diff != "" {
			t.Errorf("decodeList(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestStamp(t *testing.T) {
	tests := []struct {
		name  string
		epoch sql.NullInt64
		iso   sql.NullString
		want  time.Time
	}{
		{"Millis", sql.NullInt64{Int64: t0, Valid: true}, sql.NullString{}, at(0)},
		{"Seconds", sql.NullInt64{Int64: t0 / 1000, Valid: true}, sql.NullString{}, at(0)},
		{"ISOFallback", sql.NullInt64{}, sql.NullString{String: "2026-01-26T23:00:00.000Z", Valid: true}, at(0)},
		{"ZeroEpochISO", sql.NullInt64{Valid: true}, sql.NullString{String: "2026-01-26 23:00:00", Valid: true}, at(0)},
		{"Nothing", sql.NullInt64{}, sql.NullString{String: "garbage", Valid: true}, time.Time{}},
	}
	for _, tt := range tests {
		if got := stamp(tt.epoch, tt.iso); !got.Equal(tt.want) {
			t.Errorf("%s: stamp(%v, %v) = %v, want %v", tt.name, tt.epoch, tt.iso, got, tt.want)
		}
	}
}

// TestConcurrentUse runs the readers from many goroutines (go test -race).
func TestConcurrentUse(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				s, err := db.Session(ctx, "sess-a")
				if err == nil && len(s.Observations) != 3 {
					err = errors.New("wrong observation count")
				}
				if err == nil {
					_, err = db.Sessions(ctx, "")
				}
				if err == nil {
					_, err = db.Observations(ctx, []int64{1, 2})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestContextCanceled(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := db.Session(ctx, "sess-a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Session(canceled ctx) = %v, want context.Canceled", err)
	}
	if _, err := Open(ctx, mustCurrent(t)); err == nil {
		t.Errorf("Open(canceled ctx) = nil error, want one")
	}
}

// ignoreMemory leaves Observation.MemorySessionID to TestMemorySessionID.
var ignoreMemory = cmpopts.IgnoreFields(Observation{}, "MemorySessionID")

func TestMemorySessionID(t *testing.T) {
	db := mustOpen(t, mustCurrent(t))
	got, err := db.MemorySessionID(t.Context(), "sess-a")
	if err != nil || got != "mem-a" {
		t.Errorf("MemorySessionID(sess-a) = %q, %v; want mem-a", got, err)
	}
	if got, err := db.MemorySessionID(t.Context(), "sess-b"); err != nil || got != "" {
		t.Errorf("MemorySessionID(sess-b) = %q, %v; want \"\" (observer never answered)", got, err)
	}
	if _, err := db.MemorySessionID(t.Context(), "nope"); !errors.Is(err, ErrNoSession) {
		t.Errorf("MemorySessionID(nope) error = %v, want ErrNoSession", err)
	}
	obs, err := db.Observations(t.Context(), []int64{1, 7})
	if err != nil || len(obs) != 2 || obs[0].MemorySessionID != "mem-a" || obs[1].MemorySessionID != "mem-multi" {
		t.Errorf("Observations memory ids = %+v, %v", obs, err)
	}
}

// FuzzDecodeList: the fast path for plain string arrays decodes as
// encoding/json does, whatever the column holds.
func FuzzDecodeList(f *testing.F) {
	for _, s := range []string{`["a.go","b.go"]`, `[ "x" , "y" ]`, `["",  " z "]`, `["a",]`, `["a\"b"]`, `[1,"a"]`,
		`["\u00e9"]`, "[\"a\tb\"]", `["é"]`, "[\"\xff\"]", `[]`, `["a"] `, `"one"`, `not json`, `[""]`, `[ ]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := decodeList(s)
		want := []string(nil)
		if ts := strings.TrimSpace(s); ts != "" && ts != "null" && ts != "[]" {
			want = decodeListJSON(ts)
		}
		if !slices.Equal(got, want) {
			t.Errorf("decodeList(%q) = %q, encoding/json gives %q", s, got, want)
		}
	})
}
