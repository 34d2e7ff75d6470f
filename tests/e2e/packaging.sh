#!/usr/bin/env bash
# End-to-end tests of what mdat installs: the man pages and --help texts
# made from docs/man, the shell completions, `cmake --install`, the Debian
# package (built by cpack, installed into a scratch root with dpkg --root)
# and the sample CI workflow in docs/. One test per invocation:
#   packaging.sh MDAT BUILD_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 BUILD=$2 SRC=$3 TEST=$4
TARGETS=$BUILD/tests/targets SOURCES=$SRC/tests/targets
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

PAGES=(mdat mdat-run mdat-replay mdat-shrink mdat-attach mdat-grade mdat-merge mdat-lincheck)

# rendered PAGE_FILE: the page as man shows it, plain text, 80 columns.
rendered() { MANWIDTH=80 man -l "$1" 2>"$WORK/man.err" | col -b; }

# long_options TEXT_FILE: the --options a help text or page lists, one a line.
long_options() { grep -oE -- '(^|[ ,[])--[a-z][a-z-]+' "$1" | grep -oE -- '--[a-z][a-z-]+' | sort -u; }

# check_page PAGE_FILE COMMAND...: the page renders without warnings, has the
# sections every page has, and lists every option `COMMAND --help` lists.
check_page() {
    local page=$1
    shift
    rendered "$page" >"$WORK/page.txt" || fail "man -l $page failed: $(cat "$WORK/man.err")"
    [ -s "$WORK/man.err" ] && fail "man -l $page warns: $(head -3 "$WORK/man.err")"
    for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS"; do
        grep -q "^$section" "$WORK/page.txt" || fail "$page has no $section section"
    done
    "$MDAT" "$@" --help >"$WORK/help.txt" 2>&1 || fail "mdat $* --help failed"
    long_options "$WORK/help.txt" >"$WORK/help.opts"
    long_options "$WORK/page.txt" >"$WORK/page.opts"
    local missing
    missing=$(comm -23 "$WORK/help.opts" "$WORK/page.opts" | tr '\n' ' ')
    [ -z "$missing" ] || fail "$page lacks options that mdat $* --help lists: $missing"
}

# The options each command's parser takes, from the getopt tables in ui/.
accepted_options() {
    grep -rhoE '\{"[a-z][a-z-]+", *(no|required|optional)_argument' "$SRC/ui" | grep -oE '"[a-z-]+"' | tr -d '"' |
        sort -u
}

case "$TEST" in
man_pages)
    # Each page renders, and carries every option of its command's --help
    # (both come from docs/man/PAGE.1.scd: this catches the generator).
    check_page "$BUILD/man/mdat.1"
    for p in run replay shrink attach grade merge lincheck; do
        check_page "$BUILD/man/mdat-$p.1" "$p"
    done
    for p in "${PAGES[@]}"; do
        gzip -t "$BUILD/man/$p.1.gz" || fail "$p.1.gz is not gzip"
        cmp -s <(gzip -dc "$BUILD/man/$p.1.gz") "$BUILD/man/$p.1" || fail "$p.1.gz is not $p.1"
    done
    # A --help text is what its page's OPTIONS say, line for line.
    rendered "$BUILD/man/mdat-run.1" >run.txt
    grep -q -- "--schedules N" run.txt || fail "mdat-run(1) lacks --schedules N"
    "$MDAT" run --help >help.txt
    grep -qE -- '^  -n, --schedules N +executions to try \(default 1000\)$' help.txt ||
        fail "mdat run --help lacks its --schedules line: $(head -5 help.txt)"
    ;;
options)
    # Every option a command's parser takes is documented in some page, and
    # every option a --help lists is taken by that command.
    for p in "${PAGES[@]}"; do rendered "$BUILD/man/$p.1"; done >all-pages.txt
    long_options all-pages.txt >documented.opts
    for o in $(accepted_options); do
        grep -qx -- "--$o" documented.opts || fail "option --$o is in the code but in no page of docs/man"
    done
    for cmd in run replay shrink attach grade merge lincheck; do
        "$MDAT" "$cmd" --help >help.txt
        # Options with a value are given one (--opt=x), flags none; either
        # way nothing runs (no program is given), and the command must not
        # call the option unknown.
        while read -r opt arg; do
            [ "$opt" = --help ] && continue
            if [ -n "$arg" ]; then given="$opt=x"; else given=$opt; fi
            "$MDAT" "$cmd" "$given" </dev/null >probe.out 2>&1
            grep -qE 'is unknown or needs a value|unknown option' probe.out &&
                fail "mdat $cmd --help lists $opt, but mdat $cmd does not take it: $(cat probe.out)"
        done < <(grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]+(\[?=?[A-Z]| [A-Z])?' help.txt |
                 sed -E 's/^ +(-[a-zA-Z], )?//; s/(--[a-z-]+)\[?=?([A-Z])?$/\1 \2/; s/(--[a-z-]+) ([A-Z])$/\1 \2/')
    done
    ;;
