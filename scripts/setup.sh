#!/usr/bin/env bash
# Installs what mgsim needs to build and test, from Debian packages, only if something is missing.
# Idempotent: when everything is there it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(
  make cmake ninja-build g++ clang libclang-rt-14-dev clang-format clang-tidy python3
  libboost-graph-dev libyaml-cpp-dev libeigen3-dev catch2 libfmt-dev libcli11-dev libbenchmark-dev
  python3-dev python3-pybind11 python3-pytest libopenmpi-dev openmpi-bin
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
