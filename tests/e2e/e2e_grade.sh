#!/usr/bin/env bash
# End-to-end tests of `mdat grade` and `mdat merge` on the sample class in
# tests/grade (one submission per verdict). One test per invocation:
#   e2e_grade.sh MDAT TARGET_DIR GRADE_DIR GRADE_SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 GRADE=$3 SOURCES=$4 TEST=$5
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# The class, copied into this test's scratch directory so that what runs
# of it (and what must not be left running) is told apart from the
# gradings of tests running at the same time; in the order of the reports.
CLASS=$WORK/class-of-$TEST
mkdir -p "$CLASS"
cp "$GRADE"/{alice,bob,carol,dave,erin,frank,grace,heidi,ivan} "$CLASS"/
cp -r "$SOURCES/judy" "$SOURCES/mallory" "$CLASS"/
# grace, who hangs in a real system call, is graded apart (isolation): she
# costs the whole --timeout in every schedule, and a timeout short enough
# for that would also catch correct programs on a loaded machine.
SUBS=("$CLASS/alice" "$CLASS/bob" "$CLASS/carol" "$CLASS/dave" "$CLASS/erin" "$CLASS/frank" "$CLASS/heidi"
      "$CLASS/ivan" "$CLASS/judy" "$CLASS/mallory")
# Few schedules keep each grading to a few seconds; the step limit leaves
# room for frank's spin to show itself a livelock (a spinner must be seen
# going round in circles while every thread takes its turn). The races of
# carol and frank are judged apart (verdicts): with the detector off, each
# submission shows the consequence its verdict is about.
OPTS=(-n 8 -s 1 -j 2 --timeout 5 --max-steps 30000 --max-memory 512M --max-procs 16
      --check "$TARGETS/check_mutex_log.sh" --build make --races=off)

# field REPORT.csv NAME COLUMN: one cell of the CSV report, by submission name.
field() {
    python3 - "$@" <<'PY'
import csv, sys
path, name, column = sys.argv[1:]
for row in csv.DictReader(open(path, newline="", encoding="utf-8")):
    if row["name"].split("-", 1)[1] == name:
        print(row[column])
PY
}

# field_has REPORT.csv NAME COLUMN REGEX: that cell matches the (grep -E) regex.
field_has() { field "$1" "$2" "$3" >"$WORK/cell"; grep -qE -- "$4" "$WORK/cell"; }

# expect_verdict DIR NAME VERDICT [FAILURE_KIND]: CSV and JSON agree on it.
expect_verdict() {
    local dir=$1 name=$2 verdict=$3 kind=${4:-}
    local got
    got=$(field "$dir/report.csv" "$name" verdict)
    [ "$got" = "$verdict" ] || fail "$name: CSV verdict \"$got\", expected $verdict ($(field "$dir/report.csv" "$name" details))"
    python3 - "$dir/report.json" "$name" "$verdict" "$kind" <<'PY' || fail "$name: JSON report disagrees"
import json, sys
path, name, verdict, kind = sys.argv[1:]
sub = [s for s in json.load(open(path, encoding="utf-8"))["submissions"] if s["name"].split("-", 1)[1] == name][0]
assert sub["verdict"] == verdict, sub["verdict"]
ff = sub["first_failure"]
assert sum(sub["failing_by_kind"].values()) <= sub["failing"] <= sub["schedules"], sub
if verdict in ("ok", "build-failed", "linearizable"):
    assert ff is None and sub["failing"] == 0, sub
if verdict not in ("ok", "build-failed", "linearizable", "mdat-error", "hang", "sandbox-violation", "tampered"):
    assert ff is not None, sub
if ff is not None:
    assert sub["failing"] >= 1 and sum(sub["failing_by_kind"].values()) == sub["failing"], sub
    assert ff["replay"] == "mdat replay " + ("--trust-check " if ff["kind"] == "checker" else "") + ff["schedule_file"], ff
if kind:
    assert ff["kind"] == kind, ff["kind"]
PY
}

# replays_work DIR [GRADESCOPE_DIR [SKIP]]: every replay command the
# grading printed (on the terminal, $WORK/out) or wrote (CSV, JSON, HTML,
# JUnit, Gradescope) reproduces its failure when pasted into a shell (but
# those matching the grep -E pattern SKIP).
replays_work() {
    local dir=$1 gs=${2:-} skip=${3:-^$} cmd n=0
    python3 - "$dir" "$WORK/out" "$gs" >"$WORK/replays" <<'PY'
import csv, glob, html, json, re, sys
d, terminal, gs = sys.argv[1:]
found = set()
for row in csv.DictReader(open(f"{d}/report.csv", newline="", encoding="utf-8")):
    if row["replay"]:
        found.add(row["replay"])
for sub in json.load(open(f"{d}/report.json", encoding="utf-8"))["submissions"]:
    if sub["first_failure"]:
        found.add(sub["first_failure"]["replay"])
for m in re.finditer(r"<td>(mdat replay [^<]*)</td>", open(f"{d}/report.html", encoding="utf-8").read()):
    found.add(html.unescape(m.group(1)))
texts = [open(terminal, encoding="utf-8").read()]
texts += [open(p, encoding="utf-8").read() for p in glob.glob(f"{d}/*.xml")]
if gs:
    for p in glob.glob(f"{gs}/**/results.json", recursive=True):
        r = json.load(open(p, encoding="utf-8"))
        texts += [r["output"]] + [t["output"] for t in r["tests"]]
for t in texts:
    found.update(m.group(1) for m in re.finditer(r"replay: (mdat replay .*)", t))
print("\n".join(sorted(found)))
PY
    while IFS= read -r cmd; do
        [ -n "$cmd" ] || continue
        echo "$cmd" | grep -qE -- "$skip" && continue
        n=$((n + 1))
        PATH="$(dirname "$MDAT"):$PATH" sh -c "$cmd" </dev/null >"$WORK/pasted.out" 2>&1
        local st=$?
        [ "$st" -eq 1 ] && grep -q "reproduced FAILURE" "$WORK/pasted.out" ||
            fail "pasted \"$cmd\": exit $st: $(tail -2 "$WORK/pasted.out")"
    done <"$WORK/replays"
    [ "$n" -gt 0 ] || fail "no replay command in the reports of $dir"
}

# no_tracee_left: nothing of this test runs any more (mdat, tracees, forked
# children, builds: all of them name this test's scratch directory).
no_tracee_left() {
    local left
    left=$(pgrep -af -- "$WORK/" | grep -v -e pgrep -e e2e_grade)
    [ -z "$left" ] || fail "processes left behind: $left"
}

# same_reports DIR_A DIR_B: the three reports are byte for byte the same.
same_reports() {
    for f in csv json html; do
        cmp -s "$1/report.$f" "$2/report.$f" ||
            fail "report.$f of $1 and $2 differ: $(diff "$1/report.$f" "$2/report.$f" | head -5)"
    done
}

grade() { run_mdat grade "${OPTS[@]}" "$@"; }

# The hostile class of tests/grade/hostile added in 0.4 (see its README).
NEW_HOSTILE=(forger_mem forger_vm i386_killer i386_stopper i386_tracer setsig limiter snooper linker rewriter)