completions)
    # bash: the completion function offers commands, a command's options and
    # directories after -o; zsh parses its file.
    # comp WORDS...: completes the last word; offered WORD: it was offered.
    comp() {
        bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _mdat; printf "%s\n" "${COMPREPLY[@]}"' \
            _ "$BUILD/completions/mdat" "$@" >"$WORK/offered"
    }
    offered() { grep -qx -- "$1" "$WORK/offered"; }
    comp mdat gr; offered grade || fail "bash: 'mdat gr' does not complete to grade"
    comp mdat run --sche; offered --schedules || fail "bash: 'mdat run --sche' does not offer --schedules"
    comp mdat grade --gra; offered --gradescope || fail "bash: 'mdat grade --gra' does not offer --gradescope"
    comp mdat run --jun; offered --junit || fail "bash: 'mdat run --jun' does not offer --junit"
    mkdir -p somedir && touch somefile
    comp mdat run -o some; offered somedir || fail "bash: 'mdat run -o' does not offer directories"
    comp mdat run -o some; offered somefile && fail "bash: 'mdat run -o' offers files"
    comp mdat replay some; offered somefile || fail "bash: 'mdat replay' does not offer files"
    if command -v zsh >/dev/null; then
        zsh -n "$BUILD/completions/_mdat" || fail "zsh: _mdat does not parse"
    else
        fail "zsh is not installed (scripts/setup installs it)"
    fi
    grep -q "'\*--gradescope=\[" "$BUILD/completions/_mdat" || fail "zsh: no --gradescope for mdat grade"
    ;;
install)
    # cmake --install into a prefix of our own: every file in its place.
    cmake --install "$BUILD" --prefix "$WORK/prefix" >install.out 2>&1 || fail "cmake --install: $(tail -3 install.out)"
    P=$WORK/prefix
    [ -x "$P/bin/mdat" ] || fail "no bin/mdat"
    for p in "${PAGES[@]}"; do
        [ -s "$P/share/man/man1/$p.1.gz" ] || fail "no share/man/man1/$p.1.gz"
    done
    [ -s "$P/share/bash-completion/completions/mdat" ] || fail "no bash completion"
    [ -s "$P/share/zsh/site-functions/_mdat" ] || fail "no zsh completion in share/zsh/site-functions (prefix not /usr)"
    for f in README.md architecture.md schedule-format.md json.md junit.xsd ci-github-actions.yml \
             examples/Makefile examples/README.md examples/restroom/restroom_deadlock.c \
             examples/restroom/restroom_deadlock.sched examples/restroom/check_restroom.sh; do
        [ -s "$P/share/doc/mdat/$f" ] || fail "no share/doc/mdat/$f"
    done
    [ -x "$P/share/doc/mdat/examples/restroom/check_restroom.sh" ] || fail "check_restroom.sh is not executable"
    for f in CMakeLists.txt check_examples.sh cases.txt; do
        [ -e "$P/share/doc/mdat/examples/$f" ] && fail "examples/$f (mdat's own build and tests) is installed"
    done
    rendered "$P/share/man/man1/mdat-grade.1.gz" >grade.txt
    grep -q -- "--gradescope DIR" grade.txt || fail "installed mdat-grade(1) lacks --gradescope"
    ;;
