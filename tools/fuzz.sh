#!/usr/bin/env bash
# Fuzz every parser with libFuzzer (docs/reliability.md). Not part of CI's default path.
#   bash tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s, all targets)
# Builds build-fuzz/ with clang-14 (-fsanitize=fuzzer,address,undefined), seeds each target's
# working corpus from tests/fuzz/corpus/<target>, runs it for the time given with a 10 s
# per-input timeout (hangs) and a 2 GiB memory limit, and prints executions and findings.
# A crashing input lands in build-fuzz/artifacts/<target>/; copy it into
# tests/fuzz/corpus/<target>/ after fixing the bug so the fuzz_corpus_<target> test keeps it fixed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_PER=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(tile_graph specs schedules units kernel_names tables)
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTGSIM_FUZZ=ON -DTGSIM_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" --target $(printf 'fuzz_%s ' "${TARGETS[@]}")
status=0
for t in "${TARGETS[@]}"; do
  work="$BUILD/corpus/$t" art="$BUILD/artifacts/$t"
  mkdir -p "$work" "$art"
  cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  log="$BUILD/fuzz_$t.log"
  set +e
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    "$BUILD/tests/fuzz/fuzz_$t" "$work" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$art/" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  found=$(ls "$art" | wc -l)
  echo "fuzz_$t: ${SECONDS_PER} s, ${execs} executions, exit ${rc}, ${found} finding(s), corpus $(ls "$work" | wc -l) inputs (log $log)"
  [ "$rc" -ne 0 ] || [ "$found" -ne 0 ] && status=1
done
exit $status
