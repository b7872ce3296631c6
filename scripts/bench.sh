#!/usr/bin/env bash
# bench.sh — bottle's performance benchmarks (docs/performance.md).
#
#   scripts/bench.sh                 # everything, N=7 runs per throughput command
#   BENCH_N=11 BENCH_SIZE=200M scripts/bench.sh
#   scripts/bench.sh throughput      # one part: throughput | hook | scaling | mcp | go | search | scale | launcher
#   BENCH_BASE=main scripts/bench.sh throughput hook   # the working tree against a revision
#
# Everything is built and generated in a temp dir (removed at exit; set
# BENCH_KEEP=1 to keep it). The commands of a comparison run in alternation
# (A B C D, B C D A, ...) so that noise from other processes hits them
# alike; the tables show medians.
#
# BENCH_BASE=<rev> (any git revision: main, HEAD~1, a hash) also builds that
# revision's hookbin and mcpserver, in a temporary git worktree under the
# temp dir (removed at exit, on failure and on Ctrl-C, BENCH_KEEP or not),
# and every part runs the base in the same alternation as the working
# tree's build ("bottle"; the base is "bottle@<hash>"): each table gains
# the base's rows and the summaries its medians and the ratio HEAD/base
# (< 1: the working tree is faster). throughput adds the base's ratios to
# Node and jq; hook and mcp give the base its own copy of the home; the Go
# benchmarks (of scaling, mcp and go) are run from test binaries of both
# trees in alternation, BENCH_GO_N rounds (default 5), as medians per
# benchmark.
#
#   throughput  `hookbin render --budget 0` of a synthetic transcript
#               (scripts/gentranscript, the corpus mix) against a Node script
#               that JSON.parses every line and prints the same user and
#               assistant text, the equivalent jq program, and `cat` (the
#               I/O floor); peak RSS from one more run under /usr/bin/time.
#   hook        `hookbin session-start` (compact payload) on the largest
#               corpus transcript with a copy of the corpus database, against
#               `hookbin --version` (the process start floor).
#   scaling     render time at four transcript sizes; Go benchmarks of a
#               session's render and reads with 2,000 and 200,000
#               observations in claude-mem's database, and the query plans;
#               one prompt and a run of 20,000 or 100,000 tool calls, and
#               80,000 observations in one turn (render with the budget, and
#               the merge alone).
#   mcp         mcpserver over stdio (the real binary, OS pipes): read_bottle
#               and expand_observation round trips after start-up, on the
#               corpus session with a copy of the corpus database; the Go
#               benchmarks of expand_observation with 2,000 and 200,000
#               observations and of read_bottle over the stdio transport.
#   go          the Go benchmarks of the reader, the renderer, the database
#               and the hooks.
#   search      mcpserver over stdio on a home holding the corpus's 25
#               transcripts (each in its project's folder) and a copy of
#               its database: search_history's first call after initialize
#               (median over BENCH_SEARCH_STARTS server starts, default 10)
#               and repeated calls (median of three rounds of 20 different
#               queries) at
#               session scope (70d782f7, 4 MB), project scope (the 5
#               sessions of /Users/soph/Work/entire/devenv/cli, ~10 MB)
#               and all scope; list_sessions; a gentranscript -size
#               BENCH_SEARCH_SIZE (default 400M) transcript; the server's
#               peak RSS (VmHWM); and rg -c -i -F of the query's first word
#               over the same raw JSONL as the floor. With BENCH_BASE, the
#               base's mcpserver too, on a home of its own, each start and
#               each query alternating between the two, and their ratios.
#   scale       search at a heavy user's scale: histories of
#               BENCH_SCALE_SIZES sessions (default "25 300 1000"; fewer for
#               a quick run) of 3-8 MB each (scripts/gentranscript, the
#               corpus mix) across 30 project folders, a few sessions
#               holding a rare word. For each size: rg -c -i -F over the
#               raw JSONL (the floor), `hookbin search --all` without the
#               index (BOTTLE_SEARCH_INDEX=off, one run) and with it: the
#               first search (the index build: time, MB/s, size), repeated
#               searches of a rare and a common word, a phrase and a
#               two-letter word, the search after one appended turn (the
#               incremental update); mcpserver's search_history first call
#               and repeated calls at each scope and list_sessions; hookbin
#               list; peak RSS of both binaries. The generated histories
#               (about 5.9 GB at 1,000) live in the temp dir, or in
#               BENCH_SCALE_SRC (kept, and reused by the next run).
#   launcher    the plugin's `sh plugin/bin/bottle-run hookbin ...` against
#               the binary run directly: `--version`, `session-start`
#               (compact payload) and `pre-tool-use` (a Read of a bottle),
#               and the difference of the medians (the launcher's cost;
#               target <= 5 ms); and pre-tool-use's whole time through the
#               launcher, allowing a bottle and deciding nothing for another
#               Read (target <= 5 ms per call). Not in the default parts.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${BENCH_N:-11}
SIZE=${BENCH_SIZE:-400M}
HOOK_N=${BENCH_HOOK_N:-40}
PARTS=${*:-throughput hook scaling mcp go search}
CORPUS=${BOTTLE_CORPUS:-$ROOT/../shared/corpus}
BASE=${BENCH_BASE:-}
GO_N=${BENCH_GO_N:-5}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bottle-bench.XXXXXX")
BASE_SRC= # the base's worktree, while it exists
cleanup() {
	if [[ -n $BASE_SRC ]]; then
		git -C "$ROOT" worktree remove --force "$BASE_SRC" >/dev/null 2>&1 || rm -rf "$BASE_SRC"
		git -C "$ROOT" worktree prune >/dev/null 2>&1 || true
	fi
	if [[ -z ${BENCH_KEEP:-} ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ -n ${BENCH_KEEP:-} ]]; then echo "work dir: $WORK"; fi

# benchlines keeps the result lines of go test -bench (and the plans it logs).
benchlines() { grep -E '^Benchmark|bench_test|FAIL|panic' || true; }

# gotest PKG REGEXP FLAGS...: the Go benchmarks of PKG (flags as go test
# takes them); with BENCH_BASE, those of the working tree and of the base,
# from test binaries run in alternation GO_N times, as a table of medians.
gotest() {
	local pkg=$1 re=$2 f flags=()
	shift 2
	if [[ -z $BASE ]]; then
		go test "./$pkg" -run '^$' -bench "$re" "$@" | benchlines
		return
	fi
	for f in "$@"; do if [[ $f == -* ]]; then flags+=("-test.${f#-}"); else flags+=("$f"); fi; done
	local d=$WORK/gotest/${pkg//\//_} i
	mkdir -p "$d"
	go test -c -o "$d/head.test" "./$pkg"
	if ! (cd "$BASE_SRC" && go test -c -o "$d/base.test" "./$pkg") >"$d/build.log" 2>&1; then
		echo "base: ./$pkg's tests do not build; the working tree's alone" >&2
		go test "./$pkg" -run '^$' -bench "$re" "$@" | benchlines
		return
	fi
	: >"$d/head.txt"
	: >"$d/base.txt"
	# The base's tree is not beside ../shared/corpus: name the corpus.
	if [[ -d $CORPUS ]]; then export BOTTLE_CORPUS=$CORPUS; fi
	run1() { (cd "$1/$pkg" && "$d/$2.test" -test.run '^$' -test.bench "$re" "${flags[@]}") | benchlines >>"$d/$2.txt"; }
	for ((i = 0; i < GO_N; i++)); do
		if ((i % 2 == 0)); then run1 "$ROOT" head; run1 "$BASE_SRC" base; else run1 "$BASE_SRC" base; run1 "$ROOT" head; fi
	done
	grep -v '^Benchmark' "$d/head.txt" | awk '!seen[$0]++' || true
	grep -E 'FAIL|panic' "$d/base.txt" | sed "s/^/$BASE_NAME: /" || true
	echo "(./$pkg, $GO_N rounds each, alternating)"
	python3 "$WORK/gostat.py" "$d/head.txt" "$d/base.txt" "$BASE_NAME"
}

say() { printf '\n== %s (load average %s)\n' "$*" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"; }

need_jq() {
	command -v jq >/dev/null && return
	echo "installing jq" >&2
	apt-get install -y jq >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y jq >/dev/null; }
}

say "build"
go build -o "$WORK/bin/hookbin" ./hookbin
go build -o "$WORK/bin/gentranscript" ./scripts/gentranscript
go build -o "$WORK/bin/mcpserver" ./mcpserver
go build -o "$WORK/bin/pretooluse" ./pretooluse
HOOKBIN=$WORK/bin/hookbin
echo "go $(go env GOVERSION), $(nproc) CPUs, $(uname -sr)"
if [[ -n $BASE ]]; then
	rev=$(git rev-parse --verify --quiet "$BASE^{commit}") || { echo "BENCH_BASE=$BASE: no such revision" >&2; exit 2; }
	BASE_NAME=bottle@$(git rev-parse --short "$rev")
	BASE_SRC=$WORK/base-src
	git worktree add --detach --quiet "$BASE_SRC" "$rev"
	(cd "$BASE_SRC" && go build -o "$WORK/base/hookbin" ./hookbin)
	BASE_HOOKBIN=$WORK/base/hookbin BASE_MCP=
	if [[ -d $BASE_SRC/mcpserver ]]; then
		(cd "$BASE_SRC" && go build -o "$WORK/base/mcpserver" ./mcpserver)
		BASE_MCP=$WORK/base/mcpserver
	fi
	echo "base: $BASE_NAME = $BENCH_BASE ($(git log -1 --format=%s "$rev" | cut -c1-100))"
	echo "head: bottle = the working tree, $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- && echo '' || echo ' with uncommitted changes')"
fi

# timeit.py N name 'command' stdin|- ... : runs the commands in rotating
# alternation N times each, directly (no shell, no wrapper; leading
# NAME=value words set a command's environment), and prints medians. The peak RSS comes from one more run of each under
# /usr/bin/time, untimed: a wrapper in the timed runs would add its own
# start-up to every run (milliseconds, much of the fastest command's
# ratio), and wait4's ru_maxrss of a child spawned straight from Python
# counts Python's own memory, shared until the exec.
cat >"$WORK/timeit.py" <<'EOF'
import os, re, sys, time, statistics, shlex, json
def run(argv, stdin):
    env, argv = split_env(argv)
    fin = os.open(stdin or os.devnull, os.O_RDONLY)
    fout = os.open(os.devnull, os.O_WRONLY)
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, env,
                          file_actions=[(os.POSIX_SPAWN_DUP2, fin, 0), (os.POSIX_SPAWN_DUP2, fout, 1)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    os.close(fin); os.close(fout)
    return (t1 - t0) * 1000, status, (ru.ru_utime + ru.ru_stime) * 1000
def peak_rss(argv, stdin):
    if not os.path.exists("/usr/bin/time"):
        return None
    rfile = os.path.join(os.environ["WORK"], "rss")
    env, argv = split_env(argv)
    fin = os.open(stdin or os.devnull, os.O_RDONLY)
    fout = os.open(os.devnull, os.O_WRONLY)
    argv = ["/usr/bin/time", "-f", "%M", "-o", rfile] + argv
    pid = os.posix_spawnp(argv[0], argv, env,
                          file_actions=[(os.POSIX_SPAWN_DUP2, fin, 0), (os.POSIX_SPAWN_DUP2, fout, 1)])
    os.waitpid(pid, 0)
    os.close(fin); os.close(fout)
    with open(rfile) as f:
        return int(f.read().strip().splitlines()[-1]) / 1024
def split_env(argv):
    # Leading NAME=value words set the command's environment, as in a shell.
    env = dict(os.environ)
    while argv and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
        k, _, v = argv[0].partition("="); env[k] = v; argv = argv[1:]
    return env, argv
n = int(sys.argv[1]); specs = []
a = sys.argv[2:]
while a:
    specs.append((a[0], shlex.split(a[1]), None if a[2] == "-" else a[2])); a = a[3:]
res = {s[0]: [] for s in specs}
for i in range(n):
    k = i % len(specs)
    for s in specs[k:] + specs[:k]:
        res[s[0]].append(run(s[1], s[2]))
out = {}
for name, argv, stdin in specs:
    r = res[name]
    ms = sorted(x[0] for x in r)
    out[name] = {"median": statistics.median(ms), "min": ms[0], "max": ms[-1],
                 "cpu": statistics.median(x[2] for x in r),
                 "rss": peak_rss(argv, stdin), "fails": sum(1 for x in r if x[1])}
print(json.dumps(out))
EOF
export WORK

# table.py results.json ref-name [names...]: medians, ratios to ref, RSS.
cat >"$WORK/table.py" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1])); ref = sys.argv[2]; base = res[ref]["median"]
print(f"| command | median ms | min–max ms | ratio to {ref} | CPU ms (user+sys) | peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|")
for name, r in res.items():
    rss = f"{r['rss']:.1f}" if r["rss"] is not None else "—"
    fail = f" ({r['fails']} failed)" if r["fails"] else ""
    print(f"| {name}{fail} | {r['median']:.1f} | {r['min']:.1f}–{r['max']:.1f} | {r['median']/base:.3f} | {r['cpu']:.0f} | {rss} |")
