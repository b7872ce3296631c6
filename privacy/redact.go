package privacy

import (
	"encoding/binary"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// RedactEnv is the environment variable that turns redaction off when set
// to "0", for a user who wants the raw record: [Redact], [RedactAssignments]
// and [RedactBytes] then return their input. [Find] is not affected.
const RedactEnv = "BOTTLE_REDACT"

// redactOff is read once: every output of a process is redacted, or none.
var redactOff = os.Getenv(RedactEnv) == "0"

// Redacting reports whether Redact replaces credentials in this process
// (RedactEnv is not "0").
func Redacting() bool { return !redactOff }

// RedactBytes is [Redact] of a byte slice; it returns b itself when nothing
// matches.
func RedactBytes(b []byte) []byte {
	if redactOff || len(b) == 0 {
		return b
	}
	// Read in place: b is not changed while next scans it.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if _, ok := next(s, 0, false); !ok {
		return b
	}
	return []byte(redact(s, false))
}

// Redact returns s with every well-known credential shape replaced by
// "[redacted: <kind>]", and the password of a URL's userinfo by "[redacted]"
// ("https://user:[redacted]@host"). It returns s itself, without allocating,
// when nothing matches.
//
// The shapes are prefix-anchored, so that one pass over the bytes finds them
// without a regular expression: a byte that can open a shape is looked up in
// a table, and only there are the next bytes compared. Each shape also needs
// a word boundary before it and a body long enough to be a real key, which is
// what keeps ordinary words ("skeleton", "ghost", "eyes") and placeholders
// ("Bearer $TOKEN", "postgres://u:${PW}@h") out.
func Redact(s string) string {
	return redact(s, false)
}

// RedactAssignments is [Redact] plus the right-hand side of an assignment to
// a name that says it holds a secret (API_KEY=…, "password": "…",
// STRIPE_SECRET: …), which becomes "[redacted: secret]". It is for the short
// texts that digests lift out of tool inputs and outputs (names, error lines),
// where such an assignment is a line of a file or a command, not prose.
func RedactAssignments(s string) string {
	return redact(s, true)
}

// Kinds of credentials, as they appear in "[redacted: <kind>]".
const (
	KindAWS        = "aws-access-key"
	KindGitHub     = "github-token"
	KindOpenAI     = "openai-key"
	KindAnthropic  = "anthropic-key"
	KindSlack      = "slack-token"
	KindStripe     = "stripe-key"
	KindGoogle     = "google-api-key"
	KindJWT        = "jwt"
	KindPrivateKey = "private-key"
	KindBearer     = "bearer-token"
	KindNPM        = "npm-token"
	KindSecret     = "secret"
	// KindURLPassword is the kind of a URL's password; its replacement is
	// "[redacted]" alone, inside the URL.
	KindURLPassword = "url-password"
)

// A Match is one credential found by [Find]: s[Start:End] is replaced.
type Match struct {
	Start, End int
	Kind       string
}

// Find returns the credentials Redact would replace in s, in order; with
// assignments, those RedactAssignments would.
func Find(s string, assignments bool) []Match {
	var ms []Match
	for i := 0; i < len(s); {
		m, ok := next(s, i, assignments)
		if !ok {
			break
		}
		ms = append(ms, m)
		i = m.End
	}
	return ms
}

func redact(s string, assignments bool) string {
	if redactOff {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		m, ok := next(s, i, assignments)
		if !ok {
			break
		}
		if b.Len() == 0 && last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:m.Start])
		b.WriteString(replacement(m.Kind))
		last, i = m.End, m.End
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func replacement(kind string) string {
	if kind == KindURLPassword {
		return "[redacted]"
	}
	return "[redacted: " + kind + "]"
}

// opens marks the bytes at which a shape can start: the first byte of a
// prefix, ':' of "://", and for assignments '=' and ':' after a name.
var opens = func() (t [256]bool) {
	for _, c := range "AgsrxneB-b:=\"'" {
		t[c] = true
	}
	return t
}()

// next returns the first credential at or after s[i].
func next(s string, i int, assignments bool) (Match, bool) {
	if !assignments {
		return nextShape(s, i)
	}
	return nextAssignment(s, i)
}

