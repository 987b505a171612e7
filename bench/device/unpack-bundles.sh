#!/usr/bin/env bash
# On the device: unpacks build-gpu-pack/ (bench/device/pack-bundles.sh) into build-gpu-lt/, build-gpu-rp/, .fla/.
set -euo pipefail
cd "$(dirname "$0")/../.."
for a in build-gpu-pack/*.tar.xz; do tar -xJf "$a"; done
ls build-gpu-lt/bin build-gpu-rp/bin 2>/dev/null | tr '\n' ' '; echo