EOF

# ab.py results.json head-name base-name: the HEAD/base line of a comparison.
cat >"$WORK/ab.py" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1])); h, b = r[sys.argv[2]], r[sys.argv[3]]
print(f"HEAD/base {sys.argv[2]}/{sys.argv[3]} = {h['median'] / b['median']:.3f} "
      f"(medians {h['median']:.1f} vs {b['median']:.1f} ms, CPU {h['cpu']:.0f} vs {b['cpu']:.0f} ms)")
EOF

# gostat.py head.txt base.txt base-name: medians per Go benchmark of both.
cat >"$WORK/gostat.py" <<'EOF'
import re, statistics, sys
def load(path):
    res = {}
    for line in open(path):
        f = line.split()
        if not f or not f[0].startswith("Benchmark") or len(f) < 4:
            continue
        m = {f[i + 1]: float(f[i]) for i in range(2, len(f) - 1, 2) if re.match(r"^[0-9.e+-]+$", f[i])}
        res.setdefault(re.sub(r"-[0-9]+$", "", f[0]), []).append(m)
    return res
def med(runs, unit):
    v = [m[unit] for m in runs if unit in m]
    return statistics.median(v) if v else None
def t(ns):
    if ns is None: return "—"
    for div, u in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if ns >= div: return f"{ns / div:.3g} {u}"
    return f"{ns:.3g} ns"