deb)
    # cpack builds mdat_VERSION_amd64.deb with its dependencies declared;
    # dpkg installs it into a scratch root, and mdat, its man pages and an
    # example work from there.
    version=$("$MDAT" --version | awk '{print $2}')
    cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/pkg" >cpack.out 2>&1 || fail "cpack: $(tail -5 cpack.out)"
    deb=$WORK/pkg/mdat_${version}_amd64.deb
    [ -s "$deb" ] || { fail "no $deb: $(ls "$WORK/pkg")"; finish; }
    depends=$(dpkg-deb -f "$deb" Depends)
    names=" $(sed -E 's/ \([^)]*\)//g; s/,//g' <<<"$depends") "
    for lib in libc6 libelf1 libdwarf1 libzydis4.0 libncursesw6 libtinfo6 libstdc++6; do
        [[ "$names" == *" $lib "* ]] || fail "Depends lacks $lib: $depends"
    done
    # Every dependency is met by what this machine has installed.
    IFS=',' read -ra clauses <<<"$depends"
    for clause in "${clauses[@]}"; do
        read -r pkg op ver <<<"$(sed -E 's/[()]//g' <<<"$clause")"
        have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)
        [ -n "$have" ] || { fail "dependency $pkg is not installed here"; continue; }
        [ -z "$op" ] || dpkg --compare-versions "$have" "$op" "$ver" || fail "dependency $clause: installed $have"
    done
    R=$WORK/root
    mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" && touch "$R/var/lib/dpkg/status"
    # --path-include: a host that leaves out docs (path-exclude, as in slim
    # container images) must not leave them out of this root.
    dpkg --root="$R" --force-depends --path-include='/usr/share/man/*' --path-include='/usr/share/doc/*' -i "$deb" >dpkg.out 2>&1 || fail "dpkg --root -i: $(tail -5 dpkg.out)"
    dpkg --root="$R" -s mdat >status.txt
    grep -q '^Status: install ok installed' status.txt || fail "dpkg does not list mdat as installed"
    [ "$("$R/usr/bin/mdat" --version)" = "mdat $version" ] || fail "installed mdat --version: $("$R/usr/bin/mdat" --version)"
    rendered "$R/usr/share/man/man1/mdat-run.1.gz" >run.txt
    grep -q -- "--schedules N" run.txt || fail "man -l of the installed mdat-run(1): $(head -5 run.txt; cat "$WORK/man.err")"
    [ -s "$R/usr/share/zsh/vendor-completions/_mdat" ] || fail "no zsh completion in vendor-completions"
    [ -s "$R/usr/share/bash-completion/completions/mdat" ] || fail "no bash completion"
    # An installed example, built with its Makefile in a copy, found and replayed.
    cp -r "$R/usr/share/doc/mdat/examples" ex
    make -s -C ex restroom/restroom_deadlock >make.out 2>&1 || fail "make in the installed examples: $(tail -3 make.out)"
    (cd ex/restroom && "$R/usr/bin/mdat" replay restroom_deadlock.sched </dev/null >"$WORK/out" 2>"$WORK/err")
    status=$?
    expect_status 1
    expect_out "reproduced FAILURE deadlock"
    (cd ex/restroom && "$R/usr/bin/mdat" run -n 10 -s 1 -j 1 --check ./check_restroom.sh ./restroom_deadlock \
        </dev/null >"$WORK/out" 2>"$WORK/err")
    status=$?
    expect_status 1
    expect_out "FAILURE deadlock"
    ;;
ci_sample)
    # The "Run the tests under mdat" step of docs/ci-github-actions.yml, as
    # written, on two programs: the JUnit reports parse and carry the
    # failure, the schedule is kept, and the step fails.
    python3 - "$SRC/docs/ci-github-actions.yml" >step.sh <<'PY' || fail "no such step in the workflow"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
steps = [s for job in doc["jobs"].values() for s in job["steps"]]
step = [s for s in steps if s.get("name") == "Run the tests under mdat"][0]
print(step["run"])
PY
    mkdir -p bin && ln -s "$MDAT" bin/mdat
    PATH=$WORK/bin:$PATH MDAT_PROGRAMS="$TARGETS/correct_counter $TARGETS/deadlock_lock_order" MDAT_SCHEDULES=20 \
        bash -e step.sh >step.out 2>&1
    [ $? -ne 0 ] || fail "the step passed although deadlock_lock_order deadlocks"
    ls mdat-out/deadlock_lock_order/*.sched >/dev/null 2>&1 || fail "no schedule kept in mdat-out/deadlock_lock_order"
    python3 - mdat-results <<'PY' || fail "the JUnit reports of the CI step"
import sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ok = ET.parse(f"{d}/correct_counter.xml").getroot()
bad = ET.parse(f"{d}/deadlock_lock_order.xml").getroot()
assert ok.get("failures") == "0" and ok.find(".//failure") is None
f = bad.find("testsuite/testcase/failure")
assert f is not None and f.get("type") == "deadlock", ET.tostring(bad)
assert "mdat replay mdat-out/deadlock_lock_order/" in f.text
PY
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
