#!/usr/bin/env bash
# make-dev-certs.sh — development certificates for mutual TLS between the escrow host and its
# compute servers (escrow-compute). Uses only the openssl CLI (tested with Debian 12's OpenSSL 3.0).
#
#   certs/make-dev-certs.sh OUT_DIR [--server-name NAME]... [--client-name NAME] [--days N]
#                           [--expired] [--other-ca] [--negative] [--force] [--quiet]
#
# Writes into OUT_DIR (created with mode 0700 if missing):
#   ca.pem, ca-key.pem              EC P-256 escrow CA (CA:TRUE, pathlen:0)
#   server.pem, server-key.pem      escrow-compute server: CN=escrow-compute, EKU serverAuth,
#                                   SANs = DNS:<each --server-name> (default localhost, compute-1)
#                                   plus IP:127.0.0.1
#   client.pem, client-key.pem      escrow host: CN=escrow-host (--client-name), EKU clientAuth
# With --expired (or --negative):
#   expired-client.pem, expired-client-key.pem
#                                   a client certificate signed by the escrow CA whose notAfter is
#                                   in the past
# With --other-ca (or --negative):
#   other-ca.pem, other-ca-key.pem  a second, unrelated CA
#   other-client.pem, other-client-key.pem
#                                   a client certificate (same subject as client.pem) signed by
#                                   the other CA
#
# Private keys are written with mode 0600, certificates 0644. The script never overwrites an
# existing file unless --force is given: files that already exist are kept (and re-verified), only
# missing ones are created, signed by the existing CA (which needs ca-key.pem present). Running it
# twice is therefore harmless. --force regenerates everything it is asked for, including a new CA.
# Every certificate is checked with `openssl verify -CAfile` before the script exits 0.
set -euo pipefail

prog=$(basename "$0")
usage() {
    echo "usage: $prog OUT_DIR [--server-name NAME]... [--client-name NAME] [--days N]"
    echo "       [--expired] [--other-ca] [--negative] [--force] [--quiet]"
    echo "See the header of $0 or certs/README.md for details."
}
die() { echo "$prog: error: $*" >&2; exit 1; }

out_dir=""
server_names=()
explicit_names=0
client_name="escrow-host"
days=365
want_expired=0
want_other=0
force=0
quiet=0

while [ $# -gt 0 ]; do
    case "$1" in
        --server-name)
            [ $# -ge 2 ] || die "--server-name needs a value"
            server_names+=("$2"); explicit_names=1; shift 2 ;;
        --server-name=*) server_names+=("${1#*=}"); explicit_names=1; shift ;;
        --client-name)
            [ $# -ge 2 ] || die "--client-name needs a value"
            client_name="$2"; shift 2 ;;
        --client-name=*) client_name="${1#*=}"; shift ;;
        --days)
            [ $# -ge 2 ] || die "--days needs a value"
            days="$2"; shift 2 ;;
        --days=*) days="${1#*=}"; shift ;;
        --expired) want_expired=1; shift ;;
        --other-ca) want_other=1; shift ;;
        --negative) want_expired=1; want_other=1; shift ;;
        --force) force=1; shift ;;
        --quiet|-q) quiet=1; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        -*) usage >&2; die "unknown option: $1" ;;
        *)
            [ -z "$out_dir" ] || die "more than one OUT_DIR given ('$out_dir' and '$1')"
            out_dir="$1"; shift ;;
    esac
