package search

import (
	"context"
	"os"
	"strings"
	"testing"

	"bottle/locate"
)

// BenchmarkScopeAll is one search of a rare word over every session of the
// home in $BENCH_SCALE_HOME (a home scripts/bench.sh scale sets up, its
// index built), as the server makes it: the scope listed, the store
// brought up to date and asked.
func BenchmarkScopeAll(b *testing.B) {
	home := os.Getenv("BENCH_SCALE_HOME")
	if home == "" {
		b.Skip("BENCH_SCALE_HOME is not set")
	}
	b.Setenv("HOME", home)
	b.Setenv("CLAUDE_CONFIG_DIR", home+"/.claude")
	b.Setenv("CLAUDE_MEM_DATA_DIR", home+"/mem")
	env := locate.OSEnv()
	st := NewStore(env.SearchIndexPath())
	defer st.Close()
	q, _ := Parse("quokka")
	ctx := context.Background()
	ix := &Index{}
	own := storedOwn(b, st)
	for b.Loop() {
		srcs := ix.ScopeSources(ctx, env, nil, "", "all", home)
		res, err := st.search(ctx, Options{Query: q, Sources: srcs, Own: own})
		if err != nil || res.Total == 0 {
			b.Fatal(err, res)
		}
	}
}

// storedOwn is the rules for bottle's own reads the store's transcripts
// were read with (their key, ownRules.key), so that a benchmark does not
// read them all again with others.
func storedOwn(b *testing.B, st *Store) Own {
	r, _, err := st.dbs(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var fp string
	if err := r.QueryRow("SELECT fp FROM src WHERE key >= 't' AND key < 'u' LIMIT 1").Scan(&fp); err != nil {
		b.Fatal(err)
	}
	dirs, tools, _ := strings.Cut(ownPart(fp), "\x01")
	var o Own
	if dirs != "" {
		o.BottlesDir = strings.Split(dirs, "\x00")[0]
	}
	if tools != "" {
		o.Tools = strings.Split(tools, "\x00")
	}
	return o
}
