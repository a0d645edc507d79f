# README, docs, help and outputs agree (issue 26 item 9, issue 42): every `kvbench` example in the
# code blocks of README.md and docs/*.md that needs no board (or only `local`) is run as written
# (out/results.db is this test's DB, other out/ paths are under its temp dir, NAME/BASE are `local`,
# `a | b` alternatives each run, an example given in two files runs once) and must exit 0; the
# examples that need a board, a kernel tree or a LAVA lab are skipped by an explicit list, so a new
# example that needs neither runs here. Then what the docs state is compared with what happens: the
# exit statuses (docs/running.md's list against `kvbench --help`), the columns of the results and
# comparison views (docs/results-database.md), the `comparison` query example, and the report's exit
# codes for a DB without runs, an empty file and another program's SQLite file.
. "$(dirname "$0")/lib.sh"
DOCS=("$SRC/README.md" "$SRC"/docs/*.md)
README=$T/docs.md # every page, one after the other, for what the docs state
cat "${DOCS[@]}" >"$README"
DB=$T/results.db
mkdir -p "$T/out"
export XDG_CONFIG_HOME=$T/cfg # `platform new` writes here
# lines of the pages' code blocks that start with a kvbench command, comments dropped, each once
python3 - "${DOCS[@]}" >"$T/examples" <<'PY'
import re, sys
seen = set()
for fn in sys.argv[1:]:
  inb = False
  for line in open(fn):
    if line.startswith("```"):
        inb = not inb
        continue
    if inb and re.match(r"(build/)?kvbench (--|[a-z])", line):
        l = line.rstrip("\n")
        while l.endswith("\\"):  # a continued line: not runnable as one here, kept whole for the skip list
            l = l[:-1] + " ..."
            break
        l = re.sub(r"\s+#.*$", "", l).strip()
        l = re.sub(r"^build/", "", l)
        if l not in seen:
            seen.add(l)
            print(l)
PY
check "README and docs/ have kvbench examples" test "$(wc -l <"$T/examples")" -ge 15
# what needs more than this host, with the reason
skip() {
  case "$1" in
    *out/eval.db*) echo "a DB of agendas/sched-evaluation.yaml run on a board" ;;
    *--workload\ jankbench*) echo "Jankbench results (an Android board)" ;;
    *--series*|*bisect*|*--repo*) echo "a kernel tree and the QEMU board" ;;
    *lava-lab*|*VMLINUZ*) echo "a LAVA lab" ;;
    *-p\ qemu*) echo "the QEMU board and Debian kernels (scripts/quickstart)" ;;
    *-sim\ *|*out/sim.db*) echo "a simulated board kept by scripts/sim-board (docs/boards.md)" ;;
    *run\ --resume*) echo "an interrupted run" ;;
    *) return 1 ;;
  esac
}
# README's first example as written (its options too), at most 2 rounds here: the test's time is bounded
first_ex=$(grep -m1 '^kvbench run agendas/quickstart-local.yaml' "$SRC/README.md" | sed 's/\s\+#.*$//')
check "README's first example runs quickstart-local on local ($first_ex)" test -n "$first_ex"
eval "set -- ${first_ex#kvbench }"
set -- "${@//out\/results.db/$DB}"
(cd "$SRC" && "$KVB" "$@" --max-rounds 2) >"$T/run.out" 2>"$T/run.err"; rc=$?
check "README's first example (quickstart-local on local) exits 0 (rc $rc)" test "$rc" -eq 0
ran=0
declare -A ran_cmds
while IFS= read -r ex; do
  if why=$(skip "$ex"); then
    echo "skip: $ex ($why)" >&2
    continue
  fi
  cmd=${ex#build/}
  cmd=${cmd#kvbench }
  case "$cmd" in run\ agendas/quickstart-local.yaml*) continue ;; esac # ran above
  cmd=${cmd//out\/results.db/$DB}
  cmd=${cmd//out\//$T/out/}
  # "show runs|variants|..." and "platform list | show NAME | ..." are several commands
  if [[ $cmd == *" | "* ]]; then
    first=${cmd%% *}
    IFS='|' read -ra alts <<<"$cmd"
    cmds=()
    for a in "${alts[@]}"; do
      a=$(echo "$a" | sed 's/^ *//; s/ *$//')
      [[ $a == "$first "* ]] || a="$first $a"
      cmds+=("$a")
    done
  elif [[ $cmd =~ ^([a-z]+)\ ([a-z]+\|[a-z|]+)\ (.*)$ ]]; then
    cmds=()
    IFS='|' read -ra alts <<<"${BASH_REMATCH[2]}"
    for a in "${alts[@]}"; do cmds+=("${BASH_REMATCH[1]} $a ${BASH_REMATCH[3]}"); done
  else
    cmds=("$cmd")
  fi
  for c in "${cmds[@]}"; do
    c=${c//NAME --from BASE/readme-board --from local}
    c=${c//NAME/local}
    [ -z "${ran_cmds[$c]:-}" ] || continue # the same command from another page ran already
    ran_cmds[$c]=1
    eval "set -- $c"
    "$KVB" "$@" >"$T/ex.out" 2>"$T/ex.err"; rc=$?
    ran=$((ran + 1))
    check "docs example 'kvbench $c' exits 0 (rc $rc)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || head -3 "$T/ex.err" >&2
  done
done <"$T/examples"
check "at least 15 docs examples ran" test "$ran" -ge 15
check "platform new from the docs wrote where platform check finds it" test -f "$XDG_CONFIG_HOME/kvbench/platforms/readme-board/platform.yaml"

# exit statuses: docs/running.md's list is kvbench --help's
"$KVB" --help >"$T/help"
sed -n '/^exit status:/,/^$/p' "$T/help" | sed -n 's/^  \([0-9]\) \(.*\)$/\1 \2/p' >"$T/codes"
check "help lists 9 exit statuses" test "$(wc -l <"$T/codes")" = 9
para=$(sed -n '/^Exit status:/,/^$/p' "$README" | tr '\n' ' ')
while IFS= read -r line; do
  check "docs' exit status list says '$line'" sh -c "printf '%s' \"\$1\" | grep -qF \"\$2\"" sh "$para" "$line"
done <"$T/codes"

# the views' columns as docs/results-database.md lists them
cols() { "$KVB" query -d "$DB" -f csv "select * from $1 limit 0" | head -1; }
readme_results=$(sed -n '/^- `results`: one row per metric: `/,/classifiers`/p' "$README" | tr '\n' ' ' | sed 's/.*one row per metric: `//; s/`.*//; s/ //g')
check "docs' results columns are the view's ($(cols results))" test "$readme_results" = "$(cols results)"
for c in run_id workload metric grp variant n mean variance min max baseline baseline_mean perc_diff; do
  check "comparison has the docs' column $c" sh -c "cols_=\$(\"\$1\" query -d \"\$2\" -f csv 'select * from comparison limit 0' | head -1); echo \",\$cols_,\" | grep -q ',$c,'" sh "$KVB" "$DB"
done
q_ex=$(grep -o 'kvbench query "select[^"]*from comparison[^"]*"' "$README" | head -1 | sed 's/^kvbench query "//; s/"$//')
check "docs' comparison query selects the metric" sh -c "printf '%s' \"\$1\" | grep -q '^select metric, '" sh "$q_ex"
"$KVB" query -d "$DB" -f csv "$q_ex" >"$T/cq" 2>&1; rc=$?
check "docs' comparison query runs (rc $rc)" test "$rc" -eq 0
check "and prints the columns it names" test "$(head -1 "$T/cq")" = "metric,variant,grp,mean,perc_diff"
"$KVB" diff -d "$DB" >"$T/diff" 2>&1
check "diff's table has the boots column the docs describe" grep -q '| boots |' "$T/diff"

# report's exit codes as docs/report.md states them
printf 'variant,workload\n' >"$T/bad.csv"
"$KVB" import csv "$T/bad.csv" -d "$T/noruns.db" >/dev/null 2>&1 # fails: the DB is made, with no run
"$KVB" report -d "$T/noruns.db" -o "$T/r1.html" 2>"$T/re1"; rc=$?
check "report of a results DB without runs: exit 3 (rc $rc)" test "$rc" -eq 3
: >"$T/empty.db"
"$KVB" report -d "$T/empty.db" -o "$T/r2.html" 2>"$T/re2"; rc=$?
check "report of an empty file: exit 5, not a kvbench DB (rc $rc)" sh -c "test $rc -eq 5 && grep -q 'not a kvbench results database' '$T/re2'"
sqlite3 "$T/other.db" "create table notes(x); insert into notes values (1)"
"$KVB" report -d "$T/other.db" -o "$T/r3.html" 2>"$T/re3"; rc=$?
check "report of another program's SQLite file: exit 5 (rc $rc)" test "$rc" -eq 5
check "and that file is not written to (no kvbench table in it)" test "$(sqlite3 "$T/other.db" "select group_concat(name) from sqlite_master")" = "notes"
finish