// nextShape is next without assignments: a shape can only start at one of
// its two-byte openings (pairs), which are rare in text, so the loop looks
// the pairs of eight positions up at once and goes on while none is one —
// about a third of the time of nextAssignment's loop, whose candidates ('=',
// quotes) are everywhere. matchAt checks what the pair does not: the word
// boundary before a letter or '-', and the rest of the shape.
func nextShape(s string, i int) (Match, bool) {
	p := pairs()
	for ; i+9 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		x := w>>56 | uint64(s[i+8])<<8
		if p[uint16(w)]|p[uint16(w>>8)]|p[uint16(w>>16)]|p[uint16(w>>24)]|
			p[uint16(w>>32)]|p[uint16(w>>40)]|p[uint16(w>>48)]|p[uint16(x)] == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if p[uint16(s[j])|uint16(s[j+1])<<8] != 0 {
				if m, ok := matchAt(s, j, false); ok {
					return m, true
				}
			}
		}
	}
	for ; i+1 < len(s); i++ {
		if p[uint16(s[i])|uint16(s[i+1])<<8] != 0 {
			if m, ok := matchAt(s, i, false); ok {
				return m, true
			}
		}
	}
	return Match{}, false
}

// pairs marks, by its two bytes (the first in the low byte), each opening
// of a shape: a letter with a byte seconds allows after it, "--" and ":/".
// The table is zero memory until its few openings are set on first use:
// a process touches only the pages it looks up, and one that never
// redacts (the PreToolUse hook) none.
var pairs = sync.OnceValue(func() *[1 << 16]uint8 {
	for _, a := range []byte("AgsrxneBb") {
		for b := range 256 {
			if seconds[a][b] {
				pairTable[int(a)|b<<8] = 1
			}
		}
	}
	pairTable['-'|'-'<<8], pairTable[':'|'/'<<8] = 1, 1
	return &pairTable
})

var pairTable [1 << 16]uint8

// nextAssignment is next with assignments. A shape that opens with a
// letter needs a word boundary before it, so the loop looks at the first
// two bytes of each word and skips the rest of it in a tight loop of one
// table load a byte; of the other bytes, only those that open a shape are
// looked at. Most candidates fail at their second byte, without a call.
func nextAssignment(s string, i int) (Match, bool) {
	const assignments = true
	if i > 0 && isWord(s[i-1]) {
		for i < len(s) && wordBytes[s[i]] {
			i++
		}
	}
	for i < len(s) {
		c := s[i]
		if wordBytes[c] {
			if opens[c] && i+1 < len(s) && seconds[c][s[i+1]] {
				if m, ok := matchAt(s, i, assignments); ok {
					return m, true
				}
			}
			for i++; i < len(s) && wordBytes[s[i]]; i++ {
			}
			continue
		}
		if opens[c] && !(c == '-' && (i > 0 && isWord(s[i-1]) || i+1 >= len(s) || s[i+1] != '-')) &&
			!(c == ':' && !assignments && (i+1 >= len(s) || s[i+1] != '/')) {
			if m, ok := matchAt(s, i, assignments); ok {
				return m, true
			}
		}
		i++
	}
	return Match{}, false
}

// wordBytes marks the bytes of a word (isWord), for next's skip.
var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWord(byte(c))
	}
	return t
}()

// seconds marks, for each opening letter (and '-'), the bytes that may
// follow it in a shape: AKIA/ASIA/ABIA/ACCA/AIza, gh?_/github_pat_, sk/rk,
// xox?/xapp, npm_, ey, Bearer, -----. A literal, not a loop at init: the
// linker lays it out, so a process that never redacts (the PreToolUse hook,
// which starts on every Read) never touches its 64 kB.
var seconds = [256][256]bool{
	'A': {'K': true, 'S': true, 'B': true, 'C': true, 'I': true},
	'g': {'h': true, 'i': true},
	's': {'k': true}, 'r': {'k': true},
	'x': {'o': true, 'a': true},
	'n': {'p': true}, 'e': {'y': true},
	'B': {'e': true, 'E': true}, 'b': {'e': true, 'E': true},
	'-': {'-': true},
}

// midWord marks the opening bytes whose shape needs a word boundary before.
var midWord = func() (t [256]bool) {
	for _, c := range "AgsrxneBb-" {
		t[c] = true
	}
	return t
}()

