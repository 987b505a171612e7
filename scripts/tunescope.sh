#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   scripts/tunescope.sh app    install what is missing, build, start the GUI on the bundled sample profile
#   scripts/tunescope.sh test   install what is missing, build everything, run all tests (ctest)
#   scripts/tunescope.sh build  install what is missing and build
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build_dir=${TUNESCOPE_BUILD_DIR:-$root/build}
jobs=${TUNESCOPE_JOBS:-$(nproc)}

packages=(build-essential cmake git pkg-config libssl-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
          qt6-base-dev libqt6svg6-dev libqcustomplot-dev xvfb xauth
          hipcc libamdhip64-dev clang-14 libclang-rt-14-dev
          slurm-wlm munge  # the single-node SLURM of tests/cli/slurm.cmake (docs/cluster.md)
          python3-minimal)  # tests/cli/hardening/export_kill.py (kill -9 during export-fla)

setup() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "tunescope: installing ${missing[*]}" >&2
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

build() {
    local cuda_args=()
    [ -x /usr/local/cuda/bin/nvcc ] && cuda_args=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda_args[@]}" ${TUNESCOPE_CMAKE_ARGS:-}
    cmake --build "$build_dir" -j "$jobs"
}

case "${1:-}" in
    app)
        setup; build
        profile="$root/profiles/fla-l2norm-gfx942-profile.json"
        if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
            echo "tunescope: no display; starting under xvfb-run (set DISPLAY to see the window)" >&2
            exec xvfb-run -a "$build_dir/bin/tunescope" "$profile"
        fi
        exec "$build_dir/bin/tunescope" "$profile"
        ;;
    test)
        setup; build
        cd "$build_dir"
        exec ctest --output-on-failure -j "$jobs"
        ;;
    build)
        setup; build
        ;;
    *)
        echo "usage: $0 app|test|build" >&2
        exit 2
        ;;
esac