# teacher_setup DIR OWNER: the teacher's files, for the snooper: a 0644
# note, a student's 0644 source (class/alice.c), a unix socket listening
# (what reaches it goes to DIR/teacher/received), and the checksum of the
# files in $teacher_sum. DIR/teacher is a link to $teacher_dir, outside
# /tmp (in the build tree), where a sandbox that only hid the usual
# places (/home, /root, /tmp...) would show them.
teacher_setup() {
    local t=$1/teacher real
    real=$(mktemp -d "$GRADE/.teacher-$TEST-XXXXXX")
    chmod 755 "$real"
    trap 'rm -rf "$WORK" "$GRADE"/.teacher-"$TEST"-*' EXIT
    ln -s "$real" "$t"
    teacher_dir=$real
    mkdir -p "$t/class"
    echo "the teacher's notes" >"$t/notes.txt"
    cp "$SOURCES/alice.c" "$t/class/alice.c"
    chmod 644 "$t/notes.txt" "$t/class/alice.c"
    python3 - "$t/sock" "$t/received" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "ab") as out:
        out.write(c.recv(4096) or b"(connected)")
    c.close()
PY
    listener=$!
    for _ in $(seq 50); do [ -S "$t/sock" ] && break; sleep 0.1; done
    [ -n "${2:-}" ] && chown -R "$2" "$real"
    teacher_sum=$(cd "$t" && sha256sum notes.txt class/alice.c)
}

# teacher_check DIR: the note unchanged, nothing came through the socket.
teacher_check() {
    kill "$listener" 2>/dev/null
    wait "$listener" 2>/dev/null
    [ "$(cd "$1/teacher" && sha256sum notes.txt class/alice.c)" = "$teacher_sum" ] || fail "the teacher's files changed"
    [ -e "$1/teacher/received" ] && fail "a submission reached the teacher's socket: $(cat "$1/teacher/received")"
}

# expect_new_hostile DIR: the verdicts of NEW_HOSTILE graded into DIR.
expect_new_hostile() {
    local dir=$1
    # Both forgers and the limiter have a real deadlock: it is reported,
    # not the forged "no failure", not an error of mdat's.
    expect_verdict "$dir" forger_mem deadlock deadlock
    expect_verdict "$dir" forger_vm deadlock deadlock
    expect_verdict "$dir" limiter deadlock deadlock
    for n in i386_killer i386_stopper i386_tracer; do
        expect_verdict "$dir" "$n" sandbox-violation
        field_has "$dir/report.csv" "$n" details "through the 32-bit int \\\$0x80 ABI" ||
            fail "$n: the details do not name the ABI: $(field "$dir/report.csv" "$n" details)"
    done
    expect_verdict "$dir" setsig sandbox-violation
    field_has "$dir/report.csv" setsig details "fcntl\(F_SETOWN\)" || fail "setsig: $(field "$dir/report.csv" setsig details)"
    expect_verdict "$dir" snooper ok
    expect_verdict "$dir" linker ok
    expect_verdict "$dir" rewriter assertion assertion     # (its schedule is written after its last execution)
    local odd
    odd=$(find "$dir" ! -type f ! -type d)
    [ -z "$odd" ] || fail "copied out of the sandbox though not regular files: $odd"
    expect_err "linker: not copied out of the sandbox, as not regular files: 5"
}

case "$TEST" in
verdicts)
    # Every verdict of the class, in CSV, JSON and HTML; same seeds, same answers.
    grade --no-times -o class "${SUBS[@]}"
    expect_status 0
    expect_out "10-mallory: build-failed"
    # The progress line says the table's word: frank's livelock is a hang there.
    expect_out "06-frank: hang in 8 of 8 schedules"
    expect_out "04-dave: checker violation in "
    grep -q "livelock in" "$WORK/out" && fail "the progress line says livelock where the table says hang"
    expect_verdict class alice ok
    expect_verdict class bob deadlock deadlock
    expect_verdict class carol assertion assertion
    expect_verdict class dave checker checker
    expect_verdict class erin crash crash
    expect_verdict class frank hang livelock
    expect_verdict class heidi crash crash
    expect_verdict class judy ok
    expect_verdict class mallory build-failed
    # (ivan's forks fail at --max-procs in the sandbox, where he is not
    # root; a replay as root is not limited: RLIMIT_NPROC spares root)
    if [ "$(id -u)" -eq 0 ]; then replays_work class "" /08-ivan/; else replays_work class; fi
    [ "$(field class/report.csv frank failing)" = 8 ] || fail "frank livelocks in every schedule"
    case "$(field class/report.csv frank details)" in "livelock: "*) ;; *) fail "frank: details do not say livelock";; esac
    # With the race detector on (the default), carol's unlocked balance and
    # frank's plain-int turn flag are data races, named with both accesses.
    run_mdat grade "${OPTS[@]}" --races=fail --no-times -o raced "$CLASS/alice" "$CLASS/carol" "$CLASS/frank"
    expect_status 0
    expect_verdict raced alice ok
    expect_verdict raced carol race race
    expect_verdict raced frank race race
    field_has raced/report.csv carol details "race on balance: T[0-9]+ (reads|writes) at carol.c:[0-9]+" ||
        fail "carol: the race is not named: $(field raced/report.csv carol details)"
    field_has class/report.csv heidi details "stderr: out of memory after [0-9]* MiB" ||
        fail "heidi: the memory limit is not in the details: $(field class/report.csv heidi details)"
    field_has class/report.csv mallory build_output "error" ||
        fail "mallory: the compiler's error is not in the build output"
    # As root without a sandbox the kernel ignores RLIMIT_NPROC: ivan's forks
    # all succeed. In the sandbox ivan is a user of its own, and limited.
    if [ "$(id -u)" -eq 0 ] && [[ " ${OPTS[*]} " == *" --no-sandbox "* ]]; then
        expect_verdict class ivan ok
    else
        expect_verdict class ivan crash crash
        field_has class/report.csv ivan details "fork" || fail "ivan: the process limit is not in the details"
    fi
    rows=$(grep -c '<tr class="submission' class/report.html)
    [ "$rows" -eq 10 ] || fail "the HTML table has $rows submission rows, not 10"
    ! grep -qiE '<script|<link|src=|https?://' class/report.html || fail "the HTML report is not self-contained"
    grep -q "mutual exclusion violated" class/report.html || fail "dave's checker message is not in the HTML"
    # Each failing row links its timeline, trace, schedule and output, by
    # paths relative to the report that lead to the files; a checker's row
    # quotes the output it rejected; printed, a link shows its path.
    python3 - class/report.html 2>"$WORK/links.err" <<'PY' || fail "the HTML report's links: $(tail -n 1 "$WORK/links.err")"
import os, re, sys
path = sys.argv[1]
html = open(path, encoding="utf-8").read()
rows = re.findall(r'<tr class="submission v-([a-z-]+)( fail)?">(.*?)</tr>', html, re.S)
failing = [(v, body) for v, fail, body in rows if fail]
assert len(failing) >= 5, "only %d failing rows" % len(failing)
for verdict, body in failing:
    links = dict((what, href) for href, what in re.findall(r'<a href="([^"]+)">([a-z]+)</a>', body))
    for what in ("timeline", "trace", "schedule", "output"):
        assert what in links, "a %s row has no %s link: %s" % (verdict, what, body[:300])
        href = links[what]
        assert not href.startswith("/"), "absolute link " + href
        assert os.path.isfile(os.path.join(os.path.dirname(path), href)), "link to a missing file: " + href
    assert links["timeline"].endswith(".html") and links["schedule"].endswith(".sched"), links
    if verdict == "checker":
        assert '<pre class="evidence">output the checker rejected' in body, "no output in the checker's row"
