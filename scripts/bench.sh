#!/usr/bin/env bash
# bench.sh — bottle's performance benchmarks (README "Performance").
#
#   scripts/bench.sh                 # everything, N=7 runs per throughput command
#   BENCH_N=11 BENCH_SIZE=200M scripts/bench.sh
#   scripts/bench.sh throughput      # one part: throughput | hook | scaling | mcp | go
#
# Everything is built and generated in a temp dir (removed at exit; set
# BENCH_KEEP=1 to keep it). The commands of a comparison run in alternation
# (A B C D, B C D A, ...) so that noise from other processes hits them
# alike; the tables show medians.
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
#               observations in claude-mem's database, and the query plans.
#   mcp         mcpserver over stdio (the real binary, OS pipes): read_bottle
#               and expand_observation round trips after start-up, on the
#               corpus session with a copy of the corpus database; the Go
#               benchmarks of expand_observation with 2,000 and 200,000
#               observations and of read_bottle over the stdio transport.
#   go          the Go benchmarks of the reader, the renderer, the database
#               and the hooks.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${BENCH_N:-11}
SIZE=${BENCH_SIZE:-400M}
HOOK_N=${BENCH_HOOK_N:-40}
PARTS=${*:-throughput hook scaling mcp go}
CORPUS=${BOTTLE_CORPUS:-$ROOT/../shared/corpus}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bottle-bench.XXXXXX")
if [[ -z ${BENCH_KEEP:-} ]]; then trap 'rm -rf "$WORK"' EXIT; else echo "work dir: $WORK"; fi

# benchlines keeps the result lines of go test -bench (and the plans it logs).
benchlines() { grep -E '^Benchmark|bench_test|FAIL|panic' || true; }

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
HOOKBIN=$WORK/bin/hookbin
echo "go $(go env GOVERSION), $(nproc) CPUs, $(uname -sr)"

# timeit.py N name 'command' stdin|- ... : runs the commands in rotating
# alternation N times each, directly (no shell, no wrapper), and prints
# medians. The peak RSS comes from one more run of each under
# /usr/bin/time, untimed: a wrapper in the timed runs would add its own
# start-up to every run (milliseconds, much of the fastest command's
# ratio), and wait4's ru_maxrss of a child spawned straight from Python
# counts Python's own memory, shared until the exec.
cat >"$WORK/timeit.py" <<'EOF'
import os, sys, time, statistics, shlex, json
def run(argv, stdin):
    fin = os.open(stdin or os.devnull, os.O_RDONLY)
    fout = os.open(os.devnull, os.O_WRONLY)
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, fin, 0), (os.POSIX_SPAWN_DUP2, fout, 1)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    os.close(fin); os.close(fout)
    return (t1 - t0) * 1000, status, (ru.ru_utime + ru.ru_stime) * 1000
def peak_rss(argv, stdin):
    if not os.path.exists("/usr/bin/time"):
        return None
    rfile = os.path.join(os.environ["WORK"], "rss")
    fin = os.open(stdin or os.devnull, os.O_RDONLY)
    fout = os.open(os.devnull, os.O_WRONLY)
    argv = ["/usr/bin/time", "-f", "%M", "-o", rfile] + argv
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, fin, 0), (os.POSIX_SPAWN_DUP2, fout, 1)])
    os.waitpid(pid, 0)
    os.close(fin); os.close(fout)
    with open(rfile) as f:
        return int(f.read().strip().splitlines()[-1]) / 1024
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
	cat "$big" >/dev/null # warm the page cache
	python3 "$WORK/timeit.py" "$N" \
		"bottle" "$HOOKBIN render --budget 0 --out /dev/null $big" - \
		"node" "node $WORK/extract.js $big" - \
		"jq" "jq -r -f $WORK/extract.jq $big" - \
		"cat" "cat $big" - >"$WORK/throughput.json"
	python3 "$WORK/table.py" "$WORK/throughput.json" node
	python3 - "$WORK/throughput.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
b = r["bottle"]["median"]
print(f"\nbottle/node = {b / r['node']['median']:.3f} (target <= 0.15), bottle/jq = {b / r['jq']['median']:.3f} (target <= 0.12), "
      f"bottle peak RSS {r['bottle']['rss']:.1f} MB (target <= 64)")
EOF
}

hook() {
	say "hook latency: session-start (compact) vs --version (N=$HOOK_N, alternating)"
	local id=70d782f7-b303-4e48-9512-6bec16c37abd home=$WORK/hookhome
	local src=$CORPUS/transcripts/entireio-cli/$id.jsonl
	mkdir -p "$home/.claude/projects/-bench" "$home/mem"
	if [[ -f $src && -f $CORPUS/claude-mem/corpus.db ]]; then
		cp "$src" "$home/.claude/projects/-bench/$id.jsonl"
		# A copy: SQLite would create -shm files next to the shared database.
		cp "$CORPUS/claude-mem/corpus.db" "$home/mem/claude-mem.db"
		echo "corpus transcript $id ($(wc -c <"$src") bytes) with a copy of corpus.db"
	else
		id=5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11
		"$WORK/bin/gentranscript" -size 4M -o "$home/.claude/projects/-bench/$id.jsonl" 2>/dev/null
		echo "corpus absent: a 4 MB synthetic transcript, no database"
	fi
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"compact"}\n' \
		"$id" "$home/.claude/projects/-bench/$id.jsonl" "$home" >"$WORK/payload.json"
	HOME=$home CLAUDE_CONFIG_DIR=$home/.claude CLAUDE_MEM_DATA_DIR=$home/mem BOTTLE_DIR= \
		"$HOOKBIN" session-start <"$WORK/payload.json" | grep -q additionalContext || { echo "session-start printed no pointer" >&2; exit 1; }
	HOME=$home CLAUDE_CONFIG_DIR=$home/.claude CLAUDE_MEM_DATA_DIR=$home/mem BOTTLE_DIR= python3 "$WORK/timeit.py" "$HOOK_N" \
		"--version" "$HOOKBIN --version" - \
		"session-start" "$HOOKBIN session-start" "$WORK/payload.json" >"$WORK/hook.json"
	python3 "$WORK/table.py" "$WORK/hook.json" --version
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f\"\nsession-start / --version = {r['session-start']['median']/r['--version']['median']:.1f}x (target <= 10x)\")" "$WORK/hook.json"
	tail -n 3 "$home/mem/logs/bottle.log" | sed 's/^/log: /'
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
	done
	python3 "$WORK/timeit.py" "$N" "${args[@]}" >"$WORK/scaling.json"
	python3 - "$WORK/scaling.json" "$WORK" <<'EOF'
