#!/usr/bin/env bash
# Installs what this project needs and is missing, on Debian or Ubuntu:
#   scripts/setup.sh          to run the service (poppler-utils, qpdf, LibreOffice and fonts, the npm dependencies that
#                             serving needs, with Node 24)
#   scripts/setup.sh --test   to run the tests as well (adds the npm development dependencies,
#                             PostgreSQL, Chromium, Python 3 and podman for the container image)
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# poppler-utils renders; qpdf reads each document's structure (outline, page labels, links,
# viewer preferences: docs/processing.md, "Document structure")
packages=(poppler-utils qpdf)
# LibreOffice headless turns office documents into PDFs (issue 45; docs/architecture.md, "Office
# documents"): the three -nogui applications (core and draw come as dependencies; the
# libreoffice-nogui metapackage would add base, math and Java-ish recommends), and the fonts
# Office documents name, metric-compatible so pages break where Word and PowerPoint break them:
# Carlito for Calibri, Caladea for Cambria, Liberation for Arial/Times/Courier, Noto for the other
# scripts, CJK included. Measured: 76 packages, 173 MB download, ~35 s to install.
packages+=(libreoffice-writer-nogui libreoffice-impress-nogui libreoffice-calc-nogui)
packages+=(fonts-crosextra-carlito fonts-crosextra-caladea fonts-liberation2 fonts-noto-core fonts-noto-cjk)
if [[ "${1:-}" == "--test" ]]; then
  # a real PostgreSQL for the external-store tests, real Chromium for the reader's tests (its
  # headless shell: the browser tests' own, half the CPU; the full browser: bench/), Python 3 for the third-party verification script of docs/audit.md
  # ...and podman, podman-compose, runc and mmdebstrap for the container image's and compose.yaml's test (it builds its own base
  # image: no registry is reachable from CI)
  # ...and faketime, to run a daemon on a machine whose clock is wrong (test/e2e/clockSkew)
  packages+=(postgresql chromium chromium-headless-shell python3 podman podman-compose runc mmdebstrap faketime)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  # The postgresql package starts a cluster of its own; the tests start their own servers instead.
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v npm >/dev/null; then
  echo "setup: npm is missing: install Node.js (any version >= 18) with npm first" >&2
  exit 1
fi

# npm dependencies: for serving, only what serving needs (`--omit=dev`: 236 packages, 380 MB);
# with --test, the development dependencies too (vitest, s3rver, pdfjs-dist...: 675, 712 MB).
# Install when node_modules is missing, older than the lock file, or lacks the development
# dependencies that --test asks for. Once they are there they stay: an install for serving alone
# would remove them (npm prunes what it omits), so it then installs everything as before.
# The `node` package in the dependencies puts Node 24 in node_modules/.bin, which npm scripts
# and `npm exec` use.
# `npm install` rather than `npm ci`: npm 11 leaves other platforms' optional packages (biome's
# and node-poppler's binaries for macOS and Windows) out of the lock file and then `npm ci`
# refuses it as out of sync; `npm install` follows the same lock file.
with_dev=false
# vitest: one development dependency, standing for them all
if [[ "${1:-}" == "--test" || -f node_modules/vitest/package.json ]]; then with_dev=true; fi
if [[ ! -x node_modules/.bin/node || package-lock.json -nt node_modules/.package-lock.json ]] ||
  [[ $with_dev == true && ! -f node_modules/vitest/package.json ]]; then
  if [[ $with_dev == true ]]; then
    echo "setup: installing npm dependencies (with the development ones, for the tests)" >&2
    npm install --no-audit --no-fund --loglevel=error
  else
    echo "setup: installing npm dependencies (what serving needs; --test adds the rest)" >&2
    npm install --omit=dev --no-audit --no-fund --loglevel=error
  fi
fi

# `npm exec -- flipbook` runs node_modules/.bin/flipbook, linked by package.json's postinstall
# (here for a node_modules installed before it). package.json names no "bin" of its own on
# purpose: with one, npm exec read the whole installed tree first, 1.3-3.5 s on every call.
[[ -L node_modules/.bin/flipbook ]] || ln -sf ../../bin/flipbook node_modules/.bin/flipbook

echo "setup: ready ($(node_modules/.bin/node --version), $(pdftoppm -v 2>&1 | head -n1))" >&2