def mb(x): return "—" if x is None else f"{x / 1048576:.2f}"
head, base = load(sys.argv[1]), load(sys.argv[2])
print(f"| benchmark | bottle time/op | {sys.argv[3]} time/op | HEAD/base | bottle MB/op | base MB/op | runs |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name in list(head) + [n for n in base if n not in head]:
    h, b = med(head.get(name, []), "ns/op"), med(base.get(name, []), "ns/op")
    ratio = f"{h / b:.3f}" if h and b else "—"
    print(f"| {name} | {t(h)} | {t(b)} | {ratio} | {mb(med(head.get(name, []), 'B/op'))} | {mb(med(base.get(name, []), 'B/op'))} "
          f"| {len(head.get(name, []))}+{len(base.get(name, []))} |")
EOF

gen() { # gen SIZE FILE
	[[ -f $2 ]] || "$WORK/bin/gentranscript" -size "$1" -o "$2"
}

throughput() {
	say "throughput: render --budget 0 of a $SIZE synthetic transcript (N=$N, alternating)"
	need_jq
	local big=$WORK/big.jsonl
	gen "$SIZE" "$big"
	cat >"$WORK/extract.js" <<'EOF'
// Baseline: JSON.parse every line, print the user and assistant text.
const fs = require('fs');
const fd = fs.openSync(process.argv[2], 'r');
const out = []; let outLen = 0;
function flush() { if (out.length) { fs.writeSync(1, out.join('\n') + '\n'); out.length = 0; outLen = 0; } }
function emit(s) { out.push(s); outLen += s.length; if (outLen > 1 << 20) flush(); }
function line(s) {
  let o;
  try { o = JSON.parse(s); } catch (e) { return; }
  if (!o || o.isSidechain || (o.type !== 'user' && o.type !== 'assistant')) return;
  if (o.isMeta || o.isCompactSummary) return;
  const c = o.message && o.message.content;
  if (typeof c === 'string') { emit(c); return; }
  if (!Array.isArray(c)) return;
  for (const b of c) if (b && b.type === 'text' && typeof b.text === 'string') emit(b.text);
}
let buf = Buffer.alloc(8 << 20), have = 0;
for (;;) {
  if (have === buf.length) { const nb = Buffer.alloc(buf.length * 2); buf.copy(nb, 0, 0, have); buf = nb; }
  const n = fs.readSync(fd, buf, have, buf.length - have, null);
  if (n === 0) break;
  have += n;
  let start = 0, nl;
  while ((nl = buf.indexOf(10, start)) !== -1 && nl < have) { line(buf.toString('utf8', start, nl)); start = nl + 1; }
  buf.copy(buf, 0, start, have); have -= start;
}
if (have > 0) line(buf.toString('utf8', 0, have));
flush();
EOF
	local jqprog='select((.type=="user" or .type=="assistant") and (.isSidechain|not) and (.isMeta|not) and (.isCompactSummary|not)) | .message.content | if type=="string" then . elif type=="array" then (.[] | select(type=="object" and .type=="text") | .text | strings) else empty end'
	echo "$jqprog" >"$WORK/extract.jq"
	# Same text out of both baselines (sanity).
	node "$WORK/extract.js" "$big" | wc -c | sed 's/^/node text bytes: /'
	jq -r -f "$WORK/extract.jq" "$big" | wc -c | sed 's/^/jq text bytes:   /'
	"$HOOKBIN" render --budget 0 --out "$WORK/big.md" "$big" >/dev/null
	echo "bottle: $(wc -c <"$WORK/big.md") bytes, $(wc -l <"$WORK/big.md") lines"
	local base=()
	if [[ -n $BASE ]]; then
		"$BASE_HOOKBIN" render --budget 0 --out "$WORK/big-base.md" "$big" >/dev/null
		echo "$BASE_NAME: $(wc -c <"$WORK/big-base.md") bytes, $(wc -l <"$WORK/big-base.md") lines$(cmp -s "$WORK/big.md" "$WORK/big-base.md" && echo ', the same bytes' || echo ', differs')"
		base=("$BASE_NAME" "$BASE_HOOKBIN render --budget 0 --out /dev/null $big" -)
	fi
	cat "$big" >/dev/null # warm the page cache
	python3 "$WORK/timeit.py" "$N" \
		"bottle" "$HOOKBIN render --budget 0 --out /dev/null $big" - \
		"${base[@]}" \
		"node" "node $WORK/extract.js $big" - \
		"jq" "jq -r -f $WORK/extract.jq $big" - \
		"cat" "cat $big" - >"$WORK/throughput.json"
	python3 "$WORK/table.py" "$WORK/throughput.json" node
	python3 - "$WORK/throughput.json" ${BASE:+"$BASE_NAME"} <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print()
for name in ["bottle"] + sys.argv[2:]:
    b = r[name]["median"]
    rss = f"{r[name]['rss']:.1f}" if r[name]["rss"] is not None else "?"
    print(f"{name}/node = {b / r['node']['median']:.3f} (target <= 0.15), {name}/jq = {b / r['jq']['median']:.3f} (target <= 0.12), "
          f"{name} peak RSS {rss} MB (target <= 64)")
EOF
	if [[ -n $BASE ]]; then python3 "$WORK/ab.py" "$WORK/throughput.json" bottle "$BASE_NAME"; fi
}

# hookhome DIR ID SRC: a home for the hooks, with transcript ID (a copy of
# SRC, or a synthetic one when SRC is empty), a copy of the corpus database
# when SRC is given, and DIR/payload.json, a compact SessionStart payload.
hookhome() {
	local home=$1 id=$2 src=$3
	mkdir -p "$home/.claude/projects/-bench" "$home/mem" "$home/proj"
	if [[ -n $src ]]; then
		cp "$src" "$home/.claude/projects/-bench/$id.jsonl"
		# A copy: SQLite would create -shm files next to the shared database.
		cp "$CORPUS/claude-mem/corpus.db" "$home/mem/claude-mem.db"
	else
		gen 4M "$WORK/synthetic-4M.jsonl" 2>/dev/null
		cp "$WORK/synthetic-4M.jsonl" "$home/.claude/projects/-bench/$id.jsonl"
	fi
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"compact"}\n' \
		"$id" "$home/.claude/projects/-bench/$id.jsonl" "$home" >"$home/payload.json"
}

# hookenv DIR: the environment of a hook run in home DIR (timeit.py words).
hookenv() { echo "HOME=$1 CLAUDE_CONFIG_DIR=$1/.claude CLAUDE_MEM_DATA_DIR=$1/mem BOTTLE_DIR="; }

