#!/usr/bin/env bash
# Builds the libFuzzer harnesses (Fuzz/) and runs each for a bounded time over its committed seed
# corpus (Fuzz/Corpus/<harness>/). See docs/RELIABILITY.md.
#
#   scripts/fuzz.sh [--seconds N] [--merge] [--quick-build] [HARNESS...]
#
#   --seconds N    how long each harness runs (default 600)
#   --merge        afterwards, minimize the run's new inputs into the committed corpus
#   --quick-build  build without the optimizer, in Fuzz/.build-ci: half the compile time, a
#                  fraction of the speed; for CI's smoke run (scripts/test.sh)
#   HARNESS        fuzz-envelope fuzz-frame fuzz-vcard fuzz-gpx fuzz-geojson fuzz-csv fuzz-sql
#                  (default: all, one after the other)
#
# New inputs go to a scratch corpus, Fuzz/.build/fuzz/<harness>/corpus (Fuzz/.build-ci/fuzz/ with
# --quick-build; kept between runs, never committed), crash inputs beside it. Prints, per harness,
# executions, executions per second and libFuzzer's coverage (cov: edges, ft: features). Exits 1
# when a harness crashes, leaks or breaks an invariant, naming the input that did it; 2 on a usage
# error. Run it under `nice -n 19` on a shared machine. FUZZ_RSS_LIMIT_MB overrides the memory
# limit (2048 MB; docs/RELIABILITY.md says why fuzz-gpx's long runs need more).
set -euo pipefail
cd "$(dirname "$0")/.."

all=(fuzz-envelope fuzz-frame fuzz-vcard fuzz-gpx fuzz-geojson fuzz-csv fuzz-sql)
seconds=600
merge=false
scratch=Fuzz/.build
build=(swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
harnesses=()

usage() {
  sed -n '5,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --seconds)
      [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "error: --seconds needs a whole number of seconds above 0" >&2; usage; }
      seconds="$2"
      shift 2
      ;;
    --merge) merge=true; shift ;;
    --quick-build) scratch=Fuzz/.build-ci; build+=(--scratch-path "$scratch" -Xswiftc -Onone); shift ;;
    -h|--help) usage ;;
    -*) echo "error: unknown option '$1'" >&2; usage ;;
    *)
      if [[ " ${all[*]} " != *" $1 "* ]]; then
        echo "error: no harness named '$1'; the harnesses are: ${all[*]}" >&2
        exit 2
      fi
      harnesses+=("$1")
      shift
      ;;
  esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")

# -sanitize=fuzzer links libFuzzer, whose driver each harness's `main` calls; lld links (gold
# fails on the address sanitizer's debug information).
echo "== building the fuzzing harnesses (${build[*]:2})"
"${build[@]}"
bin="$("${build[@]}" --show-bin-path)"

# Leaks are findings too, except the toolchain's own listed in Fuzz/lsan.supp. Swift's backtracer
# is off: libFuzzer's crash handler reports (and the backtracer trips the address sanitizer).
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

failed=()
for harness in "${harnesses[@]}"; do
  work="$scratch/fuzz/$harness"
  mkdir -p "$work/corpus"
  log="$work/last-run.log"
  options=(
    -max_total_time="$seconds"
    -rss_limit_mb="${FUZZ_RSS_LIMIT_MB:-2048}"  # a harness over 2 GiB of memory is a finding
    -timeout=10                 # so is one input that takes over 10 s
    -max_len=65536
    -print_final_stats=1
    -artifact_prefix="$work/"
  )
  [ -f "Fuzz/Dictionaries/$harness.dict" ] && options+=(-dict="Fuzz/Dictionaries/$harness.dict")

  echo "== $harness: ${seconds}s over Fuzz/Corpus/$harness (new inputs: $work/corpus)"
  status=0
  "$bin/$harness" "${options[@]}" "$work/corpus" "Fuzz/Corpus/$harness" >"$log" 2>&1 || status=$?

  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  coverage="$(grep -aoE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 || true)"
  echo "   executions: ${executions:-?}  exec/s: ${speed:-?}  ${coverage:-cov: ?}  scratch corpus: $(find "$work/corpus" -type f | wc -l) files"

  if [ "$status" -ne 0 ]; then
    artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
    grep -aE 'invariant broken|Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' "$log" | head -5 | sed 's/^/   /' >&2 || true
    echo "error: $harness failed (exit $status); the input that did it: ${artifact:-none written}" >&2
    echo "       reproduce: $bin/$harness ${artifact:-<input>}   full log: $log" >&2
    failed+=("$harness")
    continue
  fi

  if $merge; then
    before="$(find "Fuzz/Corpus/$harness" -type f | wc -l)"
    "$bin/$harness" -merge=1 -max_len=65536 "Fuzz/Corpus/$harness" "$work/corpus" >"$work/merge.log" 2>&1
    echo "   merged into Fuzz/Corpus/$harness: $before -> $(find "Fuzz/Corpus/$harness" -type f | wc -l) files"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "error: ${#failed[@]} harness(es) failed: ${failed[*]} (see above for each input)" >&2
  exit 1
fi
echo "== fuzzing: ${#harnesses[@]} harness(es) ran ${seconds}s each without a crash"
