#!/usr/bin/env bash
# The Escrow demo: installs what is missing, builds, creates a demo escrow home with sample data,
# and runs the paper's dataflows end to end, narrating each step.
#
#   ./scripts/demo.sh            demo home in a new temporary folder (removed at the end)
#   ./scripts/demo.sh --keep DIR demo home in DIR, kept for you to explore
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

keep=""
if [ "${1:-}" = "--keep" ]; then keep="${2:?--keep needs a folder}"; fi

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$'; printf ' %q' "$@"; printf '\n'; "$@"; }

step "Installing what is missing and building escrow"
./scripts/install-deps.sh
swift build --product escrow 2>&1 | tail -n 1
escrow="$root/.build/debug/escrow"

if [ -n "$keep" ]; then
  home="$keep"
else
  home=$(mktemp -d "${TMPDIR:-/tmp}/escrow-demo.XXXXXX")
  trap 'rm -rf "$home"' EXIT
fi
export ESCROW_HOME="$home"
samples="$root/Examples/SampleData"

step "1. The individual creates their escrow home (ESCROW_HOME=$home)"
show "$escrow" init

step "2. They import their own data: contacts (vCard), a GPS track (GPX), a photo folder"
show "$escrow" import contacts "$samples/contacts.vcf"
show "$escrow" import locations "$samples/track.gpx"
show "$escrow" import photos "$samples/photos"
echo "Importing again changes nothing:"
show "$escrow" import contacts "$samples/contacts.vcf"

step "3. What apps can ask for: three tables, and registered compute functions"
show "$escrow" schema
show "$escrow" functions

step "4. Before anything runs, the escrow knows exactly which columns a query reads"
show "$escrow" lineage --sql "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"

# A run of a dataflow the individual has not decided on yet: the escrow stops it with exit status
# 2 and names it. Shows the command and the message, and keeps the flow id in $flow.
pending_run() {
  printf '$ %q run' "$escrow"; printf ' %q' "$@"; printf '\n'
  local status=0 message
  message=$("$escrow" run "$@" 2>&1 1>&3) || status=$?
  echo "$message"
  echo "(exit status $status)"
  flow=$(sed -n 's/.*dataflow \([0-9a-f]*\) is awaiting approval.*/\1/p' <<<"$message")
  [ -n "$flow" ] || { echo "expected the run to await approval" >&2; exit 1; }
}
exec 3>&1

wikipedia=(--app org.wikipedia --purpose "Show articles near you"
  --sql "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"
  --compute location.region --param radius=1000)
step "5. A Wikipedia-style app asks for your last location -> 1 km region. Nothing runs yet:"
pending_run "${wikipedia[@]}"

step "6. The individual reads what the app asked for, in plain words, and approves it"
show "$escrow" flows show "$flow"
show "$escrow" approve "$flow"

step "7. The app runs again: it gets the region; the point never leaves"
show "$escrow" run "${wikipedia[@]}"

step "8. A messenger's contact discovery (the paper's RQ2 flow), approved the same way"
messenger=(--app org.example.messenger --purpose "Find friends who use the app"
  --sql "SELECT givenName, familyName, phoneNumbers FROM Contact" --compute contacts.tuples)
pending_run "${messenger[@]}"
show "$escrow" approve "$flow" --once
show "$escrow" run "${messenger[@]}"

step "9. A gallery's timeline: counts by month and type, no picture leaves"
gallery=(--app org.example.gallery --purpose "Timeline of your library"
  --sql "SELECT mediaType, creationDate FROM Photos" --compute photos.summary --json)
pending_run "${gallery[@]}"
show "$escrow" approve "$flow"
show "$escrow" run "${gallery[@]}"

step "10. Apps cannot go around the guard"
show "$escrow" run --app org.example.sneaky --purpose "Read everything" \
  --sql "SELECT * FROM sqlite_master" --compute identity || true
show "$escrow" run --app org.example.sneaky --purpose "Wipe" \
  --sql "DELETE FROM Contact" --compute identity || true

step "11. Every attempt, allowed or refused, is in the audit log, and the log is tamper-evident"
show "$escrow" flows
show "$escrow" audit
show "$escrow" audit verify

step "Done"
if [ -n "$keep" ]; then echo "The demo home is kept at $home"; else echo "The demo home was temporary and has been removed."; fi