hook() {
	say "hook latency: session-start (compact) vs --version (N=$HOOK_N, alternating)"
	local id=70d782f7-b303-4e48-9512-6bec16c37abd home=$WORK/hookhome bhome=$WORK/hookhome-base src bin
	src=$CORPUS/transcripts/entireio-cli/$id.jsonl
	if [[ -f $src && -f $CORPUS/claude-mem/corpus.db ]]; then
		echo "corpus transcript $id ($(wc -c <"$src") bytes) with a copy of corpus.db"
	else
		id=5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11 src=
		echo "corpus absent: a 4 MB synthetic transcript, no database"
	fi
	hookhome "$home" "$id" "$src"
	local specs=("--version" "$HOOKBIN --version" - "session-start" "$(hookenv "$home") $HOOKBIN session-start" "$home/payload.json")
	if [[ -n $BASE ]]; then
		hookhome "$bhome" "$id" "$src"
		specs+=("$BASE_NAME --version" "$BASE_HOOKBIN --version" - "$BASE_NAME session-start" "$(hookenv "$bhome") $BASE_HOOKBIN session-start" "$bhome/payload.json")
	fi
	for bin in "$HOOKBIN:$home" ${BASE:+"$BASE_HOOKBIN:$bhome"}; do
		env $(hookenv "${bin#*:}") "${bin%%:*}" session-start <"${bin#*:}/payload.json" | grep -q additionalContext ||
			{ echo "${bin%%:*} session-start printed no pointer" >&2; exit 1; }
	done
	python3 "$WORK/timeit.py" "$HOOK_N" "${specs[@]}" >"$WORK/hook.json"
	python3 "$WORK/table.py" "$WORK/hook.json" --version
	python3 - "$WORK/hook.json" ${BASE:+"$BASE_NAME"} <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print()
for pre in [""] + [b + " " for b in sys.argv[2:]]:
    print(f"{pre}session-start / {pre}--version = {r[pre + 'session-start']['median'] / r[pre + '--version']['median']:.1f}x (target <= 10x)")
EOF
	if [[ -n $BASE ]]; then
		python3 "$WORK/ab.py" "$WORK/hook.json" session-start "$BASE_NAME session-start"
		python3 "$WORK/ab.py" "$WORK/hook.json" --version "$BASE_NAME --version"
	fi
	tail -n 3 "$home/mem/logs/bottle.log" | sed 's/^/log: /'
}

launcher() {
	say "plugin launcher: sh bin/bottle-run hookbin vs hookbin (N=$HOOK_N, alternating)"
	local plugin=$WORK/plugin home=$WORK/launcherhome id=5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11
	local arch
	arch=$(go env GOOS)-$(go env GOARCH)
	mkdir -p "$plugin/bin" "$plugin/libexec/$arch"
	cp "$ROOT/plugin/bin/bottle-run" "$plugin/bin/"
	cp "$HOOKBIN" "$WORK/bin/mcpserver" "$WORK/bin/pretooluse" "$plugin/libexec/$arch/"
	hookhome "$home" "$id" ""
	# pre-tool-use runs on every Read: one of a bottle (allowed, the path
	# resolved) and one of a project file (no decision).
	mkdir -p "$home/mem/bottles"
	echo "# Session bottle" >"$home/mem/bottles/$id.md"
	printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%s"}}\n' \
		"$id" "$home/proj" "$home/mem/bottles/$id.md" >"$home/read-bottle.json"
	printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%s"}}\n' \
		"$id" "$home/proj" "$home/proj/main.go" >"$home/read-other.json"
	sh "$plugin/bin/bottle-run" hookbin --version | grep -q '^hookbin ' || { echo "the launcher did not start hookbin" >&2; exit 1; }
	# The floor of any hook: a Go program that does nothing.
	mkdir -p "$WORK/empty"
	printf 'package main\n\nfunc main() {}\n' >"$WORK/empty/main.go"
	(cd "$WORK/empty" && GO111MODULE=off go build -o "$WORK/bin/empty" main.go)
	# The floor of pre-tool-use through the launcher: the same launcher
	# running an empty Go program in pretooluse's place.
	local floor=$WORK/floorplugin
	mkdir -p "$floor/bin" "$floor/libexec/$arch"
	cp "$ROOT/plugin/bin/bottle-run" "$floor/bin/"
	cp "$HOOKBIN" "$floor/libexec/$arch/"
	cp "$WORK/bin/empty" "$floor/libexec/$arch/pretooluse"
	env $(hookenv "$home") sh "$plugin/bin/bottle-run" hookbin pre-tool-use <"$home/read-bottle.json" | grep -q '"permissionDecision":"allow"' ||
		{ echo "pre-tool-use did not allow the Read of a bottle" >&2; exit 1; }
	python3 "$WORK/timeit.py" "$HOOK_N" \
		"--version" "$HOOKBIN --version" - \
		"launcher --version" "sh $plugin/bin/bottle-run hookbin --version" - \
		"session-start" "$(hookenv "$home") $HOOKBIN session-start" "$home/payload.json" \
		"launcher session-start" "$(hookenv "$home") sh $plugin/bin/bottle-run hookbin session-start" "$home/payload.json" \
		"empty Go program" "$WORK/bin/empty" - \
		"hookbin pre-tool-use" "$(hookenv "$home") $HOOKBIN pre-tool-use" "$home/read-bottle.json" \
		"pre-tool-use" "$(hookenv "$home") $WORK/bin/pretooluse" "$home/read-bottle.json" \
		"launcher pre-tool-use" "$(hookenv "$home") sh $plugin/bin/bottle-run hookbin pre-tool-use" "$home/read-bottle.json" \
		"launcher pre-tool-use (other Read)" "$(hookenv "$home") sh $plugin/bin/bottle-run hookbin pre-tool-use" "$home/read-other.json" \
		"launcher floor (an empty Go program as pretooluse)" "$(hookenv "$home") sh $floor/bin/bottle-run hookbin pre-tool-use" "$home/read-bottle.json" >"$WORK/launcher.json"
	python3 "$WORK/table.py" "$WORK/launcher.json" --version
	python3 - "$WORK/launcher.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print()
for cmd in ("--version", "session-start", "pre-tool-use"):
    d = r["launcher " + cmd]["median"] - r[cmd]["median"]
    print(f"launcher overhead on {cmd}: {d:+.2f} ms (medians {r['launcher ' + cmd]['median']:.2f} vs {r[cmd]['median']:.2f} ms; target <= 5 ms)")
for cmd in ("launcher pre-tool-use", "launcher pre-tool-use (other Read)"):
    print(f"{cmd}: median {r[cmd]['median']:.2f} ms per call (target <= 5 ms: it runs on every Read); "
          f"hookbin pre-tool-use {r['hookbin pre-tool-use']['median']:.2f} ms, an empty Go program {r['empty Go program']['median']:.2f} ms, "
          f"the launcher running an empty Go program {r['launcher floor (an empty Go program as pretooluse)']['median']:.2f} ms")
EOF
}