assert 'p.files a::after{content:" (" attr(href) ")"}' in html, "printed links do not show their paths"
PY
    # The failure files exist and replay, limits included (heidi needs hers).
    for name in bob heidi; do
        sched=$(python3 -c 'import json,sys; print([s for s in json.load(open("class/report.json"))["submissions"] if s["name"].endswith("-'$name'")][0]["first_failure"]["schedule_file"])')
        [ -s "$sched" ] || fail "$name: no schedule file $sched"
        "$MDAT" replay "$sched" </dev/null >replay.out 2>&1
        [ $? -eq 1 ] || fail "$name: mdat replay $sched did not reproduce: $(tail -3 replay.out)"
    done
    grep -q '^limit-memory 536870912$' "$sched" || fail "heidi's schedule does not record the memory limit"
    no_tracee_left
    cp -r class first
    grade --no-times -o class "${SUBS[@]}"
    expect_status 0
    same_reports first class
    no_tracee_left
    ;;
shards)
    # --shard K/N for N = 2 one after the other, and N = 3 run by GNU
    # parallel (two at once, into the same output directory): the merged
    # reports are those of the unsharded run, byte for byte.
    grade --no-times -o class "${SUBS[@]}"
    expect_status 0
    mkdir whole && cp class/report.* whole/
    for k in 1 2; do
        grade -o class --shard "$k/2" "${SUBS[@]}"
        expect_status 0
        expect_out "shard $k of 2 written to class/shard-$k-of-2.json"
    done
    rm -f class/report.*
    run_mdat merge --no-times class/shard-2-of-2.json class/shard-1-of-2.json
    expect_status 0
    same_reports whole class
    rm -f class/report.*
    parallel --will-cite -j 2 "$MDAT" grade "${OPTS[@]}" -o class --shard {}/3 "${SUBS[@]}" ::: 1 2 3 >parallel.out 2>&1 ||
        fail "GNU parallel: $(tail -3 parallel.out)"
    ! grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' parallel.out || fail "sanitizer report: $(cat parallel.out)"
    run_mdat merge --no-times class/shard-*-of-3.json
    expect_status 0
    same_reports whole class
    no_tracee_left
    ;;
merge_refuses)
    # Shards that do not make one grading are refused with a one-line reason.
    quick=("$CLASS/alice" "$CLASS/bob")
    run_mdat grade -n 4 -j 1 -o class --shard 1/2 "${quick[@]}"; expect_status 0
    run_mdat grade -n 4 -j 1 -o class --shard 2/2 --json two.json "${quick[@]}"; expect_status 0
    run_mdat grade -n 6 -j 1 -o class --shard 2/2 --json other-n.json "${quick[@]}"
    run_mdat grade -n 4 -j 1 -o class --shard 2/2 --json other-subs.json "$CLASS/alice"
    run_mdat grade -n 4 -j 1 -o class --shard 2/3 --json of-three.json "${quick[@]}"
    run_mdat merge --no-times class/shard-1-of-2.json two.json
    expect_status 0
    refused() {
        local why=$1
        shift
        run_mdat merge "$@"
        expect_status 3
        expect_err "$why"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "merge $*: error is not one line: $(cat "$WORK/err")"
    }
    refused "different settings (schedules differs)" class/shard-1-of-2.json other-n.json
    refused "different settings (submissions differs)" class/shard-1-of-2.json other-subs.json
    refused "missing shard 2 of 2" class/shard-1-of-2.json
    refused "given twice" class/shard-1-of-2.json class/shard-1-of-2.json two.json
    refused "is shard 2 of 3, but" class/shard-1-of-2.json of-three.json
    refused "is not an mdat grade shard report" class/shard-1-of-2.json class/report.json
    printf '{"format": "mdat-grade-shard", ' >broken.json
    refused "is not valid JSON" class/shard-1-of-2.json broken.json
    sed 's/"end": 4,/"end": 3,/' two.json >cut.json
    refused "should hold executions 2-3" class/shard-1-of-2.json cut.json
    run_mdat merge
    expect_status 2
    ;;
isolation)
    # A program blocked in a real system call, a grading process that dies,
    # a submission over its wall clock, a build over its time limit, a file
    # that is no program, the CPU and file size limits: each is reported as
    # such, the others are graded, and nothing is left running.
    run_mdat grade -n 3 -j 1 --timeout 1 -o blocked "$CLASS/grace"
    expect_status 0
    expect_verdict blocked grace hang hang
    [ "$(field blocked/report.csv grace failing)" = 3 ] || fail "grace hangs in every schedule"
    field_has blocked/report.csv grace details "^hang: no thread can run: T[0-9]+ waits in read\(fd [0-9]+: socket\)" ||
        fail "grace: details do not name the blocking call: $(field blocked/report.csv grace details)"
    no_tracee_left

    # Without the sandbox, the grading process is mdat grade's child itself
    # (in the sandbox it is further down, behind the namespaces' processes).
    "$MDAT" grade -n 4 -j 1 --timeout 20 --no-sandbox -o class "$CLASS/grace" "$CLASS/alice" >grade.out 2>&1 &
    mdat_pid=$!
    child=
    for _ in $(seq 100); do
        child=$(pgrep -P "$mdat_pid" | head -n 1)
        [ -n "$child" ] && pgrep -f "$CLASS/grace" >/dev/null && break
        sleep 0.1
    done
    [ -n "$child" ] || fail "no grading process appeared"
    kill -ABRT "$child"     # not SEGV: a sanitizer build would catch that and report it as its own
    wait "$mdat_pid"
    [ $? -eq 0 ] || fail "mdat grade failed when its grading process died: $(cat grade.out)"
    ! grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' grade.out || fail "sanitizer report: $(cat grade.out)"
    expect_verdict class grace mdat-error
    field_has class/report.csv grace details "grading process was killed by Aborted" ||
        fail "grace: the details do not say the grading process died: $(field class/report.csv grace details)"
    expect_verdict class alice ok
    no_tracee_left

    run_mdat grade -n 4 -j 1 --timeout 20 --submission-timeout 4 -o wall "$CLASS/grace" "$CLASS/alice"
    expect_status 0
    expect_verdict wall grace hang
    field_has wall/report.csv grace details "^wall clock: grading took longer than 4 s" ||
        fail "grace: the details do not name the wall clock: $(field wall/report.csv grace details)"
    expect_verdict wall alice ok
    no_tracee_left

    mkdir -p slow && printf 'slow:\n\tsleep 37\n' >slow/Makefile
    run_mdat grade -n 2 -j 1 --build make --build-timeout 3 -o builds "$WORK/slow" "$CLASS/judy" "$TARGETS/script.sh"
    expect_status 0
    expect_verdict builds slow build-failed
    field_has builds/report.csv slow details "the build took longer than 3 s" || fail "slow: no build time limit"
    expect_verdict builds judy ok
    [ "$(field builds/report.csv script.sh verdict)" = mdat-error ] || fail "script.sh is not an mdat error"
    pgrep -f "sleep 37" >/dev/null && fail "the slow build's sleep is still running"
    [ -f "$CLASS/judy/judy" ] && fail "the build wrote into the submission instead of a copy"
    no_tracee_left

    # The teacher's checker stays visible where the sandbox hides its
    # directory (this test's scratch directory is under /tmp).
    cp "$TARGETS/check_mutex_log.sh" "$WORK/teacher_check.sh"
    run_mdat grade -n 2 -j 1 --races=off --check "$WORK/teacher_check.sh" -o hidden_check "$CLASS/alice"
    expect_status 0
    expect_verdict hidden_check alice ok
    # A relative checker is the teacher's, from where mdat grade started:
    # made absolute, it judges dave's output in his sandbox as well.
    [ "$PWD" = "$WORK" ] || fail "the test does not run in its scratch directory"
    run_mdat grade -n 8 -s 1 -j 1 --races=off --check ./teacher_check.sh -o relative_check "$CLASS/dave"
    expect_status 0
    expect_verdict relative_check dave checker checker
    grep -q "mutual exclusion violated" relative_check/report.csv || fail "the relative checker did not judge dave"
    run_mdat grade -n 2 -j 1 --check ./no_such_check.sh -o missing_check "$CLASS/alice"
    expect_status 2
    expect_err "mdat grade: --check ./no_such_check.sh: No such file or directory"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "a missing checker: not one line: $(cat "$WORK/err")"

    # The CPU and file size limits, named in the details.
    run_mdat grade -n 1 -j 1 --timeout 30 --max-cpu 1 --max-file-size 64K -o limits "$TARGETS/spin_forever" /usr/bin/yes
    expect_status 0
    expect_verdict limits spin_forever crash crash
    field_has limits/report.csv spin_forever details "SIGXCPU.*over the CPU time limit of 1 s" ||
        fail "spin_forever: no CPU limit in $(field limits/report.csv spin_forever details)"
    expect_verdict limits yes crash crash
    field_has limits/report.csv yes details "SIGXFSZ.*over the file size limit of 65536 bytes" ||
        fail "yes: no file size limit in $(field limits/report.csv yes details)"
    ;;
