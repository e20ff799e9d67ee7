#!/usr/bin/env bash
# Install, build and check tgsim on Debian 12 (the two commands at the top of README.md use it).
#
#   bash tools/setup.sh demo       install missing packages, build Release, simulate one GEMM
#   bash tools/setup.sh test       install missing packages, build Release (-Werror), run every test
#   bash tools/setup.sh sanitize   build the tests with ASan + UBSan in build-sanitize/ and run them
#   bash tools/setup.sh deps       only install the missing packages
#
# Environment: BUILD_DIR (default build), SANITIZE_BUILD_DIR (default build-sanitize),
# JOBS (default: all cores), TGSIM_WERROR (default ON: warnings are errors in the Release build,
# as on CI; the sanitizer build leaves them warnings), SANITIZE_OPT (default -O0).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
SANITIZE_BUILD_DIR=${SANITIZE_BUILD_DIR:-build-sanitize}
JOBS=${JOBS:-$(nproc)}
TGSIM_WERROR=${TGSIM_WERROR:-ON}

# Debian packages the build, the tests and the plots need (README.md, "Build").
PACKAGES=(cmake ninja-build g++ libboost-graph-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libcli11-dev
          libgtest-dev libbenchmark-dev python3-matplotlib)

log() { printf '==> %s\n' "$*" >&2; }

install_missing_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  log "installing ${missing[*]}"
  local sudo=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      echo "setup.sh: missing packages (${missing[*]}) and not root; run as root or install them" >&2
      exit 1
    fi
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

configure_release() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTGSIM_WERROR="$TGSIM_WERROR" >/dev/null
}

cmd_demo() {
  install_missing_packages
  configure_release
  log "building tgsim (Release) in $BUILD_DIR/"
  cmake --build "$BUILD_DIR" -j "$JOBS" --target tgsim
  log "tgsim gemm --gpu h200 --m 4096 --n 4096 --k 4096 --dtype bf16"
  "$BUILD_DIR/tools/tgsim/tgsim" gemm --gpu h200 --m 4096 --n 4096 --k 4096 --dtype bf16
}

cmd_test() {
  install_missing_packages
  configure_release
  log "building everything (Release, TGSIM_WERROR=$TGSIM_WERROR) in $BUILD_DIR/"
  cmake --build "$BUILD_DIR" -j "$JOBS"
  log "running the tests"
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
}

cmd_sanitize() {
  install_missing_packages
  # -O0 -g1 instead of RelWithDebInfo's -O2 -g: line tables are enough for file:line stack traces,
  # the sanitizers check as much (more: nothing is optimised away), the tests still run in seconds,
  # and this step builds in about a third of the time -O2 -g takes (measured on the 2-core dev machine).
  # SANITIZE_OPT=-O1 (or -O2) builds this step optimised.
  cmake -S . -B "$SANITIZE_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${SANITIZE_OPT:--O0} -g1 -DNDEBUG" -DTGSIM_SANITIZE=ON -DTGSIM_BUILD_BENCH=OFF \
    >/dev/null
  log "building the tests with AddressSanitizer and UndefinedBehaviorSanitizer in $SANITIZE_BUILD_DIR/"
  cmake --build "$SANITIZE_BUILD_DIR" -j "$JOBS"
  log "running the tests under ASan/UBSan"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$SANITIZE_BUILD_DIR" --output-on-failure -j "$JOBS" -LE fidelity
}

case "${1:-}" in
  demo) cmd_demo ;;
  test) cmd_test ;;
  sanitize) cmd_sanitize ;;
  deps) install_missing_packages ;;
  *)
    sed -n '/^set -euo/q; 2,$p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