scaling() {
	say "scaling: render --budget 0 at four sizes (N=$N each)"
	local args=() sizes=(50M 100M 200M 400M)
	for s in "${sizes[@]}"; do
		if [[ $s == "$SIZE" && -f $WORK/big.jsonl ]]; then
			ln -sf "$WORK/big.jsonl" "$WORK/scale-$s.jsonl" # same size, same seed: the same file
		fi
		gen "$s" "$WORK/scale-$s.jsonl"
		args+=("$s" "$HOOKBIN render --budget 0 --out /dev/null $WORK/scale-$s.jsonl" -)
		if [[ -n $BASE ]]; then args+=("$s@base" "$BASE_HOOKBIN render --budget 0 --out /dev/null $WORK/scale-$s.jsonl" -); fi
	done
	python3 "$WORK/timeit.py" "$N" "${args[@]}" >"$WORK/scaling.json"
	python3 - "$WORK/scaling.json" "$WORK" ${BASE:+"$BASE_NAME"} <<'EOF'
import json, os, sys
r = json.load(open(sys.argv[1]))
if len(sys.argv) < 4:
    print("| transcript | bytes | median ms | MB/s | ms per 100 MB | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, v in r.items():
        size = os.path.getsize(os.path.join(sys.argv[2], f"scale-{name}.jsonl"))
        print(f"| {name} | {size} | {v['median']:.1f} | {size / 1e6 / (v['median'] / 1e3):.0f} | {v['median'] / (size / 1e8):.1f} | {v['rss']:.1f} |")
    sys.exit()
base = sys.argv[3]
print(f"| transcript | bytes | bottle median ms | {base} median ms | HEAD/base | bottle MB/s | base MB/s | bottle peak RSS MB | base peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, v in r.items():
    if name.endswith("@base"):
        continue
    b = r[name + "@base"]
    size = os.path.getsize(os.path.join(sys.argv[2], f"scale-{name}.jsonl"))
    mbs = lambda x: size / 1e6 / (x["median"] / 1e3)
    print(f"| {name} | {size} | {v['median']:.1f} | {b['median']:.1f} | {v['median'] / b['median']:.3f} | {mbs(v):.0f} | {mbs(b):.0f} | {v['rss']:.1f} | {b['rss']:.1f} |")
EOF
	say "scaling: claude-mem history (Go benchmarks; 100 observations per session)"
	gotest render 'RenderDB' -benchtime 100x
	gotest claudemem 'SessionScaling|Open$|QueryPlans' -benchtime 200x
	say "scaling: one prompt and 20,000 or 100,000 tool calls, 80,000 observations in one turn (Go benchmarks, default budget; tokens/op is the bottle's)"
	gotest render 'RenderRun|RenderObservations|MergeObservations' -benchtime 3x
}

mcp() {
	say "mcp: mcpserver over stdio, round trips after start-up (N=$HOOK_N each${BASE:+, alternating with $BASE_NAME})"
	local id=70d782f7-b303-4e48-9512-6bec16c37abd home=$WORK/mcphome src ids servers
	src=$CORPUS/transcripts/entireio-cli/$id.jsonl
	if [[ -f $src && -f $CORPUS/claude-mem/corpus.db ]]; then
		ids='["400","458","517"]'
	else
		id=5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11 src=
		ids='["t1","t2","t3"]'
		echo "corpus absent: a 4 MB synthetic transcript; tool-call ids instead of observations"
	fi
	hookhome "$home" "$id" "$src"
	servers=(bottle "$WORK/bin/mcpserver" "$home")
	if [[ -n $BASE && -n $BASE_MCP ]]; then
		hookhome "$WORK/mcphome-base" "$id" "$src"
		servers+=("$BASE_NAME" "$BASE_MCP" "$WORK/mcphome-base")
	elif [[ -n $BASE ]]; then
		echo "$BASE_NAME has no mcpserver: the working tree's alone"
	fi
	python3 - "$id" "$ids" "$HOOK_N" "${servers[@]}" <<'EOF2'
import json, os, statistics, subprocess, sys, time
sid, ids, n = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
specs = [sys.argv[i:i + 3] for i in range(4, len(sys.argv), 3)]
class Server:
    def __init__(self, path, home):
        env = dict(os.environ, HOME=home, CLAUDE_CONFIG_DIR=home + "/.claude", CLAUDE_MEM_DATA_DIR=home + "/mem", BOTTLE_DIR="")
        t0 = time.perf_counter()
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=home + "/proj")
        self.rid = 0
        self.rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        self.start = (time.perf_counter() - t0) * 1000
        self.rpc("notifications/initialized", {}, True)
        self.rpc("tools/list", {})
    def rpc(self, method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self.rid += 1; msg["id"] = self.rid
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        if notify:
            return None
        line = self.p.stdout.readline()
        r = json.loads(line)
        if r.get("id") != self.rid or "error" in r:
            sys.exit(f"{method}: {line[:300]!r}")
        return r["result"]
servers = [(name, Server(path, home)) for name, path, home in specs]
calls = {"read_bottle": {"session_id": sid}, "expand_observation": {"ids": ids, "session_id": sid}}
res = {}
for name, args in calls.items():
    for _, s in servers:
        r = s.rpc("tools/call", {"name": name, "arguments": args})  # warm-up (read_bottle renders the bottle)
        if r.get("isError"):
            sys.exit(f"{name}: {r}")
    ts = {sn: [] for sn, _ in servers}
    for i in range(n):
        k = i % len(servers)
        for sn, s in servers[k:] + servers[:k]:
            t = time.perf_counter(); s.rpc("tools/call", {"name": name, "arguments": args}); ts[sn].append((time.perf_counter() - t) * 1000)
    res[name] = ts
for _, s in servers:
    s.p.stdin.close(); s.p.wait()
if len(servers) == 1:
    ts = {name: v["bottle"] for name, v in res.items()}
    print(f"start-up (spawn -> initialize answer): {servers[0][1].start:.1f} ms")
    print("| tool call (stdio round trip) | median ms | min–max ms |")
    print("|---|---:|---:|")
    for name, t in ts.items():
        print(f"| {name} | {statistics.median(t):.2f} | {min(t):.2f}–{max(t):.2f} |")
    sys.exit()
head, base = servers[0][0], servers[1][0]
for sn, s in servers:
    print(f"{sn} start-up (spawn -> initialize answer): {s.start:.1f} ms (one run)")
print(f"| tool call (stdio round trip) | server | median ms | min–max ms | HEAD/base |")
print("|---|---|---:|---:|---:|")
for name, v in res.items():
    for sn in (head, base):
        t = v[sn]
        ratio = f"{statistics.median(v[head]) / statistics.median(v[base]):.3f}" if sn == head else ""
        print(f"| {name} | {sn} | {statistics.median(t):.2f} | {min(t):.2f}–{max(t):.2f} | {ratio} |")
EOF2
	say "mcp: Go benchmarks (in process)"
	gotest tools . -benchmem
}

gobench() {
	say "Go benchmarks"
	gotest render 'ReadTranscript|RenderScaling|WriteBottle|BlockMasks|ScanChunk' -benchmem
	gotest claudemem 'Session$|Sessions|Observations' -benchmem
	gotest hookbin . -benchmem
}

search() {
	say "search: search_history and list_sessions over stdio, rg -c as the floor"
	command -v rg >/dev/null || { echo "installing ripgrep" >&2; apt-get install -y ripgrep >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y ripgrep >/dev/null; }; }
	if [[ ! -f $CORPUS/claude-mem/corpus.db ]]; then echo "corpus absent: search part skipped"; return; fi
	local big=$WORK/search-big.jsonl
	gen "${BENCH_SEARCH_SIZE:-400M}" "$big"
	python3 - "$WORK/bin/mcpserver" "$CORPUS" "$WORK/searchhome" "$big" "${BENCH_SEARCH_STARTS:-10}" ${BASE_MCP:+"$BASE_NAME" "$BASE_MCP"} <<'EOF2'
import json, os, re, shutil, statistics, subprocess, sys, time
server, corpus, home, big, starts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
# Each server measured, in alternation: bottle (the working tree) and, with
# BENCH_BASE, the base's; each has a home of its own (the same files).
SERVERS = [("bottle", server)] + ([(sys.argv[6], sys.argv[7])] if len(sys.argv) > 7 else [])
SESSION = "70d782f7-b303-4e48-9512-6bec16c37abd"
PROJECT = "/Users/soph/Work/entire/devenv/cli"
BIG = "99999999-0000-4000-8000-000000000400"
QUERIES = ["go test", "error", "checkpoint", "func", "git commit", "README", "session", "TODO", "panic", "strategy",
           "\"go build\"", "worktree", "import", "hook", "transcript", "config -test", "lint", "main.go", "metadata", "rewind"]
def dirname(cwd):  # locate.ProjectDirName for ASCII paths
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)
def make_home(home):
    shutil.rmtree(home, ignore_errors=True)
    proj = os.path.join(home, "proj")     # the server's working directory: the largest project's sessions
    os.makedirs(proj); os.makedirs(os.path.join(home, "mem")); os.makedirs(os.path.join(home, "bigproj"))
    projects = os.path.join(home, ".claude", "projects")
    files = {"session": [], "project": [], "all": []}
    for d in sorted(os.listdir(os.path.join(corpus, "transcripts"))):
        full = os.path.join(corpus, "transcripts", d)
        if not os.path.isdir(full): continue
        for name in sorted(os.listdir(full)):
            if not name.endswith(".jsonl"): continue
            src = os.path.join(full, name)
            cwd = ""
            with open(src) as f:
                for line in f:
                    m = re.search(r'"cwd":"([^"]*)"', line)
                    if m: cwd = m.group(1); break
            target = proj if cwd == PROJECT else cwd
            dst = os.path.join(projects, dirname(target))
            os.makedirs(dst, exist_ok=True)
            shutil.copy(src, os.path.join(dst, name))
            files["all"].append(os.path.join(dst, name))
            if cwd == PROJECT: files["project"].append(os.path.join(dst, name))
            if name == SESSION + ".jsonl": files["session"].append(os.path.join(dst, name))
    # The synthetic transcript has a config folder of its own, outside the corpus's scopes.
    bigdir = os.path.join(home, "bigconfig", "projects", dirname(os.path.join(home, "bigproj")))
    os.makedirs(bigdir)
    os.link(big, os.path.join(bigdir, BIG + ".jsonl")) if os.stat(big).st_dev == os.stat(bigdir).st_dev else shutil.copy(big, os.path.join(bigdir, BIG + ".jsonl"))
    shutil.copy(os.path.join(corpus, "claude-mem", "corpus.db"), os.path.join(home, "mem", "claude-mem.db"))
    return proj, files, bigdir
homes = {}
for i, (name, _) in enumerate(SERVERS):
    homes[name] = (home + ("" if i == 0 else f"-{i}"),) + make_home(home + ("" if i == 0 else f"-{i}"))
_, proj, files, bigdir = homes["bottle"]
print(f"corpus: {len(files['all'])} transcripts, {sum(os.path.getsize(f) for f in files['all']) / 1e6:.1f} MB; "
      f"project {PROJECT}: {len(files['project'])} sessions, {sum(os.path.getsize(f) for f in files['project']) / 1e6:.1f} MB; "
      f"session {SESSION[:8]}: {os.path.getsize(files['session'][0]) / 1e6:.1f} MB; synthetic {os.path.getsize(big) / 1e6:.0f} MB")
class Server:
    def __init__(self, which, cwd, config=None):
        h = homes[which][0]
        env = dict(os.environ, HOME=h, CLAUDE_CONFIG_DIR=h + "/.claude", CLAUDE_MEM_DATA_DIR=h + "/mem", BOTTLE_DIR="")
        if config: env["CLAUDE_CONFIG_DIR"] = config
        self.p = subprocess.Popen([dict(SERVERS)[which]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd)
        self.rid = 0
        self.rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        self.rpc("notifications/initialized", {}, True)
    def rpc(self, method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self.rid += 1; msg["id"] = self.rid
        self.p.stdin.write((json.dumps(msg) + "\n").encode()); self.p.stdin.flush()
        if notify: return None
        line = self.p.stdout.readline(); r = json.loads(line)
        if r.get("id") != self.rid or "error" in r: sys.exit(f"{method}: {line[:300]!r}")
        return r["result"]
    def call(self, name, args):
        t = time.perf_counter(); r = self.rpc("tools/call", {"name": name, "arguments": args}); ms = (time.perf_counter() - t) * 1000
        if r.get("isError"): sys.exit(f"{name} {args}: {r}")
        return ms, r["content"][0]["text"]
    def hwm(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            return int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) / 1024
    def close(self):
        h = self.hwm(); self.p.stdin.close(); self.p.wait(); return h
def rg(paths, q):
    word = q.replace('"', "").split()[0]
    t = time.perf_counter(); subprocess.run(["rg", "-c", "-i", "-F", "--", word] + paths, stdout=subprocess.DEVNULL); return (time.perf_counter() - t) * 1000
def order(i):  # alternate which server goes first
    names = [n for n, _ in SERVERS]
    return names if i % 2 == 0 else names[::-1]
def where(which, scope):
    _, p, fs, _ = homes[which]
    return {"session": p, "project": p, "all": p}[scope]
hwm = {n: [] for n, _ in SERVERS}
rows = {n: [] for n, _ in SERVERS}
scopes = [("session 70d782f7 (4 MB)", "session", {"session_id": SESSION}, 10, 2),
          ("project (5 sessions, 10 MB)", "project", {"scope": "project"}, 30, 3),
          ("all (25 sessions, 35 MB, + claude-mem)", "all", {"scope": "all"}, 60, 5)]
for name, scope, args, tfirst, trep in scopes:
    first = {n: [] for n, _ in SERVERS}
    for i in range(starts):
        for w in order(i):
            s = Server(w, where(w, scope)); ms, text = s.call("search_history", dict(args, query="checkpoint")); first[w].append(ms); hwm[w].append(s.close())
    srv = {w: Server(w, where(w, scope)) for w, _ in SERVERS}
    for w in srv: srv[w].call("search_history", dict(args, query="checkpoint"))
    rep = {n: [] for n, _ in SERVERS}
    hits = {n: 0 for n, _ in SERVERS}
    recs = {}
    for k in range(3):  # three rounds of the 20 queries, alternating
        for qi, q in enumerate(QUERIES):
            for w in order(k * len(QUERIES) + qi):
                ms, text = srv[w].call("search_history", dict(args, query=q)); rep[w].append(ms)
                m = re.search(r": ([0-9,]+) of ([0-9,]+) records matched", text)
                if k == 0: hits[w] += int(m.group(1).replace(",", ""))
                recs[w] = m.group(2)
    for w in srv: hwm[w].append(srv[w].close())
    floor = statistics.median(rg(files[scope], q) for q in QUERIES)
    for w, _ in SERVERS:
        rows[w].append((name, statistics.median(first[w]), tfirst, statistics.median(rep[w]), trep, floor, recs[w], hits[w]))
# list_sessions
lf, lr = {n: [] for n, _ in SERVERS}, {n: [] for n, _ in SERVERS}
for i in range(starts):
    for w in order(i):
        s = Server(w, homes[w][1]); ms, _ = s.call("list_sessions", {}); lf[w].append(ms); hwm[w].append(s.close())
srv = {w: Server(w, homes[w][1]) for w, _ in SERVERS}
for w in srv: srv[w].call("list_sessions", {})
for i in range(20):
    for w in order(i): lr[w].append(srv[w].call("list_sessions", {})[0])
for w in srv: hwm[w].append(srv[w].close())
# the synthetic transcript
bf, bh = {n: [] for n, _ in SERVERS}, {n: [] for n, _ in SERVERS}
for i in range(min(starts, 3)):
    for w in order(i):
        h = homes[w][0]
        s = Server(w, os.path.join(h, "bigproj"), os.path.join(h, "bigconfig")); ms, text = s.call("search_history", {"query": "checkpoint"}); bf[w].append(ms); bh[w].append(s.close())
bfloor = statistics.median(rg([os.path.join(bigdir, BIG + ".jsonl")], q) for q in QUERIES[:5])
big_name = f"synthetic {os.path.getsize(big) / 1e6:.0f} MB transcript{' (streamed: over 64 MB)' if os.path.getsize(big) > 64 << 20 else ''}"
for w, _ in SERVERS:
    print()
    if len(SERVERS) > 1: print(f"{w}:")
    print("| search_history over stdio | first after initialize, median ms | target | repeated, median of 20 queries × 3 ms | target | rg -c floor, median ms | records | hits of the 20 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, f, tf, r, tr, fl, recs_, h in rows[w]:
        print(f"| {name} | {f:.1f} | ≤ {tf} | {r:.2f} | ≤ {tr} | {fl:.1f} | {recs_} | {h} |")
    print(f"| {big_name} | {statistics.median(bf[w]):.0f} | ≤ 1000 | — | — | {bfloor:.0f} | | |")
    print()
    print(f"list_sessions (project, 5 sessions): first after initialize {statistics.median(lf[w]):.1f} ms, repeated {statistics.median(lr[w]):.2f} ms (target ≤ 20)")
    print(f"mcpserver peak RSS (VmHWM) on the corpus: max {max(hwm[w]):.1f} MB, median {statistics.median(hwm[w]):.1f} MB (target ≤ 64); "
          f"with the synthetic transcript {max(bh[w]):.1f} MB")
if len(SERVERS) > 1:
    b = SERVERS[1][0]
    print()
    print(f"| row, bottle ÷ {b} (medians) | first | repeated |")
    print("|---|--:|--:|")
    for (name, f, _, r, _, _, _, _), (_, fb, _, rb, _, _, _, _) in zip(rows["bottle"], rows[b]):
        print(f"| {name} | {f / fb:.3f} | {r / rb:.3f} |")
    print(f"| {big_name} | {statistics.median(bf['bottle']) / statistics.median(bf[b]):.3f} | — |")
    print(f"| list_sessions | {statistics.median(lf['bottle']) / statistics.median(lf[b]):.3f} | {statistics.median(lr['bottle']) / statistics.median(lr[b]):.3f} |")
EOF2
}

scale() {
	say "scale: search over generated histories of ${BENCH_SCALE_SIZES:-25 300 1000} sessions, rg -c -i -F as the floor"
	command -v rg >/dev/null || { echo "installing ripgrep" >&2; apt-get install -y ripgrep >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y ripgrep >/dev/null; }; }
	python3 - "$WORK" "${BENCH_SCALE_SIZES:-25 300 1000}" <<'EOF2'
import json, os, re, shutil, statistics, subprocess, sys, time, random, concurrent.futures as cf
work, sizes = sys.argv[1], [int(x) for x in sys.argv[2].split()]
gen, hookbin, server = f"{work}/bin/gentranscript", f"{work}/bin/hookbin", f"{work}/bin/mcpserver"
src = os.environ.get("BENCH_SCALE_SRC") or f"{work}/scale/src"  # BENCH_SCALE_SRC: keep the generated sessions between runs
os.makedirs(src, exist_ok=True)
N = max(sizes)
def dirname(cwd): return re.sub(r"[^A-Za-z0-9]", "-", cwd)
def sid(i): return f"5ca1e000-0000-4000-8000-{i:012d}"
rnd = random.Random(29)
mb = [rnd.uniform(3, 8) for _ in range(N)]
def one(i):
    p = f"{src}/{sid(i)}.jsonl"
    if not os.path.exists(p):
        subprocess.run([gen, "-size", f"{mb[i]:.2f}M", "-seed", str(i + 1), "-session", sid(i), "-o", p + ".tmp"], check=True, stderr=subprocess.DEVNULL)
        os.rename(p + ".tmp", p)
t = time.time()
with cf.ThreadPoolExecutor(os.cpu_count() or 2) as ex: list(ex.map(one, range(N)))
print(f"generated {N} sessions ({sum(os.path.getsize(f'{src}/{sid(i)}.jsonl') for i in range(N)) / 1e9:.2f} GB) in {time.time() - t:.0f} s")
def turn(i, text, reply):
    # A genuine prompt and a reply, chained to the transcript's last line.
    p = f"{src}/{sid(i)}.jsonl"
    with open(p, "rb") as f:
        f.seek(max(0, os.path.getsize(p) - 200000)); last = json.loads(f.read().splitlines()[-1])
    u1, u2 = f"0000aaaa-0000-4000-8000-{rnd.randrange(1 << 40):012x}", f"0000bbbb-0000-4000-8000-{rnd.randrange(1 << 40):012x}"
    env = {k: last[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch") if k in last}
    ts = "2026-02-01T10:00:00.000Z"
    lines = [dict(env, parentUuid=last.get("uuid"), type="user", message={"role": "user", "content": text}, uuid=u1, timestamp=ts),
             dict(env, parentUuid=u1, type="assistant", uuid=u2, timestamp=ts, requestId="req_x",
                  message={"model": "claude-opus-4-5-20251101", "id": "msg_" + u2[-12:], "type": "message", "role": "assistant",
                           "content": [{"type": "text", "text": reply}], "stop_reason": None, "stop_sequence": None,
                           "usage": {"input_tokens": 1, "output_tokens": 1}})]
    with open(p, "a") as f:
        for l in lines: f.write(json.dumps(l) + "\n")
# A rare word in three sessions of every size.
for i in (0, 7, 20):
    if i < N and b"quokka" not in open(f"{src}/{sid(i)}.jsonl", "rb").read()[-4000:]:
        turn(i, f"why does the quokka test {i} fail?", "The quokka fixture is stale.")
def med(xs): return statistics.median(xs)
def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ms = (time.perf_counter() - t) * 1000
    if r.returncode != 0: sys.exit(f"{cmd}: {r.stderr[-500:]}")
    return ms, int(r.stderr.strip().splitlines()[-1]) / 1024, r.stdout
WORDS = [("rare", "quokka"), ("common", "checkpoint"), ("phrase", '"if err != nil"'), ("two letters", "go")]
rows = []
for n in sizes:
    home = f"{work}/scale/h{n}"
    shutil.rmtree(home, ignore_errors=True)
    projects = f"{home}/.claude/projects"
    cwds = [f"{home}/p{k:02d}" for k in range(30)]
    for c in cwds: os.makedirs(c); os.makedirs(f"{projects}/{dirname(c)}")
    files = []
    for i in range(n):
        d = f"{projects}/{dirname(cwds[i % 30])}/{sid(i)}.jsonl"
        os.link(f"{src}/{sid(i)}.jsonl", d); files.append(d)
    raw = sum(os.path.getsize(f) for f in files)
    env = dict(os.environ, HOME=home, CLAUDE_CONFIG_DIR=f"{home}/.claude", CLAUDE_MEM_DATA_DIR=f"{home}/mem", BOTTLE_DIR="")
    os.makedirs(f"{home}/mem")
    index = f"{home}/mem/search/index.db"
    def size(): return sum(os.path.getsize(index + s) for s in ("", "-wal") if os.path.exists(index + s))
    out = {"n": n, "raw": raw}
    out["rg"] = {name: med([timed(["rg", "-c", "-i", "-F", "--", w.strip('"'), projects])[0] for _ in range(3)]) for name, w in WORDS}
    out["scan"] = {name: timed([hookbin, "search", w, "--all"], dict(env, BOTTLE_SEARCH_INDEX="off")) for name, w in WORDS[:2]}
    ms, rss, _ = timed([hookbin, "search", "quokka", "--all"], env)
    out["build"], out["build_rss"], out["index"] = ms, rss, size()
    rep, rsss = {}, [rss]
    for name, w in WORDS:
        ts = []
        for _ in range(3):
            ms, rss, text = timed([hookbin, "search", w, "--all"], env); ts.append(ms); rsss.append(rss)
        rep[name] = med(ts)
    out["rep"] = rep
    inc = []
    for k in range(3):
        turn(3 + k, f"one more turn {k}: where is the flaky test?", "In the checkpoint package.")
        ms, rss, _ = timed([hookbin, "search", "quokka", "--all"], env); inc.append(ms); rsss.append(rss)
    out["inc"], out["hookbin_rss"] = med(inc), max(rsss)
    out["list"] = med([timed([hookbin, "list"], env)[0] for _ in range(3)])
    # mcpserver: first call after start and repeated calls, per scope.
    class Server:
        def __init__(s, cwd):
            s.p = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd); s.rid = 0
            s.rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
            s.rpc("notifications/initialized", {}, True)
        def rpc(s, method, params, notify=False):
            msg = {"jsonrpc": "2.0", "method": method, "params": params}
            if not notify: s.rid += 1; msg["id"] = s.rid
            s.p.stdin.write((json.dumps(msg) + "\n").encode()); s.p.stdin.flush()
            if notify: return None
            r = json.loads(s.p.stdout.readline())
            if "error" in r: sys.exit(f"{method}: {r}")
            return r["result"]
        def call(s, name, args):
            t = time.perf_counter(); r = s.rpc("tools/call", {"name": name, "arguments": args}); ms = (time.perf_counter() - t) * 1000
            if r.get("isError"): sys.exit(f"{name} {args}: {r}")
            return ms
        def close(s):
            with open(f"/proc/{s.p.pid}/status") as f: h = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) / 1024
            s.p.stdin.close(); s.p.wait(); return h
    mcp, hw = {}, []
    for scope, args in (("session", {"session_id": sid(0)}), ("project", {"scope": "project"}), ("all", {"scope": "all"})):
        first = []
        for _ in range(3):
            s = Server(cwds[0]); first.append(s.call("search_history", dict(args, query="quokka"))); hw.append(s.close())
        s = Server(cwds[0]); s.call("search_history", dict(args, query="quokka"))
        r = {name: med([s.call("search_history", dict(args, query=w)) for _ in range(3)]) for name, w in WORDS}
        hw.append(s.close())
        mcp[scope] = (med(first), r)
    s = Server(cwds[0]); lf = s.call("list_sessions", {}); lr = med([s.call("list_sessions", {}) for _ in range(3)]); hw.append(s.close())
    out["mcp"], out["ls"], out["mcp_rss"] = mcp, (lf, lr), max(hw)
    rows.append(out)
    shutil.rmtree(home)
    r = out
    print(f"\n### {n} sessions, {r['raw'] / 1e9:.2f} GB of transcripts")
    print(f"index build (first `hookbin search --all`): {r['build'] / 1000:.1f} s, {r['raw'] / 1e6 / (r['build'] / 1000):.0f} MB/s (target >= 100); "
          f"index {r['index'] / 1e6:.0f} MB = {100 * r['index'] / r['raw']:.0f} % of the source (target <= 30 %); peak RSS {r['build_rss']:.0f} MB")
    print("| `hookbin search W --all` | rg -c -i -F floor ms | no index (scan), one run ms | index, repeated, median ms | ÷ rg |")
    print("|---|--:|--:|--:|--:|")
    for name, w in WORDS:
        sc = f"{r['scan'][name][0]:.0f}" if name in r["scan"] else "—"
        print(f"| {name} `{w}` | {r['rg'][name]:.0f} | {sc} | {r['rep'][name]:.0f} | {r['rep'][name] / r['rg'][name]:.1f} |")
    print(f"after one appended turn (update + rare search), median of 3: {r['inc']:.0f} ms (the rare search alone {r['rep']['rare']:.0f} ms; update target <= 50 ms)")
    print(f"`hookbin list`: {r['list']:.0f} ms (target <= 100); hookbin peak RSS {r['hookbin_rss']:.0f} MB, without the index {max(v[1] for v in r['scan'].values()):.0f} MB (target <= 64)")
    print("| mcpserver search_history | first call after start, rare word ms | repeated: rare | common | phrase | two letters |")
    print("|---|--:|--:|--:|--:|--:|")
    for scope, (f, rr) in r["mcp"].items():
        print(f"| {scope} | {f:.0f} | {rr['rare']:.0f} | {rr['common']:.0f} | {rr['phrase']:.0f} | {rr['two letters']:.0f} |")
    print(f"list_sessions: first {r['ls'][0]:.0f} ms, repeated {r['ls'][1]:.0f} ms; mcpserver peak RSS {r['mcp_rss']:.0f} MB (target <= 64)")
    sys.stdout.flush()
EOF2
}

for part in $PARTS; do
	case $part in
	throughput) throughput ;;
	hook) hook ;;
	scaling) scaling ;;
	mcp) mcp ;;
	go) gobench ;;
	search) search ;;
	scale) scale ;;
	launcher) launcher ;;
	*) echo "unknown part $part (throughput, hook, scaling, mcp, go, search, scale, launcher)" >&2; exit 2 ;;
	esac
done