usage)
    run_mdat grade; expect_status 2
    run_mdat grade "$CLASS/judy"; expect_status 2
    expect_err "is a directory: say how to build it"
    run_mdat grade --shard 3/2 "$CLASS/alice"; expect_status 2
    run_mdat grade --shard 1/2 --csv x.csv "$CLASS/alice"; expect_status 2
    run_mdat grade --max-memory 12Q "$CLASS/alice"; expect_status 2
    run_mdat grade --strategy magic "$CLASS/alice"; expect_status 2
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "usage error is not one line: $(cat "$WORK/err")"
    # More jobs than CPUs: as many as the CPUs, and said so.
    cpus=$(nproc)
    run_mdat grade -n 2 -j $((cpus + 62)) --races=off -o many_jobs "$CLASS/alice"
    expect_status 0
    expect_out "mdat: -j $((cpus + 62)) is more than the $cpus CPU"
    expect_out ", $cpus job"
    run_mdat grade --help; expect_status 0; expect_out "--shard K/N"
    run_mdat merge --help; expect_status 0; expect_out "SHARD.json"
    run_mdat --help; expect_status 0; expect_out "grade [options] SUBMISSION"
    ;;
formats)
    # --junit and --gradescope on part of the class: JUnit XML valid against
    # docs/junit.xsd with a case per submission; results.json scored by the
    # rubric; mdat merge of two shards writes the same bytes.
    part=("$CLASS/alice" "$CLASS/bob" "$CLASS/carol" "$CLASS/dave" "$CLASS/mallory")
    printf '# points for never failing so\ndeadlock 4\nassertion 3  # the balance\nchecker 2\n' >rubric.txt
    grade --no-times -o class --junit class/junit.xml --gradescope gs --rubric rubric.txt --points crash=1 "${part[@]}"
    expect_status 0
    xmllint --noout --schema "$SOURCES/../../docs/junit.xsd" class/junit.xml 2>xmllint.err ||
        fail "class/junit.xml is not valid: $(cat xmllint.err)"
    python3 - class/junit.xml gs <<'PY' || fail "the JUnit and Gradescope reports do not say what mdat found"
import json, sys, xml.etree.ElementTree as ET
junit, gs = sys.argv[1:]
root = ET.parse(junit).getroot()
assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "3", "1"), root.attrib
cases = {c.get("name").split("-", 1)[1]: c for c in root.iter("testcase")}
assert list(cases) == ["alice", "bob", "carol", "dave", "mallory"], list(cases)
assert len(cases["alice"]) == 0
bob = cases["bob"].find("failure")
assert bob.get("type") == "deadlock" and "wait cycle" in bob.get("message"), bob.attrib
# In the sandbox, schedules are saved under the output directory's real path.
assert "replay: mdat replay /" in bob.text and "/class/02-bob/bob-deadlock-s1-e" in bob.text, bob.text
assert "last steps" in bob.text, bob.text
assert cases["carol"].find("failure").get("type") == "assertion"
assert cases["dave"].find("failure").get("type") == "checker"
err = cases["mallory"].find("error")
assert err.get("type") == "build-failed" and "error" in err.text, err.attrib
expect = {"alice": 10, "bob": 6, "carol": 7, "dave": 8, "mallory": 0}
for name, score in expect.items():
    r = json.load(open(f"{gs}/{list(cases).index(name) + 1:02d}-{name}/results.json", encoding="utf-8"))
    assert r["score"] == score, (name, r["score"])
    assert [t["name"] for t in r["tests"]] == ["no deadlock", "no failed assertion", "output correct in every schedule",
                                               "no crash"], r["tests"]
    assert sum(t["max_score"] for t in r["tests"]) == 10
    assert sum(t["score"] for t in r["tests"]) == score
    assert "execution_time" not in r and r["output_format"] == "text"
    assert r["extra_data"]["verdict"] == {"alice": "ok", "bob": "deadlock", "carol": "assertion", "dave": "checker",
                                         "mallory": "build-failed"}[name]
bob = json.load(open(f"{gs}/02-bob/results.json", encoding="utf-8"))
dl = bob["tests"][0]
assert dl["status"] == "failed" and "/class/02-bob/" in dl["output"] and "replay: mdat replay /" in dl["output"], dl
assert "deadlock" in bob["output"] and "replay:" in bob["output"]
# A checker failure shows the output it rejected and the steps on shared data.
dave = json.load(open(f"{gs}/04-dave/results.json", encoding="utf-8"))["output"]
assert "replay: mdat replay --trust-check /" in dave, dave
assert "output the checker rejected (" in dave and "\n  enter " in dave, dave
assert "steps on data several threads touched (" in dave and " W balance := " in dave, dave
PY
    replays_work class gs
    for k in 1 2; do
        grade -o class --shard "$k/2" "${part[@]}"
        expect_status 0
    done
    run_mdat merge --no-times --junit merged.xml --gradescope merged-gs --rubric rubric.txt --points crash=1 \
        class/shard-1-of-2.json class/shard-2-of-2.json
    expect_status 0
    cmp -s class/junit.xml merged.xml || fail "merged JUnit differs: $(diff class/junit.xml merged.xml | head -5)"
    diff -r gs merged-gs >/dev/null || fail "merged Gradescope results differ: $(diff -r gs merged-gs | head -5)"
    # One submission: DIR/results.json, as an autograder expects it.
    run_mdat grade -n 2 -j 1 -o one --gradescope one-gs "$CLASS/alice"
    expect_status 0
    [ -s one-gs/results.json ] || fail "one submission: no one-gs/results.json"
    # Bad rubrics and paths: one line, before grading.
    for bad in "--points bogus=1 --gradescope x" "--points deadlock=-1 --gradescope x" "--rubric /nonexistent --gradescope x" \
               "--points deadlock=1" "--junit j.xml --shard 1/2" "--junit /nonexistent/j.xml" "--gradescope /proc/nope" \
               "--csv /nonexistent/r.csv" "--json bad" "--html ." "--max-disk 10K" "--check ./check.sh" \
               "--resume"; do
        # shellcheck disable=SC2086
        run_mdat grade $bad -o bad "$CLASS/alice"
        expect_status 2
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "grade $bad: not one line: $(cat "$WORK/err")"
    done
    [ -e bad/01-alice ] && fail "a usage error still graded"
    ;;
