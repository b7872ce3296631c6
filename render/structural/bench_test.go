package structural

import (
	"strings"
	"testing"
)

// escapeBenchText is message text as sessions hold it: prose, lists, code,
// quotes, headings, non-ASCII prose and CJK, one line in eight starting
// with a byte some opening starts with.
var escapeBenchText = func() string {
	lines := []string{
		"I think the retry policy should back off exponentially, capped at 30 s.",
		"- first, read the config", "* then parse it", "```go", "func main() { fmt.Println(\"hi\") }", "```",
		"> quoted from the docs: the handler must be idempotent", "## Design notes", "Let me look at the tests first.",
		"Current behaviour: the loop never ends.", "projects are listed by name", "— a dash-led aside",
		"日本語の説明文がここに入ります。", "Ça marche, mais c’est lent…", "    indented code line", "",
		"**Bold** prose that is not a heading", "__init__.py holds the package", "1. numbered item", "Before we start, note this.",
	}
	var b strings.Builder
	for b.Len() < 1<<20 {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}()

func BenchmarkEscape(b *testing.B) {
	b.SetBytes(int64(len(escapeBenchText)))
	for b.Loop() {
		Escape(escapeBenchText)
	}
}
