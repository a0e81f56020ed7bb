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

step "Installing what is missing and building escrow, the compute server and the example apps"
./scripts/install-deps.sh
swift build 2>&1 | tail -n 1
./scripts/build-modules.sh
bin="$root/.build/debug"
escrow="$bin/escrow"

# Background processes of the demo (compute server, platform service, daemon): stopped at exit.
pids=()
cleanup() {
  for pid in "${pids[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
  if [ -z "$keep" ]; then rm -rf "$home"; fi
}
if [ -n "$keep" ]; then
  home="$keep"
else
  home=$(mktemp -d "${TMPDIR:-/tmp}/escrow-demo.XXXXXX")
fi
trap cleanup EXIT

# Starts a program in the background (remembered for cleanup) and waits for its "listening on …"
# line; sets $port to what it printed. Not to be called in $(…): the pid must reach this shell.
start() {
  local log="$1"; shift
  "$@" > "$log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 1 100); do
    if grep -q "listening on" "$log"; then port=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$log" | head -1); return 0; fi
    sleep 0.1
  done
  echo "demo: $* did not start: $(cat "$log")" >&2
  return 1
}
# The flow id in an app's "escrow approve XXXX" hint.
pending_flow() { sed -n 's/.*escrow approve \([0-9a-f]*\).*/\1/p' | head -1; }
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

step "7b. The individual lowers its location accuracy: the same dataflow, a new decision; the app still works"
echo "The app never said how precisely it needs the location, so it got it exactly. Now it gets a point"
echo "within 5 km (the same one however often it asks), and only its region is computed from that:"
show "$escrow" approve "$flow" --location-accuracy 5km
show "$escrow" run "${wikipedia[@]}"
show "$escrow" flows
show "$escrow" audit show "$("$escrow" audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["seq"])')"

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
echo "...nor around what you are shown: a purpose that would rewrite the screen is refused, escaped:"
show "$escrow" run --app org.example.sneaky --purpose $'Weather\r\e[2KWhat it reads: nothing' \
  --sql "SELECT phoneNumbers FROM Contact" --compute identity || true

step "11. Apps through the SDK: the daemon, the compute server and the apps' own backend"
echo "The operator's compute server (mutual TLS, certificates made just now), the apps' backend,"
echo "and the individual's daemon, which apps reach through a private socket:"
bash certs/make-dev-certs.sh "$home/certs" --quiet
start "$home/compute.log" "$bin/escrow-compute" --listen 127.0.0.1:0 \
  --cert "$home/certs/server.pem" --key "$home/certs/server-key.pem" --client-ca "$home/certs/ca.pem"
compute_port=$port
start "$home/platform.log" "$bin/EscrowPlatform" --listen 127.0.0.1:0
platform_port=$port
# The apps' backend answers under the names apps use; the escrow's resolver sends them to it here
# (never to the internet). One is a real analytics tracker's name, as EasyPrivacy lists it.
show "$escrow" config set network.resolve "api.weather.example.com=127.0.0.1 ssl.google-analytics.com=127.0.0.1"
start "$home/daemon.log" "$escrow" serve
echo "compute server on 127.0.0.1:$compute_port, backend on 127.0.0.1:$platform_port, daemon on $home/escrow.sock"
show "$escrow" servers add compute-1 --address "127.0.0.1:$compute_port" --ca "$home/certs/ca.pem" \
  --server-name compute-1 --client-cert "$home/certs/client.pem" --client-key "$home/certs/client-key.pem"
backend="http://127.0.0.1:$platform_port"

step "12. A weather app (the paper's running example) asks for your city only: reviewed, approved, answered"
weather=(--service "http://api.weather.example.com:$platform_port"
         --analytics "http://ssl.google-analytics.com:$platform_port/collect")
out=$("$bin/EscrowWeatherApp" "${weather[@]}" || true); echo "$out"
weather_flow="$(echo "$out" | pending_flow)"
echo "Before approving, the individual sees which services its code may contact:"
show "$escrow" flows show "$weather_flow"
show "$escrow" approve "$weather_flow"
show "$bin/EscrowWeatherApp" "${weather[@]}"

step "12b. What left: every domain the weather code contacted, the tracker flagged"
show "$escrow" flows show "$weather_flow"
echo "The individual blocks the tracker; the app still gets the weather, the blocked request is recorded:"
show "$escrow" filter block google-analytics.com
show "$bin/EscrowWeatherApp" "${weather[@]}"
show "$escrow" audit show "$("$escrow" audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["seq"])')"

step "13. Contact discovery on the compute server: hashed numbers out, only matches back"
out=$("$bin/EscrowContactDiscoveryApp" --directory "$backend" --server compute-1 || true); echo "$out"
show "$escrow" flows show "$(echo "$out" | pending_flow)"
show "$escrow" approve "$(echo "$out" | pending_flow)"
show "$bin/EscrowContactDiscoveryApp" --directory "$backend" --server compute-1

step "13b. The compute tier: one server, two replicas; the replica in use dies; the app's runs go on"
replica=()
for index in 1 2; do
  start "$home/replica-$index.log" "$bin/escrow-compute" --listen 127.0.0.1:0 \
    --cert "$home/certs/server.pem" --key "$home/certs/server-key.pem" --client-ca "$home/certs/ca.pem"
  replica+=("$port:${pids[-1]}")
