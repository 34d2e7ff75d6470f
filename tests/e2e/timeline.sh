#!/usr/bin/env bash
# End-to-end tests of the pictures of an execution: the .html and .svg
# timelines `mdat run` saves with a failure, `mdat replay --timeline`, and
# the page as a headless Chromium renders it. One test per invocation:
#   timeline.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME [BROWSER]
# The browser test fails when no Chromium is found (scripts/setup installs
# the Debian package chromium); MDAT_NO_BROWSER=1 skips it (exit 77).
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4 BROWSER=${5:-}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# check_svg FILE LANES [HOLD...]: FILE parses as XML (python3's
# xml.etree), is an SVG with LANES lanes labelled "T<id> <start>", a mark
# with a tooltip for each step of the .trace beside it (when there is
# one), the failing step highlighted at the trace's last step, a hold bar
# for each HOLD object, a caption and a legend.
check_svg() {
    python3 - "$@" >"$WORK/svg.err" 2>&1 <<'PY' || fail "$1: $(tail -n 1 "$WORK/svg.err")"
import os, re, sys
import xml.etree.ElementTree as ET
path, lanes, holds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(path).getroot()
assert root.tag == S + "svg", "root is %s" % root.tag
def cls(e): return (e.get("class") or "").split()
groups = list(root.iter(S + "g"))
lane_groups = [g for g in groups if "lane" in cls(g)]
assert len(lane_groups) == lanes, "%d lanes, expected %d" % (len(lane_groups), lanes)
for g in lane_groups:
    names = [t for t in g.iter(S + "text") if "lane-name" in cls(t)]
    assert names and re.match(r"T%s \S" % g.get("data-thread"), "".join(names[0].itertext())), \
        "lane %s has no label T<id> <start>" % g.get("data-thread")
marks = [g for g in groups if "mark" in cls(g)]
for m in marks:
    title = m.find(S + "title")
    assert title is not None and title.text.startswith("step " + m.get("data-step")), "a mark without its tooltip"
trace = path[:-4] + ".trace"
if os.path.exists(trace):
    steps = [int(l.split()[0]) for l in open(trace) if l.strip()]
    assert sorted(int(m.get("data-step")) for m in marks) == steps, "the marks are not the steps of the trace"
    failing = [g for g in groups if "failure" in cls(g)]
    assert len(failing) == 1, "%d failing-step highlights" % len(failing)
    assert int(failing[0].get("data-step")) == steps[-1], "the failing step is not the last"
found = {g.get("data-object") for g in groups if "hold" in cls(g)}
for h in holds:
    assert h in found, "no hold bar for %s (bars: %s)" % (h, sorted(found))
captions = [t for t in root.iter(S + "text") if "caption" in cls(t)]
assert captions and "FAILURE" in "".join(captions[0].itertext()), "no failure caption"
assert any("legend" in cls(g) for g in groups), "no legend"
PY
}

case "$TEST" in
run)
    # A failure's re-run saves both pictures, and the reports list them.
    run_mdat run -n 300 -s 1 -o out-dir --json run.json "$TARGETS/deadlock_lock_order"
    expect_status 1
    sched=$(first_sched)
    stem=${sched%.sched}
    for suffix in html svg; do
        [ -s "$stem.$suffix" ] || fail "no .$suffix timeline saved with the failure"
        expect_out "out-dir/$(basename "$stem").$suffix"
    done
    expect_json '"timeline": "out-dir/[^"]*\.html"' run.json
    expect_json '"timeline-svg": "out-dir/[^"]*\.svg"' run.json
    check_svg "$stem.svg" 3 lock_a lock_b
    grep -q 'FAILURE deadlock at step' "$stem.svg" || fail "the caption does not name the deadlock"
    page=$stem.html
    head -n 1 "$page" | grep -qx '<!DOCTYPE html>' || fail "the page does not start with <!DOCTYPE html>"
    [ "$(grep -o '<g class="lane"' "$page" | wc -l)" -eq 3 ] || fail "the page does not show 3 lanes"
    grep -q '<p class="verdict">FAILURE deadlock' "$page" || fail "the page has no verdict"
    # Self-contained: nothing to fetch, no script.
    grep -qiE '<script|<link|<img|@import|url\((https?:|//)' "$page" && fail "the page loads something: $(grep -oiE '<script|<link|<img|@import' "$page" | head -1)"
    [ "$(grep -o 'http' "$page" | wc -l)" -eq 1 ] || fail "the page names a URL besides the SVG namespace"
    ;;