scores)
    # The second assignment (a sum, check_sum.sh) graded with the default
    # race mode and rubric: oscar's race does not stop his executions, so
    # the checker sees the sums it lost (he loses "no data race" and
    # "output correct"); peggy never ends and never prints (she loses "ends
    # in every schedule", one item for livelock and hang alike, and the
    # output's point, which needs an output the checker accepted).
    cp "$GRADE"/{oscar,peggy,rupert} "$CLASS"/
    run_mdat grade -n 40 -s 1 -j 2 --timeout 5 --max-steps 30000 --no-times --check "$SOURCES/check_sum.sh" \
        -o sums --gradescope sums-gs "$CLASS/oscar" "$CLASS/peggy" "$CLASS/rupert"
    expect_status 0
    expect_verdict sums peggy hang livelock
    python3 - sums sums-gs <<'PY' || fail "the scores are not the rubric's"
import json, sys
d, gs = sys.argv[1:]
subs = {s["name"].split("-", 1)[1]: s for s in json.load(open(f"{d}/report.json", encoding="utf-8"))["submissions"]}
oscar = subs["oscar"]
assert oscar["raced"] == 40, oscar
assert oscar["failing_by_kind"]["checker"] > 0, oscar      # sums lost past the race
assert 0 < oscar["output_accepted"] < 40, oscar
assert oscar["failing_by_kind"]["checker"] + oscar["failing_by_kind"]["race"] == 40, oscar
assert subs["peggy"]["output_accepted"] == 0 and subs["peggy"]["raced"] == 0, subs["peggy"]
names = ["no deadlock", "no failed assertion", "no crash", "no use after free or double free", "ends in every schedule",
         "uses the thread API correctly", "no data race", "leaves the grader alone", "output correct in every schedule"]
lost = {"oscar": {"no data race", "output correct in every schedule"},
        "peggy": {"ends in every schedule", "output correct in every schedule"}, "rupert": set()}
for i, name in enumerate(["oscar", "peggy", "rupert"]):
    r = json.load(open(f"{gs}/{i + 1:02d}-{name}/results.json", encoding="utf-8"))
    assert [t["name"] for t in r["tests"]] == names, r["tests"]
    failed = {t["name"] for t in r["tests"] if t["status"] == "failed"}
    assert failed == lost[name], (name, failed)
    assert r["score"] == 9 - len(lost[name]), (name, r["score"])
out = json.load(open(f"{gs}/02-peggy/results.json", encoding="utf-8"))["tests"][8]["output"]
assert "no schedule's output reached the checker" in out, out
PY
    field_has sums/report.csv oscar details "race on sum: .*also checker in [0-9]+" ||
        fail "oscar: the details do not say the sums were wrong too: $(field sums/report.csv oscar details)"
    replays_work sums sums-gs
    ;;
