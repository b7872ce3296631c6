// Package gitleakscheck holds the differential test of bottle's credential
// redactor (bottle/privacy) against gitleaks' rules, the well-kept detector
// it follows. It is a module of its own so that gitleaks and its
// dependencies stay out of bottle's go.mod: gitleaks is a test oracle here,
// never a dependency of the binaries. Run it with
//
//	cd internal/gitleakscheck && go test -count=1 .
package gitleakscheck

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"

	"bottle/internal/measure/corpustest"
	"bottle/privacy"
)

// rules are gitleaks' high-confidence rules for the shapes bottle redacts,
// and the kind bottle gives each.
var rules = map[string]string{
	"aws-access-token":             privacy.KindAWS,
	"github-pat":                   privacy.KindGitHub,
	"github-fine-grained-pat":      privacy.KindGitHub,
	"github-oauth":                 privacy.KindGitHub,
	"github-app-token":             privacy.KindGitHub,
	"github-refresh-token":         privacy.KindGitHub,
	"openai-api-key":               privacy.KindOpenAI,
	"anthropic-api-key":            privacy.KindAnthropic,
	"anthropic-admin-api-key":      privacy.KindAnthropic,
	"slack-bot-token":              privacy.KindSlack,
	"slack-user-token":             privacy.KindSlack,
	"slack-app-token":              privacy.KindSlack,
	"slack-legacy-bot-token":       privacy.KindSlack,
	"slack-legacy-workspace-token": privacy.KindSlack,
	"slack-legacy-token":           privacy.KindSlack,
	"stripe-access-token":          privacy.KindStripe,
	"gcp-api-key":                  privacy.KindGoogle,
	"jwt":                          privacy.KindJWT,
	"private-key":                  privacy.KindPrivateKey,
	"npm-access-token":             privacy.KindNPM,
	"curl-auth-header":             privacy.KindBearer,
}

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b32    = upper + "234567"
	urlb64 = alnum + "_-"
)

func pick(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

// generators make a credential of each shape as its issuer does, with
// random bodies.
var generators = []struct {
	name string
	gen  func(r *rand.Rand) string
}{
	{"aws", func(r *rand.Rand) string { return []string{"AKIA", "ASIA"}[r.IntN(2)] + pick(r, b32, 16) }},
	{"github", func(r *rand.Rand) string { return "gh" + string("pousr"[r.IntN(5)]) + "_" + pick(r, alnum, 36) }},
	{"github-pat", func(r *rand.Rand) string { return "github_pat_" + pick(r, alnum, 22) + "_" + pick(r, alnum, 59) }},
	{"openai", func(r *rand.Rand) string {
		return "sk-" + []string{"proj", "svcacct", "admin"}[r.IntN(3)] + "-" + pick(r, urlb64, 74) + "T3BlbkFJ" + pick(r, urlb64, 74)
	}},
	{"openai-legacy", func(r *rand.Rand) string { return "sk-" + pick(r, alnum, 20) + "T3BlbkFJ" + pick(r, alnum, 20) }},
	{"anthropic", func(r *rand.Rand) string {
		return "sk-ant-" + []string{"api03", "admin01"}[r.IntN(2)] + "-" + pick(r, urlb64, 93) + "AA"
	}},
	{"slack-bot", func(r *rand.Rand) string {
		return "xoxb-" + pick(r, digits, 10+r.IntN(4)) + "-" + pick(r, digits, 10+r.IntN(4)) + "-" + pick(r, alnum, 24)
	}},
	{"slack-user", func(r *rand.Rand) string {
		return "xoxp-" + pick(r, digits, 12) + "-" + pick(r, digits, 12) + "-" + pick(r, digits, 12) + "-" + pick(r, "abcdef"+digits, 32)
	}},
	{"slack-app", func(r *rand.Rand) string {
		return "xapp-1-A" + pick(r, upper+digits, 10) + "-" + pick(r, digits, 13) + "-" + pick(r, "abcdef"+digits, 64)
	}},
	{"slack-legacy", func(r *rand.Rand) string {
		return "xox" + string("ar"[r.IntN(2)]) + "-" + pick(r, digits, 1) + "-" + pick(r, digits, 2) + pick(r, alnum, 8+r.IntN(38))
	}},
	{"slack-legacy-os", func(r *rand.Rand) string {
		return "xox" + string("os"[r.IntN(2)]) + "-" + pick(r, digits, 10) + "-" + pick(r, digits, 10) + "-" + pick(r, digits, 12) + "-" + pick(r, "abcdef"+digits, 32)
	}},
	{"slack-legacy-bot", func(r *rand.Rand) string {
		return "xoxb-" + pick(r, digits, 8+r.IntN(7)) + "-" + pick(r, digits, 2) + pick(r, alnum, 16+r.IntN(9))
	}},
	{"stripe", func(r *rand.Rand) string {
		return []string{"sk", "rk"}[r.IntN(2)] + "_" + []string{"live", "test"}[r.IntN(2)] + "_" + pick(r, digits, 2) + pick(r, alnum, 22+r.IntN(78))
	}},
	{"google", func(r *rand.Rand) string { return "AIza" + pick(r, urlb64, 35) }},
	{"jwt", func(r *rand.Rand) string {
		enc := base64.RawURLEncoding.EncodeToString
		return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(fmt.Sprintf(`{"sub":"%s","iat":%d}`, pick(r, alnum, 12), r.IntN(1e9)))) + "." + pick(r, urlb64, 43)
	}},
	{"private-key", func(r *rand.Rand) string {
		kind := []string{"RSA ", "EC ", "OPENSSH ", ""}[r.IntN(4)]
		var b strings.Builder
		b.WriteString("-----BEGIN " + kind + "PRIVATE KEY-----\n")
		for range 4 + r.IntN(6) {
			b.WriteString(pick(r, alnum+"+/", 64) + "\n")
		}
		b.WriteString("-----END " + kind + "PRIVATE KEY-----")
		return b.String()
	}},
	{"npm", func(r *rand.Rand) string { return "npm_" + pick(r, alnum, 36) }},
	{"bearer", func(r *rand.Rand) string {
		return `curl -H "Authorization: Bearer ` + pick(r, digits, 3) + pick(r, alnum, 37) + `" https://api.example.com/v1`
	}},
}