replay)
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/deadlock_lock_order"
    sched=$(first_sched)
    stem=${sched%.sched}
    # Replay draws the very picture the failure's re-run saved.
    run_mdat replay --timeline x.svg "$sched"
    expect_status 1
    cmp -s x.svg "$stem.svg" || fail "replay --timeline x.svg differs from the saved .svg"
    run_mdat replay --timeline x.html --trace "$sched"
    expect_status 1
    cmp -s x.html "$stem.html" || fail "replay --timeline x.html differs from the saved .html"
    [ "$(grep -cE '^ +[0-9]+ ' "$WORK/out")" -ge 10 ] || fail "--trace with --timeline printed no trace"
    run_mdat replay --timeline both.svg --timeline both.html "$sched"
    expect_status 1
    [ -s both.svg ] && [ -s both.html ] || fail "two --timeline files: not both written"
    # Other extensions are a usage error, said in one line.
    for bad in x.png x noext.svg.txt; do
        run_mdat replay --timeline "$bad" "$sched"
        expect_status 2
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "--timeline $bad: error is not one line: $(cat "$WORK/err")"
        [ ! -e "$bad" ] || fail "--timeline $bad wrote a file"
    done
    expect_err "must end in .html"
    run_mdat replay --timeline /nonexistent-dir/x.svg "$sched"
    expect_status 3
    expect_err "cannot write /nonexistent-dir/x.svg"
    # The pictures are files, never printed by --trace.
    run_mdat run -n 1 --trace=timeline "$TARGETS/correct_counter"
    expect_status 2
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "--trace=timeline: error is not one line: $(cat "$WORK/err")"
    expect_err "--timeline FILE"
    ;;
many_threads)
    # 100 threads (and main): one lane each, and a file of reasonable size.
    run_mdat run -n 1 -s 6 --check false -o out-dir "$TARGETS/many_threads"
    expect_status 1
    stem=$(first_sched)
    stem=${stem%.sched}
    check_svg "$stem.svg" 101
    for suffix in svg html; do
        size=$(stat -c %s "$stem.$suffix")
        echo "many_threads: .$suffix is $size bytes for $(wc -l <"$stem.trace") steps"
        [ "$size" -lt 2000000 ] || fail "the .$suffix of 100 threads takes $size bytes"
    done
    ;;
