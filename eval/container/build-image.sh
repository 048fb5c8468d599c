#!/usr/bin/env bash
# Builds the image crow eval --backend podman|docker runs tasks in, from
# Debian's packages alone (no registry pull): debootstrap lays out a
# minimal Debian with bash, Node.js and Python 3 (what the shipped tasks'
# checks run), and the engine imports that folder as an image.
#
#   eval/container/build-image.sh [podman|docker] [IMAGE]   (as root; needs debootstrap)
#
# Default: podman, localhost/crow-eval-debian:bookworm.
set -euo pipefail
engine="${1:-podman}"
image="${2:-localhost/crow-eval-debian:bookworm}"
suite="${CROW_EVAL_SUITE:-bookworm}"
mirror="${CROW_EVAL_MIRROR:-http://deb.debian.org/debian}"
command -v debootstrap >/dev/null || { echo "debootstrap is missing: apt-get install -y debootstrap" >&2; exit 1; }
command -v "$engine" >/dev/null || { echo "$engine is missing: apt-get install -y $engine" >&2; exit 1; }
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=bash,nodejs,python3 "$suite" "$root/rootfs" "$mirror" >"$root/debootstrap.log" 2>&1 \
  || { tail -20 "$root/debootstrap.log" >&2; exit 1; }
rm -rf "$root/rootfs/var/cache/apt/archives"/*.deb "$root/rootfs/var/lib/apt/lists"/*
tar -C "$root/rootfs" -c . | "$engine" import --change 'CMD ["bash"]' - "$image" >/dev/null
echo "built $image with $engine: $("$engine" run --rm --network none "$image" sh -c 'echo node $(node --version), $(python3 --version)')"
