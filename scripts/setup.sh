#!/usr/bin/env bash
# Installs what pteforge needs to build and test, and nothing that is already
# there. Safe to run again and again (every build/test script runs it first):
#  - Debian packages that dpkg-query reports missing are installed with apt-get
#    (`apt-get update` runs only then); nothing is upgraded;
#  - node_modules comes from the committed lockfile (`npm ci --ignore-scripts`)
#    when it is missing or older than package-lock.json / package.json.
# Never installs nodejs or npm: Node >= 20 with npm must already be there
# (NodeSource's package on the CI machine); the script stops if apt-get would
# pull Debian's nodejs or npm in as a dependency.
#
# Needs root (or passwordless sudo) only when a package is missing. Emscripten
# needs no first-run step: Debian's emscripten ships its config
# (/usr/share/emscripten/.emscripten, FROZEN_CACHE) and prebuilt system
# libraries, and nothing writes to /usr/share/emscripten/cache.
#
# Usage: scripts/setup.sh [--browser]   (--browser also installs chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

browser=0
for arg in "$@"; do
  case "$arg" in
    --browser) browser=1 ;;
    *) echo "usage: scripts/setup.sh [--browser]" >&2; exit 2 ;;
  esac
done

# Everything a build or test reads, by the step that needs it:
packages=(
  cmake ninja-build g++ pkg-config          # native build (presets use Ninja)
  python3 python3-yaml                      # code generators in scripts/
  flatbuffers-compiler libflatbuffers-dev   # flatc + headers for program.fbs
  rapidjson-dev libcli11-dev doctest-dev    # header-only libraries, unit tests
  libxxhash-dev                             # xxhash.h (XXH3-128 constant dedup, header-only)
  robin-map-dev                             # tsl/robin_map.h (the IR's name tables, header-only)
  libzip-dev                                # .pt2 archives, native CLI
  libdeflate-dev                            # CRC-32 of archive entries, native CLI
  libmimalloc-dev                           # the native CLI's allocator (cmake/Dependencies.cmake)
  clang-14 libclang-rt-14-dev               # ASan/UBSan build (preset native-asan) and its runtimes
  emscripten node-acorn                     # WASM build (acorn: E1)
  zip                                       # test fixtures (archives)
  strace                                    # tests/cli/interrupt.sh (signals at each write)
)
if ((browser)); then
  packages+=(chromium)                      # browser tests (playwright-core)
fi

die() { echo "setup: $*" >&2; exit 1; }

# Node and npm are prerequisites, never installed here.
command -v node >/dev/null || die "node not found: install Node.js >= 20 (e.g. NodeSource's nodejs package) first"
command -v npm >/dev/null || die "npm not found: install Node.js >= 20 with npm (NodeSource's nodejs package) first"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
((node_major >= 20)) || die "node $(node --version) is too old: pteforge needs Node.js >= 20"

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || die "not root and no sudo: run as root: apt-get install ${missing[*]}"
    sudo=(sudo -n)
  fi
  export DEBIAN_FRONTEND=noninteractive
  # force-unsafe-io: no fsync per unpacked file (emscripten alone is ~800 MB of files).
  apt_opts=(-y -q -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false -o Dpkg::Options::=--force-unsafe-io)
  "${sudo[@]}" apt-get update -q >/dev/null
  # A dependency must not replace the Node.js that is there (emscripten and
  # node-acorn depend on nodejs; NodeSource's package satisfies that).
  plan="$("${sudo[@]}" apt-get install -s "${apt_opts[@]}" "${missing[@]}")"
  if grep -Eq '^Inst (nodejs|npm|libnode[0-9]*) ' <<<"$plan"; then
    die "apt-get would install Debian's nodejs/npm ($(grep -E '^Inst (nodejs|npm|libnode[0-9]*) ' <<<"$plan" | cut -d' ' -f2 | tr '\n' ' ')); install Node.js >= 20 as a Debian package (NodeSource) first"
  fi
  "${sudo[@]}" apt-get install "${apt_opts[@]}" "${missing[@]}" >/dev/null
  for p in "${missing[@]}"; do
    dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || die "$p did not install"
  done
fi

# node_modules from the lockfile. The stamp is written only after a successful
# `npm ci`, so an interrupted install is redone on the next run.
stamp=node_modules/.pteforge-npm-ci
if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]]; then
  echo "setup: npm ci"
  # --ignore-scripts: no install script may download anything (browsers come
  # from Debian's chromium, not from playwright).
  npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error
  touch "$stamp"
fi