// contexts are the texts around a credential: a line of a file, a command,
// a JSON value, a URL, prose.
var contexts = []string{
	"%s", "token: %s\n", "export TOKEN='%s'", `{"key": "%s"}`, "see (%s) and more", "https://x.example/?key=%s&y=1",
	"line one\n%s\nline three", "`%s`", "KEY=%s ./run", "the value %s is used",
}

func TestDifferentialGenerated(t *testing.T) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(26, 4))
	found := map[string]int{}
	for _, g := range generators {
		for i := range 200 {
			cred := g.gen(r)
			text := fmt.Sprintf(contexts[i%len(contexts)], cred)
			out := privacy.Redact(text)
			hits := 0
			for _, f := range d.DetectString(text) {
				kind, ours := rules[f.RuleID]
				if !ours {
					continue
				}
				hits++
				found[f.RuleID]++
				if strings.Contains(out, strings.TrimSpace(f.Secret)) {
					t.Errorf("%s: gitleaks %s finds %.12q… that Redact keeps: %q", g.name, f.RuleID, f.Secret, out)
				} else if !strings.Contains(out, "[redacted: "+kind+"]") {
					t.Errorf("%s: gitleaks %s: Redact names another kind than %s: %q", g.name, f.RuleID, kind, out)
				}
			}
			if strings.Contains(out, cred) || hits == 0 && out == text {
				t.Errorf("%s: Redact keeps the credential: %q", g.name, out)
			}
		}
	}
	var names []string
	for id := range rules {
		names = append(names, fmt.Sprintf("%s %d", id, found[id]))
	}
	sort.Strings(names)
	t.Logf("gitleaks findings per rule on generated text: %s", strings.Join(names, ", "))
}

// TestDifferentialCorpus runs gitleaks and Redact over every string of the
// corpus transcripts: what gitleaks' rules above find, Redact must redact;
// every finding, and every disagreement, is listed with the secret masked.
func TestDifferentialCorpus(t *testing.T) {
	dir := corpustest.Dir(t)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	texts, others := 0, map[string]int{}
	err = corpustest.EachLine(dir, func(rel string, line []byte) {
		// privacy.JSON is the walk: it hands f every string, decoded.
		privacy.JSON(line, "", func(s string) string {
			texts++
			out := privacy.Redact(s)
			if out != s {
				t.Logf("%s: Redact redacts %d bytes to %d", rel, len(s), len(out))
			}
			for _, fd := range d.DetectString(s) {
				if _, ours := rules[fd.RuleID]; !ours {
					others[fd.RuleID]++
					continue
				}
				if strings.Contains(out, strings.TrimSpace(fd.Secret)) {
					t.Errorf("%s: gitleaks %s finds a %d-byte secret that Redact keeps", rel, fd.RuleID, len(fd.Secret))
				} else {
					t.Logf("%s: gitleaks %s, redacted too", rel, fd.RuleID)
				}
			}
			return s
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for id, n := range others {
		names = append(names, fmt.Sprintf("%s %d", id, n))
	}
	sort.Strings(names)
	t.Logf("%d corpus texts; findings of gitleaks' other rules (not bottle's shapes): %s", texts, strings.Join(names, ", "))
}
