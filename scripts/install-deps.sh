#!/usr/bin/env bash
# Installs the Debian packages Escrow needs, only those missing. Idempotent, non-interactive.
set -euo pipefail

packages=(
  pkg-config          # finds the system libraries below
  libsqlite3-dev      # the store: SQLite through its C API
  libexif-dev         # photo import: EXIF dates and GPS
  libturbojpeg0-dev   # photos.labels: JPEG decoding (libjpeg-turbo's TurboJPEG API)
  libpng-dev          # photos.labels: PNG decoding (libpng's simplified API)
  libxml2             # GPX import (FoundationXML)
  sqlite3             # the sqlite3 shell: the audit tamper tests edit escrow.sqlite with it
  protobuf-compiler   # protoc: Proto/generate.sh, and the test that the committed code is fresh
  protobuf-c-compiler # protoc-c: the C interop client's protobuf code
  libprotobuf-c-dev   # the C interop client: protobuf-c
  libssl-dev          # the C interop client: OpenSSL's libssl
  openssl             # certs/make-dev-certs.sh (tests make their certificates at run time)
  make                # building the C interop client
  gcc                 # building the C interop client
  tmux                # the display-integrity tests render CLI output through a real terminal
  publicsuffix        # the Public Suffix List: registrable domains of the hosts compute code contacts
  webext-ublock-origin-firefox  # EasyList and EasyPrivacy: which of those hosts track people
  python3             # scripts/check-modules.py: the module graph's rules (standard library only)
  python3-venv        # scripts/check-deploy.sh: kubernetes-validate and checkov in a virtual environment under .build/
  chromium            # the HTML transparency report's test renders it headless (ChromiumReportTests)
  haproxy             # the compute tier test: replicas behind a TCP balancer with health checks (TierTests)
  iproute2            # the compute tier test: each replica in a network namespace of its own (ip netns, veth)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "error: ${missing[*]} must be installed, and this user is not root (no sudo either)." >&2
    echo "       Ask an administrator to run: apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