opens_on_failure)
    # The page opens on the failing step: a 61-step failure fits a
    # 1400x900 window whole, a 411-step one opens scrolled to its end (no
    # script); in both the failing step's red column is on screen. A
    # deadlock's wait cycle is drawn. Skipped without Chromium.
    [ -x "$BROWSER" ] || BROWSER=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
    if [ "${MDAT_NO_BROWSER:-}" = 1 ] || [ -z "$BROWSER" ]; then
        echo "$TEST: skipped (no Chromium, or MDAT_NO_BROWSER=1)"
        exit 77
    fi
    for rounds in 13 100; do
        run_mdat run --races=off -n 200 -s 1 -o "out-$rounds" --check "$TARGETS/check_sum.sh" \
            "$TARGETS/lost_update_sum" $rounds
        expect_status 1
        page=$(ls "$WORK/out-$rounds"/*.html | head -n 1)
        steps=$(wc -l <"${page%.html}.trace")
        if [ "$rounds" = 13 ]; then
            [ "$steps" -ge 55 ] && [ "$steps" -le 80 ] || fail "lost_update_sum 13 failed in $steps steps, not about 60"
            grep -q '<div class="scroll fit">' "$page" || fail "a $steps-step picture is not fitted to the window"
        else
            [ "$steps" -ge 300 ] || fail "lost_update_sum 100 failed in $steps steps only"
            grep -q '<div class="scroll wide">' "$page" || fail "a $steps-step picture does not open at its end"
        fi
        grep -q '<script' "$page" && fail "the page has a script"
        timeout 60 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
            --user-data-dir="$WORK/profile" --virtual-time-budget=3000 --window-size=1400,900 \
            --screenshot="$WORK/open-$rounds.png" "file://$page" >/dev/null 2>>"$WORK/browser.err"
        [ -s "$WORK/open-$rounds.png" ] || fail "no screenshot: $(tail -n 3 "$WORK/browser.err")"
        # The failing step's column: #ff0000 at 10% on white.
        read -r count x0 y0 _ <<<"$(python3 "$(dirname "$0")/png_region.py" "$WORK/open-$rounds.png" 255 229 229 2)"
        echo "$steps steps: failing column of $count pixels at x=${x0:-none} y=${y0:-none}"
        [ "$count" -gt 300 ] && [ "$y0" -lt 400 ] ||
            fail "the failing step of a $steps-step failure is not in the window on open ($count pixels)"
    done
    # A deadlock: arrows between the lanes make its wait cycle.
    run_mdat run -n 300 -s 1 -o out-dl "$TARGETS/deadlock_lock_order"
    expect_status 1
    page=$(ls "$WORK/out-dl"/*.html | head -n 1)
    [ "$(grep -o '<g class="wait-edge cycle" data-from="[23]" data-to="[23]"' "$page" | wc -l)" -eq 2 ] ||
        fail "the deadlock's wait cycle T2 -> T3 -> T2 is not drawn"
    grep -q '<g class="wait-edge" data-from="1" data-to="2"><title>T1 waits for T2: join T2' "$page" ||
        fail "T1's join of T2 is not drawn"
    grep -q '>waiting on mutex lock_b (held by T3)</text>' "$page" || fail "T2's wait is not written whole"
    ;;
browser)
    if [ "${MDAT_NO_BROWSER:-}" = 1 ]; then
        echo "$TEST: skipped (MDAT_NO_BROWSER=1)"
        exit 77
    fi
    [ -x "$BROWSER" ] || BROWSER=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
    if [ -z "$BROWSER" ]; then
        echo "FAIL: no Chromium to render the timeline in: install it (scripts/setup installs the Debian package chromium), or set MDAT_NO_BROWSER=1 to skip this test"
        exit 1
    fi
    run_mdat run -n 500 -s 3 -o out-dir "$TARGETS/condvar_signal_lost"
    expect_status 1
    stem=$(first_sched)
    stem=${stem%.sched}
    [ -s "$stem.html" ] || fail "no .html timeline saved"
    # As root Chromium needs --no-sandbox; its own profile keeps runs apart.
    browse() {
        timeout 60 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
            --user-data-dir="$WORK/profile" --enable-logging=stderr --v=0 --virtual-time-budget=3000 "$@" \
            2>>"$WORK/browser.err"
    }
    for doc in html svg; do
        browse --window-size=1400,900 --screenshot="$WORK/$doc.png" "file://$stem.$doc" >/dev/null
        [ -s "$WORK/$doc.png" ] || fail "no screenshot of the .$doc: $(tail -n 3 "$WORK/browser.err")"
    done
    browse --dump-dom "file://$stem.html" >dom.html
    browse --print-to-pdf="$WORK/page.pdf" --no-pdf-header-footer "file://$stem.html" >/dev/null
    # The screenshots are pictures, not blank pages: many colours, the marks'
    # among them, and the failure's red.
    for doc in html svg; do
        python3 - "$WORK/$doc.png" >"$WORK/png.err" 2>&1 <<'PY' || fail "$doc.png: $(tail -n 1 "$WORK/png.err")"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, header = 8, b"", None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
width, height, depth, colour, _, _, interlace = header
assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format %r" % (header,)
bpp = 3 if colour == 2 else 4
raw, stride = zlib.decompress(idat), width * bpp
rows, prev = [], bytearray(stride)
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
pixels = [tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)]
colours = set(pixels)
inked = sum(1 for p in pixels if p != (255, 255, 255))
assert len(colours) > 50, "only %d colours: blank?" % len(colours)
assert inked > len(pixels) // 100, "almost nothing drawn (%d pixels)" % inked
near = lambda p, q: all(abs(x - y) < 40 for x, y in zip(p, q))
for name, rgb in [("read", (0, 114, 178)), ("sync", (230, 159, 0)), ("failure red", (176, 0, 0))]:
    assert any(near(p, rgb) for p in colours), "no %s pixels" % name
PY
    done
    # The DOM after rendering has the lanes, the marks and the failure.
    [ "$(grep -o '<g class="lane"' dom.html | wc -l)" -eq 3 ] || fail "the rendered DOM has not 3 lanes"
    [ "$(grep -o '<g class="mark' dom.html | wc -l)" -eq "$(wc -l <"$stem.trace")" ] ||
        fail "the rendered DOM has not a mark per step"
    grep -q '<g class="failure"' dom.html || fail "the rendered DOM has no failing step"
    grep -q '<g class="wake"' dom.html || fail "the rendered DOM has no wake-up"
    grep -q 'FAILURE deadlock' dom.html || fail "the rendered DOM has no verdict"
    # It prints.
    [ "$(stat -c %s "$WORK/page.pdf" 2>/dev/null || echo 0)" -gt 10000 ] || fail "printing to PDF gave nothing"
    head -c 5 "$WORK/page.pdf" | grep -q '%PDF-' || fail "printing did not give a PDF"
    # No script error, no console message (the page has no script at all).
    grep -qE 'Uncaught|CONSOLE\(' "$WORK/browser.err" && fail "the browser reported: $(grep -m1 -E 'Uncaught|CONSOLE\(' "$WORK/browser.err")"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac

finish