// matchAt reports the credential that starts at s[i], if any. For a URL's
// password and an assignment, the match starts after the byte at i.
func matchAt(s string, i int, assignments bool) (Match, bool) {
	c := s[i]
	if !opens[c] {
		return Match{}, false
	}
	switch c {
	case ':':
		if end, start, ok := urlPassword(s, i); ok {
			return Match{start, end, KindURLPassword}, true
		}
		if assignments {
			return assignment(s, i)
		}
		return Match{}, false
	case '=', '"', '\'':
		if assignments {
			return assignment(s, i)
		}
		return Match{}, false
	}
	if i > 0 && isWord(s[i-1]) {
		return Match{}, false
	}
	rest := s[i:]
	var n int
	var kind string
	switch c {
	case 'A':
		n, kind = aws(rest)
		if n == 0 && strings.HasPrefix(rest, "AIza") {
			if k := run(rest[4:], isKeyByte); k >= 35 {
				n, kind = 4+k, KindGoogle
			}
		}
	case 'g':
		n, kind = github(rest)
	case 's', 'r':
		n, kind = skKey(rest)
	case 'x':
		n, kind = slack(rest)
	case 'n':
		if strings.HasPrefix(rest, "npm_") {
			if k := run(rest[4:], isAlnum); k >= 36 {
				n, kind = 4+k, KindNPM
			}
		}
	case 'e':
		n, kind = jwt(rest), KindJWT
	case '-':
		n, kind = privateKey(rest), KindPrivateKey
	case 'B', 'b':
		if start, end := bearer(rest); end > 0 {
			return Match{i + start, i + end, KindBearer}, true
		}
	}
	if n == 0 || kind != KindPrivateKey && uniform(s[i:i+n]) {
		return Match{}, false
	}
	return Match{i, i + n, kind}, true
}

// aws matches an access key id: a four-letter prefix and 16 base-32
// characters, with nothing of a word after them.
func aws(s string) (int, string) {
	if len(s) < 20 {
		return 0, ""
	}
	switch s[:4] {
	case "AKIA", "ASIA", "ABIA", "ACCA":
	default:
		return 0, ""
	}
	for j := 4; j < 20; j++ {
		if c := s[j]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return 0, ""
		}
	}
	if len(s) > 20 && isWord(s[20]) || strings.HasSuffix(s[:20], "EXAMPLE") {
		return 0, ""
	}
	return 20, KindAWS
}

func github(s string) (int, string) {
	if strings.HasPrefix(s, "github_pat_") {
		if k := run(s[11:], isWord); k >= 36 {
			return 11 + k, KindGitHub
		}
		return 0, ""
	}
	if len(s) < 4 || s[:2] != "gh" || s[3] != '_' {
		return 0, ""
	}
	switch s[2] {
	case 'p', 'o', 'u', 's', 'r':
		if k := run(s[4:], isAlnum); k >= 36 {
			return 4 + k, KindGitHub
		}
	}
	return 0, ""
}

// skKey matches the keys that open with sk (OpenAI, Anthropic, Stripe) or rk
// (Stripe's restricted keys).
func skKey(s string) (int, string) {
	if len(s) < 3 || s[1] != 'k' {
		return 0, ""
	}
	if s[2] == '_' {
		for _, p := range [...]string{"live_", "test_", "prod_"} {
			if strings.HasPrefix(s[3:], p) {
				if k := run(s[8:], isAlnum); k >= 20 && hasDigit(s[8:8+k]) {
					return 8 + k, KindStripe
				}
			}
		}
		return 0, ""
	}
	if s[0] != 's' || s[2] != '-' {
		return 0, ""
	}
	if strings.HasPrefix(s, "sk-ant-") {
		if k := run(s[7:], isKeyByte); k >= 20 {
			return 7 + k, KindAnthropic
		}
		return 0, ""
	}
	for _, p := range [...]string{"sk-proj-", "sk-svcacct-", "sk-admin-"} {
		if strings.HasPrefix(s, p) {
			if k := run(s[len(p):], isKeyByte); k >= 20 {
				return len(p) + k, KindOpenAI
			}
			return 0, ""
		}
	}
	if k := run(s[3:], isAlnum); k >= 32 && hasDigit(s[3:3+k]) {
		return 3 + k, KindOpenAI
	}
	return 0, ""
}

func slack(s string) (int, string) {
	if len(s) > 5 && s[:3] == "xox" && s[4] == '-' && strings.IndexByte("abeoprs", s[3]) >= 0 {
		if k := run(s[5:], isSlackByte); k >= 10 && hasDigit(s[5:5+k]) {
			return 5 + k, KindSlack
		}
		return 0, ""
	}
	if strings.HasPrefix(s, "xapp-") && len(s) > 6 && isDigit(s[5]) && s[6] == '-' {
		if k := run(s[7:], isSlackByte); k >= 10 {
			return 7 + k, KindSlack
		}
	}
	return 0, ""
}

