#!/usr/bin/env bash
# Installs what pteforge needs to build and test, and nothing that is already
# there: Debian packages that dpkg-query reports missing (apt-get update only
# then), and node_modules from the committed lockfile when missing or older
# than package-lock.json. Never installs nodejs/npm (Node 20 is on the machine).
# Usage: scripts/setup.sh [--browser]   (--browser also installs chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config python3 python3-yaml
          flatbuffers-compiler libflatbuffers-dev rapidjson-dev libzip-dev
          doctest-dev libcli11-dev emscripten zip)
if [[ "${1:-}" == "--browser" ]]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -d node_modules || package-lock.json -nt node_modules ]]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  touch node_modules
fi
