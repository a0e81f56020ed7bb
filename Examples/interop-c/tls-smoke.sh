#!/usr/bin/env bash
# tls-smoke.sh — checks escrow-interop-client's TLS and length-prefixed messages without the Swift server.
#
# A stand-in server, `openssl s_server -tls1_3 -Verify 1 -verify_return_error`, sends a
# pre-encoded Catalog and ComputeResponse (encoded by protoc's C++ runtime with `protoc --encode`,
# i.e. not by protobuf-c) and records what the client sends; the records are decoded with
# `protoc --decode` and compared. Then the negative cases: wrong server name, a client
# certificate from another CA, an expired client certificate, a server certificate the client's
# CA did not sign, an Error envelope, and an oversized length prefix.
#
# Env: BUILD_DIR (default <root>/.build/interop-c), PROTO_DIR (default <root>/Proto).
# Needs: openssl, protoc (protobuf-compiler), python3, and the client built by `make`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/.build/interop-c}
PROTO_DIR=${PROTO_DIR:-$root/Proto}
client="$BUILD_DIR/escrow-interop-client"
[ -x "$client" ] || { echo "tls-smoke: build the client first (make -C Examples/interop-c)" >&2; exit 1; }
command -v protoc >/dev/null || { echo "tls-smoke: needs protoc (apt-get install protobuf-compiler)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/escrow-tls-smoke.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

passed=0 failed=0
ok()  { passed=$((passed + 1)); echo "ok   - $*"; }
bad() { failed=$((failed + 1)); echo "FAIL - $*"; }

"$root/certs/make-dev-certs.sh" "$tmp/certs" --negative --quiet
C="$tmp/certs"
"$root/certs/make-dev-certs.sh" "$tmp/rogue" --quiet   # a whole second PKI: its server cert is foreign

# --- server payloads, encoded by protoc (C++ runtime) --------------------------------------------
encode() {  # encode NAME < textproto  -> $tmp/NAME.bin (4-byte big-endian length + Envelope)
    protoc -I "$PROTO_DIR" --encode=escrow.v1.Envelope "$PROTO_DIR/escrow.proto" >"$tmp/$1.pb"
    python3 - "$tmp/$1.pb" "$tmp/$1.bin" <<'EOF'
import struct, sys
body = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(struct.pack(">I", len(body)) + body)
EOF
}
encode catalog <<'EOF'
request_id: 1
catalog {
  server_id: "compute-1"
  functions { id: "contacts.tuples" version: 1 code_digest: "1111111111111111111111111111111111111111111111111111111111111111" summary: "Flattens contacts." }
  functions { id: "photos.count" version: 2 code_digest: "2222" }
}
EOF
encode response <<'EOF'
request_id: 2
compute_response {
  compute_micros: 42
  output {
    row_count: 2
    columns { name: "name" type: COLUMN_TYPE_STRING string_values: "Ada Lovelace" string_values: "tab\there" }
    columns { name: "phones" type: COLUMN_TYPE_INT64 int64_values: 1 int64_values: -3 }
    columns { name: "ok" type: COLUMN_TYPE_BOOL bool_values: true bool_values: false null_bitmap: "\002" }
  }
}
EOF
encode error <<'EOF'
request_id: 2
error { code: UNKNOWN_FUNCTION message: "no such function" }
EOF

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start PAYLOAD_FILE [s_server args...]: serves one connection on a fresh port, sends PAYLOAD
# once the client is connected, and records what the client sends in $tmp/received.
start() {
    local payload="$1"; shift
    port=$(free_port)
    ( cat "$payload"; sleep 15 ) | openssl s_server -quiet -naccept 1 -accept "127.0.0.1:$port" \
        -tls1_3 -Verify 1 -verify_return_error -CAfile "$C/ca.pem" "$@" \
        >"$tmp/received" 2>"$tmp/server.err" &
    server_pid=$!
    for _ in $(seq 1 100); do   # wait until it listens (a probe connection would use up -naccept 1)
        if [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then return 0; fi
        sleep 0.05
    done
    echo "tls-smoke: openssl s_server did not start: $(cat "$tmp/server.err")" >&2
    exit 1
}
stop() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    server_pid=""
}
run_client() {  # run_client EXPECTED_RC [client args...]; output in $tmp/out, $tmp/err
    local want="$1"; shift
    set +e
    "$client" --host 127.0.0.1 --port "$port" --timeout 5 "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" = "$want" ]
}
srv=(-cert "$C/server.pem" -key "$C/server-key.pem")
cli=(--ca "$C/ca.pem" --cert "$C/client.pem" --key "$C/client-key.pem")

# 1. the happy path
cat "$tmp/catalog.bin" "$tmp/response.bin" >"$tmp/happy.bin"
start "$tmp/happy.bin" "${srv[@]}"
if run_client 0 "${cli[@]}" --server-name localhost; then ok "handshake with client certificate, catalog, compute (exit 0)"
else bad "happy path exited $rc: $(cat "$tmp/err")"; fi
stop
expected=$'function contacts.tuples 1 1111111111111111111111111111111111111111111111111111111111111111\nfunction photos.count 2 2222\ncolumns: name,phones,ok\nAda Lovelace\t1\ttrue\ntab\\there\t-3\tNULL'
if [ "$(cat "$tmp/out")" = "$expected" ]; then ok "client output (catalog lines, columns, rows, escaping, null)"
else bad "client output differs:"; diff <(echo "$expected") "$tmp/out" || true; fi