done
if [ $# -gt 0 ]; then
    { [ -z "$out_dir" ] && [ $# -eq 1 ]; } || die "unexpected arguments: $*"
    out_dir="$1"
fi
[ -n "$out_dir" ] || { usage >&2; die "OUT_DIR is required"; }
[[ "$days" =~ ^[1-9][0-9]{0,4}$ ]] || die "--days must be a positive integer (got '$days')"
[ ${#server_names[@]} -gt 0 ] || server_names=(localhost compute-1)
for n in "${server_names[@]}" "$client_name"; do
    [[ "$n" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] || die "invalid name '$n' (letters, digits, '.', '-')"
done
command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"

log() { [ "$quiet" = 1 ] || echo "$prog: $*"; }

mkdir -p "$out_dir"
chmod 0700 "$out_dir" 2>/dev/null || true
out_dir=$(cd "$out_dir" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/escrow-certs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A self-contained configuration, so the system openssl.cnf cannot add or change extensions.
san=""
for n in "${server_names[@]}"; do san="${san}DNS:$n,"; done
san="${san}IP:127.0.0.1"
cat >"$work/openssl.cnf" <<EOF
[ req ]
distinguished_name = req_dn
prompt             = no
string_mask        = utf8only
[ req_dn ]
CN = unused

[ ca_ext ]
basicConstraints       = critical, CA:TRUE, pathlen:0
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash

[ server_ext ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = $san
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[ client_ext ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

# Only used for the expired certificate when 'openssl x509' lacks -not_before/-not_after (< 3.4).
[ ca ]
default_ca = expired_ca
[ expired_ca ]
dir              = $work/ca-db
database         = \$dir/index.txt
new_certs_dir    = \$dir/new
serial           = \$dir/serial
default_md       = sha256
policy           = policy_any
unique_subject   = no
copy_extensions  = none
email_in_dn      = no
[ policy_any ]
organizationName = optional
commonName       = supplied
EOF
export OPENSSL_CONF="$work/openssl.cnf"

ossl() {  # run openssl, show its stderr only on failure
    if ! openssl "$@" 2>"$work/err"; then
        cat "$work/err" >&2
        die "openssl $1 failed"
    fi
}

serial() { echo "0x7$(openssl rand -hex 15)"; }   # 16 bytes, positive

# new_key FILE: EC P-256 private key (PKCS#8 PEM), mode 0600 from the start.
new_key() {
    local f="$1"
    rm -f "$f"
    ( umask 077; ossl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
        -pkeyopt ec_param_enc:named_curve -out "$f" )
    chmod 0600 "$f"
}

# new_ca NAME CN: self-signed CA NAME.pem / NAME-key.pem
new_ca() {
    local name="$1" cn="$2"
    new_key "$out_dir/$name-key.pem"
    ossl req -new -x509 -config "$work/openssl.cnf" -key "$out_dir/$name-key.pem" \
        -subj "/O=Escrow Development/CN=$cn" -days "$days" -sha256 \
        -extensions ca_ext -set_serial "$(serial)" -out "$out_dir/$name.pem"
    chmod 0644 "$out_dir/$name.pem"
    log "wrote $name.pem, $name-key.pem ($cn)"
}

# new_leaf NAME CN EXT CA: NAME.pem / NAME-key.pem signed by CA.pem / CA-key.pem
new_leaf() {
    local name="$1" cn="$2" ext="$3" ca="$4"
    new_key "$out_dir/$name-key.pem"
    ossl req -new -config "$work/openssl.cnf" -key "$out_dir/$name-key.pem" \
        -subj "/O=Escrow Development/CN=$cn" -out "$work/$name.csr"
    ossl x509 -req -in "$work/$name.csr" -CA "$out_dir/$ca.pem" -CAkey "$out_dir/$ca-key.pem" \
        -set_serial "$(serial)" -days "$days" -sha256 \
        -extfile "$work/openssl.cnf" -extensions "$ext" -out "$out_dir/$name.pem"
    chmod 0644 "$out_dir/$name.pem"
    log "wrote $name.pem, $name-key.pem (CN=$cn, signed by $ca.pem)"
}

# new_expired_leaf NAME CN CA: a clientAuth certificate valid from 3 days ago until yesterday.
new_expired_leaf() {
    local name="$1" cn="$2" ca="$3"
    local nb na
    nb=$(date -u -d '3 days ago' +%Y%m%d%H%M%SZ)
    na=$(date -u -d '1 day ago' +%Y%m%d%H%M%SZ)
    new_key "$out_dir/$name-key.pem"
    ossl req -new -config "$work/openssl.cnf" -key "$out_dir/$name-key.pem" \
        -subj "/O=Escrow Development/CN=$cn" -out "$work/$name.csr"
    if openssl x509 -help 2>&1 | grep -q -- '-not_after'; then
        # OpenSSL >= 3.4
        ossl x509 -req -in "$work/$name.csr" -CA "$out_dir/$ca.pem" -CAkey "$out_dir/$ca-key.pem" \
            -set_serial "$(serial)" -not_before "$nb" -not_after "$na" -sha256 \
            -extfile "$work/openssl.cnf" -extensions client_ext -out "$out_dir/$name.pem"
    else
        # OpenSSL 3.0 (Debian 12): 'openssl ca' can set explicit dates.
        mkdir -p "$work/ca-db/new"
        : >"$work/ca-db/index.txt"
        openssl rand -hex 16 | sed 's/^./7/' >"$work/ca-db/serial"
        ossl ca -batch -notext -config "$work/openssl.cnf" -name expired_ca \
            -cert "$out_dir/$ca.pem" -keyfile "$out_dir/$ca-key.pem" \
            -startdate "$nb" -enddate "$na" -extensions client_ext \
            -in "$work/$name.csr" -out "$out_dir/$name.pem"
    fi
    chmod 0644 "$out_dir/$name.pem"
    log "wrote $name.pem, $name-key.pem (CN=$cn, expired $na, signed by $ca.pem)"
}

# have NAME: both NAME.pem and NAME-key.pem exist (and --force was not given)
have() { [ "$force" = 0 ] && [ -e "$out_dir/$1.pem" ] && [ -e "$out_dir/$1-key.pem" ]; }
# partial NAME: exactly one of the pair exists, so we would have to overwrite it
check_pair() {
    local n="$1"
    [ "$force" = 1 ] && return 0
    if [ -e "$out_dir/$n.pem" ] && [ ! -e "$out_dir/$n-key.pem" ] && [ "$n" != ca ] && [ "$n" != other-ca ]; then
        die "$out_dir/$n.pem exists without $n-key.pem; remove it or use --force"
    fi
    if [ ! -e "$out_dir/$n.pem" ] && [ -e "$out_dir/$n-key.pem" ]; then
        die "$out_dir/$n-key.pem exists without $n.pem; remove it or use --force"
    fi
}

leaves=(server client)
[ "$want_expired" = 1 ] && leaves+=(expired-client)
for n in ca "${leaves[@]}"; do check_pair "$n"; done
if [ "$want_other" = 1 ]; then check_pair other-ca; check_pair other-client; fi

# --- escrow CA ----------------------------------------------------------------------------------
need_ca_key=0
for n in "${leaves[@]}"; do have "$n" || need_ca_key=1; done
if [ "$force" = 0 ] && [ -e "$out_dir/ca.pem" ]; then
    log "kept existing ca.pem"
    if [ "$need_ca_key" = 1 ] && [ ! -e "$out_dir/ca-key.pem" ]; then
        die "ca-key.pem is not in $out_dir but a certificate must be signed: bring the CA key back (it is kept offline) or use --force for a new CA"
    fi
else
    new_ca ca "Escrow Development CA"
fi

# --- leaves signed by the escrow CA -------------------------------------------------------------
if have server; then log "kept existing server.pem (use --force to regenerate)"
else new_leaf server escrow-compute server_ext ca; fi
if have client; then log "kept existing client.pem (use --force to regenerate)"
else new_leaf client "$client_name" client_ext ca; fi
if [ "$want_expired" = 1 ]; then
    if have expired-client; then log "kept existing expired-client.pem"
    else new_expired_leaf expired-client "$client_name" ca; fi
fi

# --- a foreign CA and a client certificate it signed --------------------------------------------
if [ "$want_other" = 1 ]; then
    if have other-ca; then log "kept existing other-ca.pem"
    else new_ca other-ca "Other (Untrusted) CA"; fi
    if have other-client; then log "kept existing other-client.pem"
    else new_leaf other-client "$client_name" client_ext other-ca; fi
fi

# --- verification -------------------------------------------------------------------------------
verify_ok() {  # verify_ok CA CERT PURPOSE [extra args]
    local ca="$1" cert="$2" purpose="$3"; shift 3
    openssl verify -x509_strict -purpose "$purpose" "$@" -CAfile "$out_dir/$ca.pem" \
        "$out_dir/$cert.pem" >"$work/verify" 2>&1 \
        || { cat "$work/verify" >&2; die "$cert.pem does not verify against $ca.pem"; }
}
verify_fails() {  # verify_fails CA CERT PURPOSE
    local ca="$1" cert="$2" purpose="$3"
    if openssl verify -purpose "$purpose" -CAfile "$out_dir/$ca.pem" "$out_dir/$cert.pem" \
        >/dev/null 2>&1; then
        die "$cert.pem unexpectedly verifies against $ca.pem"
    fi
}
key_matches() {  # key_matches NAME: the private key belongs to the certificate
    local a b
    a=$(openssl x509 -in "$out_dir/$1.pem" -noout -pubkey)
    b=$(openssl pkey -in "$out_dir/$1-key.pem" -pubout)
    [ "$a" = "$b" ] || die "$1-key.pem does not match $1.pem"
    [ "$(stat -c %a "$out_dir/$1-key.pem")" = 600 ] || die "$1-key.pem is not mode 0600"
}

[ -e "$out_dir/ca-key.pem" ] && key_matches ca
verify_ok ca ca crlsign
for n in server client; do key_matches "$n"; done
verify_ok ca server sslserver
verify_ok ca client sslclient
if [ "$explicit_names" = 1 ]; then
    for n in "${server_names[@]}"; do
        openssl x509 -in "$out_dir/server.pem" -noout -checkhost "$n" | grep -q 'does match' \
            || log "warning: existing server.pem has no SAN for '$n' (remove server.pem/server-key.pem or use --force)"
    done
fi
openssl x509 -in "$out_dir/server.pem" -noout -checkip 127.0.0.1 | grep -q 'does match' \
    || die "server.pem has no IP:127.0.0.1 SAN"
if [ "$want_expired" = 1 ]; then
    key_matches expired-client
    verify_ok ca expired-client sslclient -no_check_time
    verify_fails ca expired-client sslclient
    if openssl x509 -in "$out_dir/expired-client.pem" -noout -checkend 0 >/dev/null; then
        die "expired-client.pem is not expired"
    fi
fi
if [ "$want_other" = 1 ]; then
    key_matches other-client
    verify_ok other-ca other-ca crlsign
    verify_ok other-ca other-client sslclient
    verify_fails ca other-client sslclient
fi
log "verified: every certificate in $out_dir checks out with openssl verify -CAfile"