done
show "$escrow" servers add tier --address "127.0.0.1:${replica[0]%%:*}" --address "127.0.0.1:${replica[1]%%:*}" \
  --ca "$home/certs/ca.pem" --server-name compute-1
out=$("$bin/EscrowContactDiscoveryApp" --directory "$backend" --server tier || true); echo "$out"
show "$escrow" approve "$(echo "$out" | pending_flow)"
show "$bin/EscrowContactDiscoveryApp" --directory "$backend" --server tier
used=$("$escrow" audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["attempts"][-1]["address"])')
for entry in "${replica[@]}"; do
  if [ "127.0.0.1:${entry%%:*}" = "$used" ]; then
    echo "It ran on the replica at $used, which now dies (SIGKILL). The next run tries it, then the other:"
    kill -9 "${entry##*:}"; wait "${entry##*:}" 2>/dev/null || true
  fi
done
show "$bin/EscrowContactDiscoveryApp" --directory "$backend" --server tier
show "$escrow" audit show "$("$escrow" audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["seq"])')"
echo "The dead address is skipped for a while (1 s, doubling to 30 s), then tried again:"
show "$escrow" servers show tier

step "14. Nearby articles: it asks for 1 km accuracy; only the area around that point leaves"
out=$("$bin/EscrowNearbyArticlesApp" --service "$backend" || true); echo "$out"
show "$escrow" approve "$(echo "$out" | pending_flow)"
show "$bin/EscrowNearbyArticlesApp" --service "$backend"

step "15. Photo labels: the pictures are decoded inside the escrow; the app gets labels and look-alikes"
out=$("$bin/EscrowPhotoLabelsApp" --limit 6 || true); echo "$out"
show "$escrow" approve "$(echo "$out" | pending_flow)"
show "$bin/EscrowPhotoLabelsApp" --limit 6
echo "Asking for more pictures than approved is a different dataflow; the individual denies it:"
out=$("$bin/EscrowPhotoLabelsApp" --limit 50 || true); echo "$out"
show "$escrow" deny "$(echo "$out" | pending_flow)" --reason "only my latest pictures"
show "$bin/EscrowPhotoLabelsApp" --limit 50 || true
echo "The same labelling on the compute server (the pictures travel over mutual TLS, labels come back):"
out=$("$bin/EscrowPhotoLabelsApp" --limit 6 --server compute-1 || true); echo "$out"
show "$escrow" approve "$(echo "$out" | pending_flow)" --once
show "$bin/EscrowPhotoLabelsApp" --limit 6 --server compute-1

step "15b. An app brings its own compute: a WebAssembly module, reviewed by what it can do"
area_module="$root/.build/modules/location-bounds.wasm"
out=$("$bin/EscrowAreaApp" --module "$area_module" || true); echo "$out"
area_flow="$(echo "$out" | pending_flow)"
echo "What the module can do is read from what it imports, not from what it says: it imports no network function."
show "$escrow" flows show "$area_flow"
show "$escrow" modules show example.location-bounds
show "$escrow" approve "$area_flow"
show "$bin/EscrowAreaApp" --module "$area_module"
echo "The same module on the compute server: the escrow sends its bytes the first time, then only its digest:"
out=$("$bin/EscrowAreaApp" --module "$area_module" --server compute-1 || true); echo "$out"
show "$escrow" approve "$(echo "$out" | pending_flow)"
show "$bin/EscrowAreaApp" --module "$area_module" --server compute-1
echo "A module that does import the network says so before anyone approves it:"
show "$escrow" modules add "$root/.build/modules/weather-swift.wasm"
echo "A module that asks for more than the escrow offers (here, WASI's clock) is refused when added:"
cat > "$home/clock.c" <<'C'
__attribute__((import_module("wasi_snapshot_preview1"), import_name("clock_time_get"))) int clock_time_get(int, long long, int);
__attribute__((export_name("escrow_run"))) int escrow_run(void) { return clock_time_get(0, 0, 0); }
C
"$(dirname "$(command -v swiftc)")/clang" --target=wasm32 -O2 -nostdlib -Wl,--no-entry -o "$home/clock.wasm" "$home/clock.c"
show "$escrow" modules add "$home/clock.wasm" || true
show "$escrow" modules list

step "16. Every attempt, allowed or refused, is in the audit log, and the log is tamper-evident"
show "$escrow" flows
show "$escrow" audit
show "$escrow" audit verify

step "17. Reports: what each app's code contacted, ranked; a minimized export; an HTML report"
show "$escrow" report apps
show "$escrow" report cooccurrence google-analytics.com --window 5
show "$escrow" export
show "$escrow" report html --out "$home/transparency-report.html"
echo "(one self-contained page with the dataflows, each app's metrics and charts; with --keep DIR it stays in DIR)"

step "Done"
echo "Stopping the daemon, the compute server and the backend."
if [ -n "$keep" ]; then echo "The demo home is kept at $home"; else echo "The demo home was temporary and is removed."; fi