import json, os, sys
r = json.load(open(sys.argv[1]))
print("| transcript | bytes | median ms | MB/s | ms per 100 MB | peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|")
for name, v in r.items():
    size = os.path.getsize(os.path.join(sys.argv[2], f"scale-{name}.jsonl"))
    print(f"| {name} | {size} | {v['median']:.1f} | {size / 1e6 / (v['median'] / 1e3):.0f} | {v['median'] / (size / 1e8):.1f} | {v['rss']:.1f} |")
EOF
	say "scaling: claude-mem history (Go benchmarks; 100 observations per session)"
	go test ./render -run '^$' -bench 'RenderDB' -benchtime 100x | benchlines
	go test ./render/claudemem -run '^$' -bench 'SessionScaling|Open$|QueryPlans' -benchtime 200x | benchlines
}

mcp() {
	say "mcp: mcpserver over stdio, round trips after start-up (N=$HOOK_N each)"
	local id=70d782f7-b303-4e48-9512-6bec16c37abd home=$WORK/mcphome src ids
	src=$CORPUS/transcripts/entireio-cli/$id.jsonl
	mkdir -p "$home/.claude/projects/-bench" "$home/mem" "$home/proj"
	if [[ -f $src && -f $CORPUS/claude-mem/corpus.db ]]; then
		cp "$src" "$home/.claude/projects/-bench/$id.jsonl"
		cp "$CORPUS/claude-mem/corpus.db" "$home/mem/claude-mem.db"
		ids='["400","458","517"]'
	else
		id=5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11
		"$WORK/bin/gentranscript" -size 4M -o "$home/.claude/projects/-bench/$id.jsonl" 2>/dev/null
		ids='["t1","t2","t3"]'
		echo "corpus absent: a 4 MB synthetic transcript; tool-call ids instead of observations"
	fi
	(cd "$home/proj" && HOME=$home CLAUDE_CONFIG_DIR=$home/.claude CLAUDE_MEM_DATA_DIR=$home/mem BOTTLE_DIR= \
		python3 - "$WORK/bin/mcpserver" "$id" "$ids" "$HOOK_N" <<'EOF2'
import json, os, statistics, subprocess, sys, time
server, sid, ids, n = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
t0 = time.perf_counter()
p = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
rid = 0
def rpc(method, params, notify=False):
    global rid
    msg = {"jsonrpc": "2.0", "method": method, "params": params}
    if not notify:
        rid += 1; msg["id"] = rid
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()
    if notify:
        return None
    line = p.stdout.readline()
    r = json.loads(line)
    if r.get("id") != rid or "error" in r:
        sys.exit(f"{method}: {line[:300]!r}")
    return r["result"]
rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
start = (time.perf_counter() - t0) * 1000
rpc("notifications/initialized", {}, True)
rpc("tools/list", {})
calls = {"read_bottle": {"session_id": sid}, "expand_observation": {"ids": ids, "session_id": sid}}
res = {}
for name, args in calls.items():
    r = rpc("tools/call", {"name": name, "arguments": args})  # warm-up (read_bottle renders the bottle)
    if r.get("isError"):
        sys.exit(f"{name}: {r}")
    ts = []
    for _ in range(n):
        t = time.perf_counter(); rpc("tools/call", {"name": name, "arguments": args}); ts.append((time.perf_counter() - t) * 1000)
    res[name] = ts
p.stdin.close(); p.wait()
print(f"start-up (spawn -> initialize answer): {start:.1f} ms")
print("| tool call (stdio round trip) | median ms | min–max ms |")
print("|---|---:|---:|")
for name, ts in res.items():
    print(f"| {name} | {statistics.median(ts):.2f} | {min(ts):.2f}–{max(ts):.2f} |")
EOF2
	)
	say "mcp: Go benchmarks (in process)"
	go test ./tools -run '^$' -bench . -benchmem | benchlines
}

gobench() {
	say "Go benchmarks"
	go test ./render -run '^$' -bench 'ReadTranscript|RenderScaling|WriteBottle|BlockMasks|ScanChunk' -benchmem | benchlines
	go test ./render/claudemem -run '^$' -bench 'Session$|Sessions|Observations' -benchmem | benchlines
	go test ./hookbin -run '^$' -bench . -benchmem | benchlines
}

for part in $PARTS; do
	case $part in
	throughput) throughput ;;
	hook) hook ;;
	scaling) scaling ;;
	mcp) mcp ;;
	go) gobench ;;
	*) echo "unknown part $part (throughput, hook, scaling, mcp, go)" >&2; exit 2 ;;
	esac
done