// jwt matches three base64url segments whose first two open with "ey" (the
// encoding of `{"`); the signature may be missing.
func jwt(s string) int {
	if !strings.HasPrefix(s, "ey") {
		return 0
	}
	n := run(s, isAlnum)
	if n < 19 || n >= len(s) || s[n] != '.' || !strings.HasPrefix(s[n+1:], "ey") {
		return 0
	}
	k := run(s[n+1:], isJWTByte)
	if k < 19 {
		return 0
	}
	n += 1 + k
	if n < len(s) && s[n] == '.' {
		if k := run(s[n+1:], isJWTByte); k >= 10 {
			n += 1 + k
			for j := 0; j < 2 && n < len(s) && s[n] == '='; j++ {
				n++
			}
		}
	}
	return n
}

// privateKey matches a PEM private key block from its BEGIN line to the end
// of its END line; a block whose END is missing (a cut text) runs to the end
// of s, so that no part of the key is left.
func privateKey(s string) int {
	if !strings.HasPrefix(s, "-----BEGIN") {
		return 0
	}
	head := s[10:]
	if len(head) > 120 {
		head = head[:120]
	}
	j := strings.Index(head, "PRIVATE KEY")
	if j < 0 {
		return 0
	}
	for _, c := range []byte(head[:j]) {
		if !(c == ' ' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return 0
		}
	}
	body := 10 + j + len("PRIVATE KEY")
	end := strings.Index(s[body:], "-----END")
	if end < 0 {
		return len(s)
	}
	end += body + len("-----END")
	close := strings.Index(s[end:], "-----")
	if close < 0 || close > 120 {
		return len(s)
	}
	return end + close + len("-----")
}

// bearer matches an HTTP bearer token: "Bearer" (any case), spaces, and a
// token of at least 16 token characters holding a letter and a digit. It
// returns the token's span within s, so the word "Bearer" stays.
func bearer(s string) (start, end int) {
	if len(s) < 7 || !strings.EqualFold(s[:6], "bearer") || s[6] != ' ' {
		return 0, 0
	}
	start = 7
	for start < len(s) && s[start] == ' ' {
		start++
	}
	k := run(s[start:], isBearerByte)
	if k < 16 {
		return 0, 0
	}
	tok := s[start : start+k]
	if !hasDigit(tok) || !hasLetter(tok) {
		return 0, 0
	}
	end = start + k
	for end < len(s) && s[end] == '=' {
		end++
	}
	return start, end
}

// urlPassword matches the password of "scheme://user:password@host", where
// s[i] is the scheme's ':'. It returns the password's span; a placeholder
// ("${PW}", "<password>", "%s", "***") is not a password.
func urlPassword(s string, i int) (end, start int, ok bool) {
	if i == 0 || !isAlpha(s[i-1]) || !strings.HasPrefix(s[i:], "://") {
		return 0, 0, false
	}
	user := i + 3
	at, colon := -1, -1
	for j := user; j < len(s) && j-user < 256; j++ {
		c := s[j]
		if c == '@' {
			at = j
			break
		}
		if c == ':' && colon < 0 {
			colon = j
		}
		if c <= ' ' || strings.IndexByte("/?#\"'<>\\`", c) >= 0 {
			break
		}
	}
	if at < 0 || colon < 0 || colon+1 == at || colon == user {
		return 0, 0, false
	}
	pw := s[colon+1 : at]
	if placeholder(pw) || pw == "[redacted]" {
		return 0, 0, false
	}
	return at, colon + 1, true
}

// passwordNames are the endings of a name whose value is a secret whatever
// it looks like; keyNames those of a name that also labels ordinary values
// (sortKey, nextToken), whose value must look like a key: long, with letters
// and digits.
var (
	passwordNames = [...]string{"SECRET", "PASSWORD", "PASSWD", "CREDENTIALS", "CREDENTIAL"}
	keyNames      = [...]string{"KEY", "TOKEN", "AUTH"}
)

