package privacy

import (
	"slices"
	"strings"
	"testing"
)

// Fake credentials of each shape, built so that no real key is spelt in the
// repository: the bodies are cut from one made-up random-looking run.
const body = "Zq8Lw2Xr5Tn7Vb3Mk9Hd4Jf6Gs1Pc0YaUe"

var (
	fakeAWS       = "AKIA" + "QWERTYUIOP234567"
	fakeGitHub    = "ghp_" + body + "x1"
	fakeGitHubPAT = "github_pat_" + body[:22] + "_" + body + body[:25]
	fakeOpenAI    = "sk-proj-" + body[:10] + "_-" + body[10:]
	fakeOpenAIOld = "sk-" + body + body[:14]
	fakeAnthropic = "sk-ant-api03-" + body + "-" + body + "_" + body[:20] + "AA"
	fakeSlack     = "xoxb-" + "1234567890-0987654321-" + body[:24]
	fakeStripe    = "sk_live_" + body[:24]
	fakeStripeRK  = "rk_live_" + body[6:30]
	fakeGoogle    = "AIza" + body[:20] + "_-" + body[:13]
	fakeJWT       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	fakeNPM       = "npm_" + body + "k2"
	fakePEM       = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + strings.Repeat("IBAAKCAQEA", 8) + "\n-----END RSA PRIVATE KEY-----"
	fakeBearer    = "d8f7a6e5b4c3" + "Xy.Zw-_9"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"aws", "key " + fakeAWS + " here", "key [redacted: aws-access-key] here"},
		{"aws in quotes", `"` + fakeAWS + `"`, `"[redacted: aws-access-key]"`},
		{"github", "token=" + fakeGitHub, "token=[redacted: github-token]"},
		{"github fine-grained", fakeGitHubPAT + ".", "[redacted: github-token]."},
		{"openai project", "OPENAI_API_KEY=" + fakeOpenAI, "OPENAI_API_KEY=[redacted: openai-key]"},
		{"openai legacy", "(" + fakeOpenAIOld + ")", "([redacted: openai-key])"},
		{"anthropic", "x-api-key: " + fakeAnthropic, "x-api-key: [redacted: anthropic-key]"},
		{"slack", "hook " + fakeSlack + "\n", "hook [redacted: slack-token]\n"},
		{"slack legacy", "xoxo-" + "1234567890-0987654321-1122334455-" + "db60f415cd2dbe18", "[redacted: slack-token]"},
		{"stripe", fakeStripe + " and " + fakeStripeRK, "[redacted: stripe-key] and [redacted: stripe-key]"},
		{"google", "?key=" + fakeGoogle + "&x", "?key=[redacted: google-api-key]&x"},
		{"jwt", "cookie: " + fakeJWT + ";", "cookie: [redacted: jwt];"},
		{"npm", "//registry/:_authToken=" + fakeNPM, "//registry/:_authToken=[redacted: npm-token]"},
		{"private key", "before\n" + fakePEM + "\nafter", "before\n[redacted: private-key]\nafter"},
		{"private key cut", "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "before\n[redacted: private-key]"},
		{"bearer", "Authorization: Bearer " + fakeBearer, "Authorization: Bearer [redacted: bearer-token]"},
		{"bearer lower case", `-H "authorization: bearer ` + fakeBearer + `=="`, `-H "authorization: bearer [redacted: bearer-token]"`},
		{"url password", "git clone https://alice:hunter2secret@github.com/o/r.git", "git clone https://alice:[redacted]@github.com/o/r.git"},
		{"url password db", "postgres://app:p%40ss@db:5432/x", "postgres://app:[redacted]@db:5432/x"},
		{"two in a row", fakeGitHub + " " + fakeNPM, "[redacted: github-token] [redacted: npm-token]"},

		{"plain prose", "the skeleton ghost ate eyes and a Bearer", "the skeleton ghost ate eyes and a Bearer"},
		{"words with the prefixes", "task-list sk-learn ghp_short xoxb-1 npm_install AKIAshort", "task-list sk-learn ghp_short xoxb-1 npm_install AKIAshort"},
		{"prefix inside a word", "mask" + fakeGitHub[1:] + " x" + fakeAWS, "mask" + fakeGitHub[1:] + " x" + fakeAWS},
		{"aws example key", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"masked sample", "like `ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx` or sk-" + strings.Repeat("0", 40), "like `ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx` or sk-" + strings.Repeat("0", 40)},
		{"aws key in a longer word", fakeAWS + "Z", fakeAWS + "Z"},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{"bearer placeholder", "Authorization: Bearer $GITHUB_TOKEN", "Authorization: Bearer $GITHUB_TOKEN"},
		{"bearer word", "Bearer authenticationrequiredhere", "Bearer authenticationrequiredhere"},
		{"url without password", "https://alice@github.com/o/r and ssh://git@host:22/x", "https://alice@github.com/o/r and ssh://git@host:22/x"},
		{"url placeholder password", "postgres://u:${PGPASSWORD}@h/db and mysql://u:<password>@h and http://u:***@h", "postgres://u:${PGPASSWORD}@h/db and mysql://u:<password>@h and http://u:***@h"},
		{"url port then at in path", "http://host:8080/a@b", "http://host:8080/a@b"},
		{"scp-like address", "git@github.com:owner/repo.git", "git@github.com:owner/repo.git"},
		{"jwt-like word", "eyes.eyeball.eyebrow", "eyes.eyeball.eyebrow"},
		{"assignment left alone", "API_KEY=abcdefgh12345678", "API_KEY=abcdefgh12345678"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactAssignments(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"env line", "API_KEY=abcdefgh12345678", "API_KEY=[redacted: secret]"},
		{"password any shape", "DB_PASSWORD=hunter22", "DB_PASSWORD=[redacted: secret]"},
		{"export quoted", `export STRIPE_SECRET="whsec_abc"`, `export STRIPE_SECRET="[redacted: secret]"`},
		{"json key", `{"password": "correct horse", "user": "bob"}`, `{"password": "[redacted: secret]", "user": "bob"}`},
		{"yaml", "client_secret: s3cr3t-value", "client_secret: [redacted: secret]"},
		{"camel case", "githubToken = 'abc123def456ghi'", "githubToken = '[redacted: secret]'"},
		{"make", "TOKEN := 0123456789abcdef", "TOKEN := [redacted: secret]"},
		{"shapes still", "note " + fakeGitHub, "note [redacted: github-token]"},

		{"key-like name, ordinary value", "sortKey=name primaryKey: id nextToken=abc", "sortKey=name primaryKey: id nextToken=abc"},
		{"not a secret name", "MONKEY=banana12345678 BYPASS=yes keyboard=qwertyuiop12", "MONKEY=banana12345678 BYPASS=yes keyboard=qwertyuiop12"},
		{"reference", "API_KEY=$API_KEY PASSWORD=${PW} SECRET=<secret>", "API_KEY=$API_KEY PASSWORD=${PW} SECRET=<secret>"},
		{"boolean and null", "password: null, secret=true", "password: null, secret=true"},
		{"name only", "names: GITHUB_TOKEN, STRIPE_KEY", "names: GITHUB_TOKEN, STRIPE_KEY"},
		{"comparison", "if password == other", "if password == other"},
		{"code", "token = Base.url_encode64(bytes1234567), padding: false)", "token = Base.url_encode64(bytes1234567), padding: false)"},
		{"test output and PWD", "--- PASS: TestAutoCommit (0.03s) PWD=/home/me/src", "--- PASS: TestAutoCommit (0.03s) PWD=/home/me/src"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactAssignments(tt.in); got != tt.want {
				t.Errorf("RedactAssignments(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactNoMatchSameString(t *testing.T) {
	in := strings.Repeat("a plain line with sk- and gh and eyes: http://x:1/ ", 20)
	if got := Redact(in); got != in {
		t.Fatalf("Redact changed a text without credentials: %q", got)
	}
	if n := testing.AllocsPerRun(10, func() { Redact(in) }); n != 0 {
		t.Errorf("Redact of a text without credentials allocated %v times, want 0", n)
	}
}

func TestFind(t *testing.T) {
	in := "a " + fakeAWS + " b https://u:pw12@h c"
	got := Find(in, false)
	want := []Match{
		{2, 2 + len(fakeAWS), KindAWS},
		{strings.Index(in, "pw12"), strings.Index(in, "@h"), KindURLPassword},
	}
	if len(got) != len(want) {
		t.Fatalf("Find(%q) = %v, want %v", in, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Find(%q)[%d] = %v, want %v", in, i, got[i], want[i])
		}
	}
}

// fakes are the credentials FuzzRedact plants, one per shape.
var fakes = []string{fakeAWS, fakeGitHub, fakeGitHubPAT, fakeOpenAI, fakeOpenAIOld, fakeAnthropic, fakeSlack,
	fakeStripe, fakeStripeRK, fakeGoogle, fakeJWT, fakeNPM, fakePEM, "Bearer " + fakeBearer}

// FuzzRedact holds three properties over any text: the output has nothing
// left to redact, a credential planted between spaces never survives, and a
// text without any byte that opens a shape comes back as it was.
func FuzzRedact(f *testing.F) {
	f.Add("plain", "text", uint8(0), false)
	f.Add("https://u:", "@h", uint8(3), true)
	f.Add("Bearer", "x", uint8(13), false)
	f.Add("-----BEGIN PRIVATE KEY", "", uint8(12), true)
	f.Add(`"password":`, `"`, uint8(1), true)
	f.Fuzz(func(t *testing.T, before, after string, which uint8, assignments bool) {
		fake := fakes[int(which)%len(fakes)]
		in := before + " " + fake + " " + after
		out := redact(in, assignments)
		for _, s := range []string{in, before, after} {
			if got, want := Find(s, assignments), findRef(s, assignments); !slices.Equal(got, want) {
				t.Errorf("Find(%q) = %v, the byte-by-byte scan finds %v", s, got, want)
			}
		}
		if ms := Find(out, assignments); len(ms) > 0 {
			t.Errorf("redact(%q) = %q, which still holds %q", in, out, out[ms[0].Start:ms[0].End])
		}
		secret := fake
		if strings.HasPrefix(fake, "Bearer ") {
			secret = fakeBearer
		}
		if strings.Contains(out, secret) && !strings.Contains(before+after, secret) {
			t.Errorf("redact(%q) = %q, which keeps the planted credential", in, out)
		}
		plain := true
		for i := 0; i < len(before); i++ {
			if opens[before[i]] {
				plain = false
				break
			}
		}
		if plain && redact(before, assignments) != before {
			t.Errorf("redact(%q) changed a text with no opening byte", before)
		}
	})
}

// BenchmarkRedact is the cost of the scan over text without credentials, the
// common case of every line bottle writes.
func BenchmarkRedact(b *testing.B) {
	line := `func (s *Server) handle(ctx context.Context, req *Request) error { // see https://example.com/docs?x=1 and the session's notes: ` +
		`"status": "ok", "bearer": false, the task-list and skeleton keys were read from settings.json at 12:04` + "\n"
	text := strings.Repeat(line, 256)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Redact(text)
	}
}

// findRef is Find with the plain scan next replaced: every byte that opens
// a shape, at a word boundary where it needs one, is tried.
func findRef(s string, assignments bool) []Match {
	var ms []Match
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !opens[c] || midWord[c] && i > 0 && isWord(s[i-1]) {
			continue
		}
		if m, ok := matchAt(s, i, assignments); ok {
			ms = append(ms, m)
			i = m.End - 1
		}
	}
	return ms
}

// TestSecondsTable holds the literal table of second bytes to the shapes'
// two-byte openings it stands for.
func TestSecondsTable(t *testing.T) {
	var want [256][256]bool
	for _, p := range []string{"AK", "AS", "AB", "AC", "AI", "gh", "gi", "sk", "rk", "xo", "xa", "np", "ey", "Be", "BE", "be", "bE", "--"} {
		want[p[0]][p[1]] = true
	}
	for a := range 256 {
		for b := range 256 {
			if got := seconds[a][b]; got != want[a][b] {
				t.Errorf("seconds[%q][%q] = %v, want %v", rune(a), rune(b), got, want[a][b])
			}
		}
	}
}

// TestFindEveryOffset: each shape found wherever it starts and ends
// against the eight-byte groups the scan looks pairs up in, and in texts
// that end inside a group.
func TestFindEveryOffset(t *testing.T) {
	fillers := []string{"x", " ", "ab cd", "be-gi:sk"}
	for _, fake := range fakes {
		for _, fill := range fillers {
			for k := range 18 {
				lead := strings.Repeat(fill, k)[:k]
				for _, s := range []string{lead + " " + fake, lead + " " + fake + " " + lead, fake + lead} {
					for _, assignments := range []bool{false, true} {
						if got, want := Find(s, assignments), findRef(s, assignments); !slices.Equal(got, want) {
							t.Fatalf("Find(%q, %v) = %v, the byte-by-byte scan finds %v", s, assignments, got, want)
						}
					}
				}
			}
		}
	}
}