hostile)
    # A hostile class graded with honest submissions, in the sandbox: the
    # grading finishes, honest verdicts are right, each hostile one gets
    # its own, the submissions as given are byte-identical afterwards, and
    # no process survives. (killer and stopper attack mdat inside their
    # sandbox: their calls are refused, a sandbox-violation.)
    H=$WORK/given
    mkdir -p "$H" "$WORK/home"
    cp "$GRADE"/{alice,bob} "$H"/
    for n in killer saboteur reader filler forkbomb tracer stopper daemon printer "${NEW_HOSTILE[@]}"; do
        cp "$GRADE/hostile_$n" "$H/$n"
    done
    echo "the teacher's secret" >"$WORK/home/secret"
    teacher_setup "$WORK"
    before=$(cd "$H" && sha256sum -- *)
    # (--submission-timeout: a word of the grader's command line, which the
    # snooper looks for in every other process's)
    HOME=$WORK/home HOSTILE_SECRET=$WORK/home/secret HOSTILE_OTHER=$H/alice \
        HOSTILE_TARGETS="$H:$WORK/out-h:$WORK/home" HOSTILE_TEACHER_FILE=$teacher_dir/notes.txt \
        HOSTILE_OTHER_SOURCE=$teacher_dir/class/alice.c HOSTILE_SOCKET=$teacher_dir/sock HOSTILE_MARKER=--submission-timeout \
        run_mdat grade -n 2 -j 1 --timeout 5 --max-steps 30000 --max-procs 32 --max-disk 64M \
        --submission-timeout 10 --no-times -o out-h "$H"/{alice,killer,saboteur,reader,bob,filler,forkbomb,tracer,stopper,daemon,printer} \
        "${NEW_HOSTILE[@]/#/$H/}"
    expect_status 0
    expect_new_hostile out-h
    teacher_check "$WORK"
    # The rewriter with --outcomes, whose executions run after its failure's
    # schedule is written: as root it cannot touch mdat's files.
    run_mdat grade -n 2 -j 1 --outcomes --no-times -o out-rw "$H/rewriter"
    expect_status 0
    expect_verdict out-rw rewriter assertion assertion
    expect_verdict out-h alice ok
    expect_verdict out-h bob deadlock deadlock
    expect_verdict out-h killer sandbox-violation
    expect_verdict out-h stopper sandbox-violation
    expect_verdict out-h reader ok      # it crashes when it reads a secret or another's work
    expect_verdict out-h saboteur ok
    expect_verdict out-h daemon ok
    for n in filler forkbomb tracer printer; do
        v=$(field out-h/report.csv "$n" verdict)
        case "$v" in ''|mdat-error|not-graded) fail "$n: verdict \"$v\" ($(field out-h/report.csv "$n" details))" ;; esac
    done
    after=$(cd "$H" && sha256sum -- *)
    [ "$before" = "$after" ] || fail "the submissions as given changed: $(diff <(echo "$before") <(echo "$after"))"
    grep -q "teacher's secret" "$WORK/home/secret" || fail "HOME was written to"
    # (Its own copy is its own: it may spoil it.)
    spoiled=$(grep -rl --exclude-dir='*-saboteur' sabotaged out-h)
    [ -z "$spoiled" ] || fail "the saboteur wrote into others' output: $spoiled"
    size=$(du -sm out-h/*-filler | cut -f1)
    [ "$size" -le 70 ] || fail "the filler wrote $size MiB, over --max-disk 64M"
    sleep 0.5
    pgrep -f "sleep 4242" >/dev/null && fail "the daemon outlived grading: $(pgrep -af 'sleep 4242')"
    no_tracee_left

    # The same without root (a user namespace instead of a user of its own),
    # when the suite runs as root: as nobody, on a copy nobody owns.
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
        N=$WORK/nobody
        mkdir -p "$N/given" "$N/home"
        cp "$H"/{alice,bob,killer,saboteur,reader,filler,stopper,daemon} "$N/given/"
        for n in "${NEW_HOSTILE[@]}"; do cp "$H/$n" "$N/given/"; done
        echo "nobody's secret" >"$N/home/secret"
        chown -R nobody:nogroup "$N"
        chmod o+x "$WORK"
        teacher_setup "$N" nobody:nogroup
        before=$(cd "$N/given" && sha256sum -- *)
        # (no HOSTILE_MARKER: without root, mdat's processes in the sandbox
        # are the submission's user, whose command lines it may read; see
        # README "Grading untrusted code")
        (cd "$N" && HOME=$N/home HOSTILE_SECRET=$N/home/secret HOSTILE_OTHER=$N/given/alice \
            HOSTILE_TARGETS="$N/given:$N/out:$N/home" HOSTILE_TEACHER_FILE=$teacher_dir/notes.txt \
            HOSTILE_OTHER_SOURCE=$teacher_dir/class/alice.c HOSTILE_SOCKET=$teacher_dir/sock \
            setpriv --reuid=nobody --regid=nogroup --clear-groups \
            "$MDAT" grade -n 2 -j 1 --timeout 5 --max-steps 30000 --max-procs 32 --max-disk 64M \
            --submission-timeout 10 --no-times -o out "$N"/given/{alice,killer,saboteur,reader,bob,filler,stopper,daemon} \
            "${NEW_HOSTILE[@]/#/$N/given/}" </dev/null >"$WORK/out" 2>"$WORK/err")
        status=$?
        expect_status 0
        expect_new_hostile "$N/out"
        teacher_check "$N"
        expect_verdict "$N/out" alice ok
        expect_verdict "$N/out" bob deadlock deadlock
        expect_verdict "$N/out" killer sandbox-violation
        expect_verdict "$N/out" stopper sandbox-violation
        expect_verdict "$N/out" reader ok
        expect_verdict "$N/out" saboteur ok
        expect_verdict "$N/out" daemon ok
        v=$(field "$N/out/report.csv" filler verdict)
        [ "$v" = ok ] || fail "nobody's filler: verdict \"$v\""
        after=$(cd "$N/given" && sha256sum -- *)
        [ "$before" = "$after" ] || fail "as nobody, the submissions as given changed"
        grep -q "nobody's secret" "$N/home/secret" || fail "as nobody, HOME was written to"
        grep -q "NO SANDBOX" "$WORK/err" && fail "as nobody, no sandbox: $(cat "$WORK/err")"
        sleep 0.5
        pgrep -f "sleep 4242" >/dev/null && fail "as nobody, the daemon outlived grading"
        no_tracee_left
    fi
    ;;
resume)
    # SIGINT midway: the reports of what was decided (marked incomplete),
    # exit 130; --resume completes them to the reports of an uninterrupted
    # run, byte for byte with --no-times.
    RSUBS=("$CLASS/alice" "$CLASS/bob" "$CLASS/carol" "$CLASS/dave" "$CLASS/erin")
    ROPTS=(-n 6 -s 1 -j 1 --timeout 5 --max-steps 30000 --no-times -o r)
    run_mdat grade "${ROPTS[@]}" "${RSUBS[@]}"
    expect_status 0
    mv r whole
    "$MDAT" grade "${ROPTS[@]}" "${RSUBS[@]}" </dev/null >"$WORK/int.out" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        [ "$(cat r/journal.jsonl 2>/dev/null | wc -l)" -ge 3 ] && break
        sleep 0.1
    done
    kill -INT "$pid"
    wait "$pid"
    st=$?
    [ "$st" -eq 130 ] || fail "interrupted: exit status $st, expected 130: $(tail -3 "$WORK/int.out")"
    grep -q '"complete": false' r/report.json || fail "the interrupted report is not marked incomplete"
    grep -q 'not-graded' r/report.csv || fail "the interrupted report has no not-graded submission"
    decided=$(($(wc -l <r/journal.jsonl) - 1))
    [ "$decided" -ge 2 ] && [ "$decided" -lt 5 ] || fail "$decided submissions decided before SIGINT"
    for n in alice bob; do
        [ "$(field r/report.csv $n verdict)" = "$(field whole/report.csv $n verdict)" ] ||
            fail "$n: the interrupted report says $(field r/report.csv $n verdict)"
    done
    run_mdat grade --resume "${ROPTS[@]}" "${RSUBS[@]}"
    expect_status 0
    expect_out "resuming: $decided submission"
    same_reports whole r
    # Other settings are refused, in one line.
    run_mdat grade --resume -n 7 -s 1 -j 1 --no-times -o r "${RSUBS[@]}"
    expect_status 2
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "resume with other settings: not one line: $(cat "$WORK/err")"

    # mdat run --json on SIGTERM: the summary of what ran, "complete": false.
    echo previous >run.json
    "$MDAT" run -n 1000000 -j 2 -o run-out --json run.json "$TARGETS/correct_counter" </dev/null >"$WORK/run.out" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        [ -n "$(ls run-out 2>/dev/null)" ] || grep -q exploring "$WORK/run.out" && break
        sleep 0.1
    done
    sleep 1
    kill -TERM "$pid"
    wait "$pid"
    st=$?
    [ "$st" -eq 143 ] || fail "mdat run on SIGTERM: exit status $st, expected 143: $(tail -3 "$WORK/run.out")"
    python3 - run.json <<'PY' || fail "mdat run --json on SIGTERM: $(head -c 300 run.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and 0 < d["schedules_run"] < 1000000, d
PY
    ls run.json.tmp-* >/dev/null 2>&1 && fail "a temporary report was left behind"
    # A systematic search, which runs in one job, stops there too, and says
    # it was stopped (not that it reached -n).
    "$MDAT" run --strategy dpor -n 1000000 --races=off --json dpor.json "$TARGETS/search_increments" 6 \
        </dev/null >"$WORK/run.out" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        grep -q exploring "$WORK/run.out" && break
        sleep 0.1
    done
    sleep 1
    kill -INT "$pid"
    wait "$pid"
    st=$?
    [ "$st" -eq 130 ] || fail "mdat run --strategy dpor on SIGINT: exit status $st, expected 130: $(tail -3 "$WORK/run.out")"
    grep -q "NOT exhaustive, the search was stopped after" "$WORK/run.out" ||
        fail "dpor stopped by SIGINT does not say so: $(tail -3 "$WORK/run.out")"
    python3 - dpor.json <<'PY' || fail "mdat run --strategy dpor --json on SIGINT: $(head -c 300 dpor.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and d["exhaustive"] is False and 0 < d["schedules_run"] < 1000000, d
PY
    no_tracee_left
    ;;
outcomes)
    # --outcomes: each submission's outcome table in report.json, report.html
    # and the summary (three lines at most, "... and N more"); alice always
    # ends with balance = 60, carol also fails her assertion with less; each
    # outcome's schedule replays to it. Shards merge to the same bytes, and
    # --resume rebuilds the reports from the journal alone.
    OSUBS=("$CLASS/alice" "$CLASS/carol")
    OOPTS=(-n 12 -s 1 -j 2 --timeout 5 --max-steps 30000 --max-memory 512M --max-procs 16 --races=off --no-times
           --outcomes --watch balance)
    run_mdat grade --watch balance -o bad "${OSUBS[@]}"
    expect_status 2
    expect_err "--watch goes with --outcomes"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "--watch alone: not one line: $(cat "$WORK/err")"
    run_mdat grade "${OOPTS[@]}" -o class "${OSUBS[@]}"
    expect_status 0
    cp "$WORK/out" whole.out
    python3 - class/report.json >pairs <<'PY' || fail "report.json's outcomes are not as documented"
import json, os, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["settings"]["outcomes"] is True and d["settings"]["watches"] == ["balance"], d["settings"]
subs = {s["name"].split("-", 1)[1]: s for s in d["submissions"]}
for name, s in subs.items():
    o = s["outcomes"]
    assert o and sum(x["count"] for x in o) + s["outcomes_left_out"] == s["schedules"] == 12, (name, s)
    assert abs(sum(x["share"] for x in o) - 1) < 0.01, o
    assert [x["count"] for x in o] == sorted((x["count"] for x in o), reverse=True), o
    for x in o:
        assert os.path.isfile(x["schedule_file"]) and "-outcome-s1-e%d.sched" % x["execution"] in x["schedule_file"], x
        assert x["reproduced"], x
        print(name, x["failure"], x["watches"]["balance"], x["schedule_file"])
alice = subs["alice"]["outcomes"]
assert all(x["failure"] == "none" and x["exit_status"] == 0 and x["watches"] == {"balance": "60"} for x in alice), alice
carol = subs["carol"]["outcomes"]
failed = [x for x in carol if x["failure"] == "assertion"]
assert failed and all(int(x["watches"]["balance"]) < 60 for x in failed), carol
PY
    [ "$(wc -l <pairs)" -ge 3 ] || fail "fewer than 3 outcomes in the report: $(cat pairs)"
    while read -r name failure balance sched; do
        "$MDAT" replay --watch balance "$sched" </dev/null >r.out 2>&1
        st=$?
        if [ "$failure" = none ]; then
            [ $st -eq 0 ] && grep -qx "mdat: watched, at the end: balance = $balance" r.out ||
                fail "$name: $sched does not replay to exit 0, balance = $balance: $(tail -2 r.out)"
        else
            [ $st -eq 1 ] && grep -qx "mdat: watched, where it failed: balance = $balance" r.out ||
                fail "$name: $sched does not replay to its $failure, balance = $balance: $(tail -2 r.out)"
        fi
    done <pairs
    grep -q '<table class="outcomes">' class/report.html || fail "report.html has no outcome table"
    grep -q 'balance = 60' class/report.html || fail "report.html does not show the outcomes"
    # The summary: a line per submission, at most three outcomes under it.
    sed -n '/^  outcomes (most frequent first/,/^$/p' "$WORK/out" >summary
    grep -qE '^  01-alice: [0-9]+ outcomes?$' summary || fail "no alice line in the summary: $(cat summary)"
    grep -qE '^  02-carol: [0-9]+ outcomes?$' summary || fail "no carol line in the summary: $(cat summary)"
    awk '/^  0/ {n = 0} /^ +[0-9]+ +[0-9.]+%  / {if (++n > 3) bad = 1} END {exit bad}' summary ||
        fail "more than three outcomes of a submission in the summary: $(cat summary)"
    for name in alice carol; do
        n=$(grep -cE "^$name " pairs)
        if [ "$n" -gt 3 ]; then
            grep -qx "    ... and $((n - 3)) more" summary || fail "$name: no '... and $((n - 3)) more'"
        fi
    done
    mkdir whole && cp class/report.* whole/
    # Shards: merged, the same bytes.
    for k in 1 2; do
        run_mdat grade "${OOPTS[@]}" -o class --shard "$k/2" "${OSUBS[@]}"
        expect_status 0
    done
    rm -f class/report.*
    run_mdat merge --no-times class/shard-1-of-2.json class/shard-2-of-2.json
    expect_status 0
    same_reports whole class
    # --resume of a finished grading: the reports from the journal, the same bytes.
    rm -f class/report.*
    run_mdat grade --resume "${OOPTS[@]}" -o class "${OSUBS[@]}"
    expect_status 0
    expect_out "resuming: 2 submissions"
    same_reports whole class
    no_tracee_left
    ;;
lincheck)
    # mdat grade --lincheck: a class of three queues of one interface (the
    # teacher's spec and header), built by their Makefiles into queue.o:
    # a correct mutex queue (alice), a queue whose size counter is updated
    # outside the lock (bob) and a Treiber "queue" reusing its nodes (carol:
    # ABA). Verdicts in CSV and JSON, scores, shards merged byte for byte.
    LC=$SOURCES/../lincheck
    T=$WORK/teacher
    mkdir -p "$T"
    cp "$LC/queue_mutex.h" "$T/"
    cat >"$T/queue.lc" <<'SPEC'
object  queue.o
include queue_mutex.h
state   struct queue *q = queue_new(4);
op push(int 1..3) -> int   queue_push(q, $1)
op pop() -> int            queue_pop(q)
op size() -> long          queue_size(q)
SPEC
    for pair in alice:queue_mutex bob:queue_size_unlocked carol:queue_treiber_aba; do
        name=${pair%%:*}
        mkdir -p "$WORK/lc/$name"
        cp "$LC/${pair#*:}.c" "$WORK/lc/$name/queue.c"
        cp "$LC/queue_mutex.h" "$WORK/lc/$name/"
        printf 'queue.o: queue.c queue_mutex.h\n\tcc -g -O0 -c queue.c\n' >"$WORK/lc/$name/Makefile"
    done
    printf 'linearizable 6\ncrash 2\n' >"$T/rubric.txt"
    # Scenario K uses seed 62+K: 1 is bob's (T2 pop() size() | T3 push(3)
    # push(2)), 2 carol's (T2 pop() push(3) | T3 push(1) pop()).
    LOPTS=(--lincheck "$T/queue.lc" --lincheck-scenarios 4 -s 62 -n 1000 -j 1 --build make)
    LSUBS=("$WORK/lc/alice" "$WORK/lc/bob" "$WORK/lc/carol")
    run_mdat grade "${LOPTS[@]}" --no-times -o lcgrades --gradescope gs --rubric "$T/rubric.txt" "${LSUBS[@]}"
    expect_status 0
    [ "$status" -eq 0 ] || show
    expect_verdict lcgrades alice linearizable
    expect_verdict lcgrades bob not-linearizable checker
    expect_verdict lcgrades carol not-linearizable checker
    python3 - lcgrades/report.json lcgrades/report.csv gs <<'PY' || fail "lincheck fields of the reports"
import csv, json, os, sys
report, table, gs = sys.argv[1:]
subs = {s["name"].split("-", 1)[1]: s for s in json.load(open(report, encoding="utf-8"))["submissions"]}
rows = {r["name"].split("-", 1)[1]: r for r in csv.DictReader(open(table, newline="", encoding="utf-8"))}
a, b, c = subs["alice"], subs["bob"], subs["carol"]
# alice: every scenario checked, every one gone through whole by dpor.
assert a["schedules"] == 4 and a["failing"] == 0, a
assert a["lincheck"]["proved"] == 4 and a["lincheck"]["exploration"] == "dpor", a["lincheck"]
assert a["lincheck"]["interleavings"] > 4 and a["first_failure"] is None, a
assert rows["alice"]["scenarios_proved"] == "4" and rows["alice"]["failing_scenario"] == "", rows["alice"]
for name, s in (("bob", b), ("carol", c)):
    lc, ff = s["lincheck"], s["first_failure"]
    assert s["failing_by_kind"]["checker"] >= 1 and s["schedules"] == 4, s
    assert "NOT LINEARIZABLE" in lc["table"] and "| T2" in lc["table"], lc["table"]
    assert lc["failing_scenario"] and "T2" in lc["failing_scenario"], lc
    assert ff["kind"] == "checker" and ff["schedule_file"].endswith(".sched"), ff
    assert os.path.isfile(ff["schedule_file"]), ff["schedule_file"]
    assert "/lincheck/scenario-" in ff["schedule_file"], ff["schedule_file"]
    assert rows[name]["failing_scenario"] == lc["failing_scenario"], rows[name]
    assert rows[name]["replay"].startswith("mdat replay --trust-check "), rows[name]["replay"]
# bob's size() sees a pop's decrement before the push's increment.
assert "size() -> -1" in b["lincheck"]["table"], b["lincheck"]["table"]
# carol's ABA: T3's pop and T2's pop both return 1 (T2 reused its node for 3).
assert b["first_failure"]["execution"] == 1 and c["first_failure"]["execution"] == 2, (b, c)
rows_of_table = [l for l in c["lincheck"]["table"].splitlines() if "|" in l]
assert sum(l.count("pop() -> 1") for l in rows_of_table) == 2, c["lincheck"]["table"]
scores = {}
for d in sorted(os.listdir(gs)):
    scores[d.split("-", 1)[1]] = json.load(open(os.path.join(gs, d, "results.json")))["score"]
assert scores == {"alice": 8, "bob": 2, "carol": 2}, scores
PY
    # The saved schedule replays the non-linearizable history.
    sched=$(python3 -c 'import json,sys; print([s for s in json.load(open(sys.argv[1]))["submissions"] if s["name"].endswith("bob")][0]["first_failure"]["schedule_file"])' lcgrades/report.json)
    "$MDAT" replay --trust-check "$sched" </dev/null >replay.out 2>&1
    [ $? -eq 1 ] || fail "replay of bob's schedule: $(tail -3 replay.out)"
    grep -q 'size() -> -1' replay.out || fail "bob's replay lacks size() -> -1: $(tail -5 replay.out)"
    # Sharded: each shard checks its scenarios; merged, the same reports.
    mkdir whole && cp lcgrades/report.* whole/
    for k in 1 2; do
        run_mdat grade "${LOPTS[@]}" -o lcgrades --shard "$k/2" "${LSUBS[@]}"
        expect_status 0
        expect_out "scenarios $((k * 2 - 1))-$((k * 2))"
    done
    rm -f lcgrades/report.*
    run_mdat merge --no-times lcgrades/shard-1-of-2.json lcgrades/shard-2-of-2.json
    expect_status 0
    same_reports whole lcgrades
    # A spec error is a usage error naming the line, before any grading.
    printf 'object queue.o\nop pop( -> int queue_pop(q)\n' >bad.lc
    run_mdat grade --lincheck bad.lc "${LSUBS[@]}"
    expect_status 2
    expect_err "bad.lc:2"
    run_mdat grade --lincheck "$T/queue.lc" --check /bin/true "${LSUBS[@]}"
    expect_status 2
    no_tracee_left
    ;;
nonroot)
    # Everything of the sandbox, journal and --resume as an unprivileged
    # user (a user namespace instead of users of their own): uid 54321, not
    # nobody, whose 65534 is also the id an unmapped user namespace shows
    # (a map written from it works only for nobody). Needs root to become
    # that user; skipped otherwise (a non-root suite runs the other tests
    # as non-root already).
    if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
        echo "nonroot: skipped (needs root and setpriv to become an unprivileged user)"
        exit 77
    fi
    U=54321
    as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
    N=$WORK/u
    mkdir -p "$N/given" "$N/home" "$N/class"
    cp "$GRADE"/{alice,bob} "$N/given/"
    for n in killer saboteur reader filler forkbomb tracer stopper daemon "${NEW_HOSTILE[@]}"; do
        cp "$GRADE/hostile_$n" "$N/given/$n"
    done
    cp "$GRADE"/{alice,bob,carol,dave,erin} "$N/class/"
    echo "the grader's secret" >"$N/home/secret"
    chown -R $U:$U "$N"
    chmod o+x "$WORK"
    teacher_setup "$N" $U:$U
    before=$(cd "$N/given" && sha256sum -- *)
    (cd "$N" && HOME=$N/home HOSTILE_SECRET=$N/home/secret HOSTILE_OTHER=$N/given/alice \
        HOSTILE_TARGETS="$N/given:$N/out:$N/home" HOSTILE_TEACHER_FILE=$teacher_dir/notes.txt \
        HOSTILE_OTHER_SOURCE=$teacher_dir/class/alice.c HOSTILE_SOCKET=$teacher_dir/sock \
        as_user "$MDAT" grade -n 2 -j 1 --timeout 5 --max-steps 30000 --max-procs 32 --max-disk 64M \
        --submission-timeout 10 --no-times -o out "$N"/given/{alice,killer,saboteur,reader,bob,filler,forkbomb,tracer,stopper,daemon} \
        "${NEW_HOSTILE[@]/#/$N/given/}" </dev/null >"$WORK/out" 2>"$WORK/err")
    status=$?
    expect_status 0
    expect_new_hostile "$N/out"
    teacher_check "$N"
    expect_verdict "$N/out" alice ok
    expect_verdict "$N/out" bob deadlock deadlock
    expect_verdict "$N/out" killer sandbox-violation
    expect_verdict "$N/out" stopper sandbox-violation
    expect_verdict "$N/out" tracer sandbox-violation
    expect_verdict "$N/out" reader ok
    expect_verdict "$N/out" saboteur ok
    expect_verdict "$N/out" daemon ok
    expect_verdict "$N/out" filler ok
    v=$(field "$N/out/report.csv" forkbomb verdict)
    case "$v" in ''|mdat-error|not-graded) fail "forkbomb: verdict \"$v\" ($(field "$N/out/report.csv" forkbomb details))" ;; esac
    after=$(cd "$N/given" && sha256sum -- *)
    [ "$before" = "$after" ] || fail "the submissions as given changed: $(diff <(echo "$before") <(echo "$after"))"
    grep -q "the grader's secret" "$N/home/secret" || fail "HOME was written to"
    grep -q "NO SANDBOX" "$WORK/err" && fail "no sandbox: $(cat "$WORK/err")"
    expect_err "mdat grade: WARNING: not root: every submission runs as you (uid $U) in a user namespace"
    # Without root it can rewrite its schedule (the submission's user owns
    # the unit's files): mdat grade checks it against the hash it kept.
    (cd "$N" && as_user "$MDAT" grade -n 2 -j 1 --outcomes --no-times -o out-rw "$N/given/rewriter" \
        </dev/null >"$WORK/out" 2>"$WORK/err")
    status=$?
    expect_status 0
    expect_verdict "$N/out-rw" rewriter tampered
    field_has "$N/out-rw/report.csv" rewriter details "is not the one mdat wrote" ||
        fail "rewriter: $(field "$N/out-rw/report.csv" rewriter details)"
    sleep 0.5
    pgrep -f "sleep 4242" >/dev/null && fail "the daemon outlived grading: $(pgrep -af 'sleep 4242')"
    no_tracee_left

    # SIGINT midway, then --resume: the reports of an uninterrupted grading.
    ROPTS=(-n 6 -s 1 -j 1 --timeout 5 --max-steps 30000 --no-times)
    RSUBS=("$N"/class/{alice,bob,carol,dave,erin})
    (cd "$N" && as_user "$MDAT" grade "${ROPTS[@]}" -o r "${RSUBS[@]}" </dev/null >"$WORK/out" 2>"$WORK/err")
    status=$?
    expect_status 0
    mv "$N/r" "$N/whole"
    # (setpriv execs mdat: $! is mdat's pid)
    (cd "$N" && exec setpriv --reuid=$U --regid=$U --clear-groups "$MDAT" grade "${ROPTS[@]}" -o r "${RSUBS[@]}" \
        </dev/null >"$WORK/int.out" 2>&1) &
    pid=$!
    for _ in $(seq 600); do
        [ "$(cat "$N/r/journal.jsonl" 2>/dev/null | wc -l)" -ge 3 ] && break
        sleep 0.1
    done
    kill -INT "$pid"
    wait "$pid"
    st=$?
    [ "$st" -eq 130 ] || fail "interrupted: exit status $st, expected 130: $(tail -3 "$WORK/int.out")"
    grep -q '"complete": false' "$N/r/report.json" || fail "the interrupted report is not marked incomplete"
    decided=$(($(wc -l <"$N/r/journal.jsonl") - 1))
    [ "$decided" -ge 2 ] && [ "$decided" -lt 5 ] || fail "$decided submissions decided before SIGINT"
    (cd "$N" && as_user "$MDAT" grade --resume "${ROPTS[@]}" -o r "${RSUBS[@]}" </dev/null >"$WORK/out" 2>"$WORK/err")
    status=$?
    expect_status 0
    expect_out "resuming: $decided submission"
    same_reports "$N/whole" "$N/r"
    no_tracee_left
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac

finish