# What the client sent, decoded by protoc's C++ runtime.
python3 - "$tmp/received" "$tmp" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
i = n = 0
while i + 4 <= len(data):
    (size,) = struct.unpack(">I", data[i:i + 4])
    n += 1
    open(f"{sys.argv[2]}/sent{n}.pb", "wb").write(data[i + 4:i + 4 + size])
    i += 4 + size
if i != len(data):
    sys.exit(f"client sent {len(data) - i} trailing bytes that are not a whole message")
EOF
decode() { protoc -I "$PROTO_DIR" --decode=escrow.v1.Envelope "$PROTO_DIR/escrow.proto" <"$1"; }
if [ -f "$tmp/sent1.pb" ] && decode "$tmp/sent1.pb" >"$tmp/sent1.txt" \
    && grep -q '^request_id: 1$' "$tmp/sent1.txt" && grep -q '^hello {' "$tmp/sent1.txt"; then
    ok "first message is Envelope{request_id: 1, hello} (decoded by protoc)"
else bad "first message: $(cat "$tmp/sent1.txt" 2>/dev/null)"; fi
if [ -f "$tmp/sent2.pb" ] && decode "$tmp/sent2.pb" >"$tmp/sent2.txt" \
    && grep -q '^request_id: 2$' "$tmp/sent2.txt" && grep -q '^compute_request {' "$tmp/sent2.txt" \
    && grep -q 'code_digest: "1111111111111111111111111111111111111111111111111111111111111111"' "$tmp/sent2.txt" \
    && grep -q 'function_version: 1$' "$tmp/sent2.txt" && grep -q 'function_id: "contacts.tuples"' "$tmp/sent2.txt" \
    && grep -q 'string_values: "Ada"' "$tmp/sent2.txt" \
    && grep -q 'string_values: "\[{\\"label\\":\\"mobile\\",\\"value\\":\\"+1 555 0100\\"}\]"' "$tmp/sent2.txt"; then
    ok "second message is Envelope{request_id: 2, compute_request} with the catalog version, digest and the input frame"
else bad "second message: $(cat "$tmp/sent2.txt" 2>/dev/null)"; fi
if [ -n "${VERBOSE:-}" ]; then cat "$tmp/sent1.txt" "$tmp/sent2.txt"; fi

# 2. an Error envelope -> "error CODE: message", exit 2
cat "$tmp/catalog.bin" "$tmp/error.bin" >"$tmp/err.bin"
start "$tmp/err.bin" "${srv[@]}"
if run_client 2 "${cli[@]}" --server-name compute-1 && grep -qx 'error UNKNOWN_FUNCTION: no such function' "$tmp/out"
then ok "Error envelope printed, exit 2"; else bad "error envelope: rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
stop

# 3. wrong server name -> verification failure, nothing sent
start "$tmp/happy.bin" "${srv[@]}"
if run_client 1 "${cli[@]}" --server-name evil.example && grep -q 'hostname mismatch' "$tmp/err"
then ok "wrong server name rejected: $(head -1 "$tmp/err")"; else bad "wrong name: rc=$rc $(cat "$tmp/err")"; fi
stop

# 4. server certificate from another CA -> verification failure
start "$tmp/happy.bin" -cert "$tmp/rogue/server.pem" -key "$tmp/rogue/server-key.pem"
if run_client 1 "${cli[@]}" --server-name localhost && grep -q 'unable to get local issuer certificate' "$tmp/err"
then ok "foreign server certificate rejected: $(head -1 "$tmp/err")"; else bad "foreign server: rc=$rc $(cat "$tmp/err")"; fi
stop

# 5. client certificate from another CA -> the server rejects it, the client says so
start "$tmp/happy.bin" "${srv[@]}"
if run_client 1 --ca "$C/ca.pem" --cert "$C/other-client.pem" --key "$C/other-client-key.pem" \
    --server-name localhost && grep -qi 'alert' "$tmp/err"
then ok "client certificate from another CA rejected: $(grep -i alert "$tmp/err" | head -1 | sed 's/^ *//')"
else bad "other CA client: rc=$rc $(cat "$tmp/err")"; fi
stop

# 6. expired client certificate
start "$tmp/happy.bin" "${srv[@]}"
if run_client 1 --ca "$C/ca.pem" --cert "$C/expired-client.pem" --key "$C/expired-client-key.pem" \
    --server-name localhost && grep -qi 'alert' "$tmp/err"
then ok "expired client certificate rejected: $(grep -i alert "$tmp/err" | head -1 | sed 's/^ *//')"
else bad "expired client: rc=$rc $(cat "$tmp/err")"; fi
stop

# 7. a length prefix above the client's maximum
printf '\x04\x00\x00\x01' >"$tmp/huge.bin"
start "$tmp/huge.bin" "${srv[@]}"
if run_client 1 "${cli[@]}" --server-name localhost && grep -q 'above the maximum' "$tmp/err"
then ok "oversized message refused: $(head -1 "$tmp/err")"; else bad "oversized: rc=$rc $(cat "$tmp/err")"; fi
stop

# 8. bytes that are not an Envelope
printf '\x00\x00\x00\x03\xff\xff\xff' >"$tmp/garbage.bin"
start "$tmp/garbage.bin" "${srv[@]}"
if run_client 1 "${cli[@]}" --server-name 127.0.0.1 && grep -q 'not a valid protobuf Envelope' "$tmp/err"
then ok "invalid protobuf refused (IP SAN accepted): $(head -1 "$tmp/err")"; else bad "garbage: rc=$rc $(cat "$tmp/err")"; fi
stop

echo "tls-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