// assignment matches the value assigned to a secret's name, where s[i] is
// the '=', the ':' or the closing quote of a quoted key ("password": "…").
func assignment(s string, i int) (Match, bool) {
	nameEnd := i
	if c := s[i]; c == '"' || c == '\'' {
		// A quoted key is followed by its ':'; the name ends at the quote.
		j := i + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j >= len(s) || s[j] != ':' {
			return Match{}, false
		}
		i = j
	}
	for nameEnd > 0 && (s[nameEnd-1] == ' ' || s[nameEnd-1] == '\t') {
		nameEnd--
	}
	nameStart := nameEnd
	for nameStart > 0 && isWord(s[nameStart-1]) {
		nameStart--
	}
	if nameStart == nameEnd {
		return Match{}, false
	}
	name := s[nameStart:nameEnd]
	// Every secret's name ends in one of these letters: most names (and
	// every "key: value" of prose) are turned down here.
	switch name[len(name)-1] | 0x20 {
	case 't', 'd', 's', 'l', 'y', 'n', 'h':
	default:
		return Match{}, false
	}
	password := secretName(name, passwordNames[:])
	if !password && !secretName(name, keyNames[:]) {
		return Match{}, false
	}
	v := i + 1
	if s[i] == ':' && v < len(s) && s[v] == '=' {
		v++ // Make's :=
	}
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	quote := byte(0)
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		quote = s[v]
		v++
	}
	end := v
	if quote == 0 {
		// An authorization value ("Bearer <token>") is the scheme and the
		// token: the token alone would read as an ordinary word.
		for _, scheme := range [...]string{"bearer ", "basic ", "token "} {
			if len(s)-v > len(scheme) && strings.EqualFold(s[v:v+len(scheme)], scheme) {
				end = v + len(scheme)
				for end < len(s) && s[end] == ' ' {
					end++
				}
				break
			}
		}
	}
	for end < len(s) {
		c := s[end]
		if quote != 0 && c == quote || quote == 0 && (c <= ' ' || c == ',' || c == ';' || c == '"' || c == '\'' || c == ')' || c == '}') {
			break
		}
		end++
	}
	val := s[v:end]
	// A value holding a call ("token = Base.encode64(bytes)") is code.
	if len(val) < 4 || placeholder(val) || strings.IndexByte(val, '(') >= 0 || strings.HasPrefix(val, "[redacted") ||
		!password && (len(val) < 12 || !hasDigit(val) || !hasLetter(val)) {
		return Match{}, false
	}
	return Match{v, end, KindSecret}, true
}

// secretName reports whether name ends, as a word part, in one of the
// endings (API_KEY, githubToken, DB_PASSWORD; not MONKEY or bypass).
func secretName(name string, endings []string) bool {
	for _, suf := range endings {
		if len(name) < len(suf) || !strings.EqualFold(name[len(name)-len(suf):], suf) {
			continue
		}
		k := len(name) - len(suf)
		if k == 0 || name[k-1] == '_' || name[k-1] == '-' || isLower(name[k-1]) && isUpper(name[k]) {
			return true
		}
	}
	return false
}

// placeholder reports whether a value names or stands for a secret rather
// than holding one: a variable reference, a template, a mask, or a word
// such as "true" or "null" that no credential is.
func placeholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '{', '<', '%', '[', '(':
		return true
	}
	if strings.Trim(v, "*xX.•") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "undefined", "password", "secret", "token", "changeme", "example", "redacted":
		return true
	}
	return false
}

// uniform reports whether a token is a mask or a sample rather than a key
// ("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"): fewer than eight different
// bytes, where a random key of that length has dozens.
func uniform(tok string) bool {
	var seen [256]bool
	n := 0
	for i := 0; i < len(tok); i++ {
		if !seen[tok[i]] {
			seen[tok[i]] = true
			if n++; n >= 8 {
				return false
			}
		}
	}
	return true
}

func run(s string, ok func(byte) bool) int {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return n
}

func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
func isLower(c byte) bool   { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool   { return c >= 'A' && c <= 'Z' }
func isAlpha(c byte) bool   { return isLower(c) || isUpper(c) }
func isAlnum(c byte) bool   { return isAlpha(c) || isDigit(c) }
func isWord(c byte) bool    { return isAlnum(c) || c == '_' }
func isKeyByte(c byte) bool { return isWord(c) || c == '-' }

func isSlackByte(c byte) bool  { return isAlnum(c) || c == '-' }
func isJWTByte(c byte) bool    { return isWord(c) || c == '-' || c == '/' || c == '\\' }
func isBearerByte(c byte) bool { return isWord(c) || strings.IndexByte("-._~+/", c) >= 0 }

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlpha(s[i]) {
			return true
		}
	}
	return false
}
