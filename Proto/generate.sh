#!/usr/bin/env bash
# Regenerates the Swift code for Proto/escrow.proto.
#
# Usage: Proto/generate.sh [OUTPUT_DIR]
#
# OUTPUT_DIR defaults to Sources/EscrowWire/Generated (under the package root); a relative path is
# taken from the current directory. The script writes OUTPUT_DIR/escrow.pb.swift and nothing else
# there, so a test can generate into a temporary folder and compare with the committed file.
#
# It uses Debian's `protoc` and a `protoc-gen-swift` built from the pinned swift-protobuf
# (SWIFT_PROTOBUF_VERSION below, the same version Package.swift depends on). Set
# PROTOC_GEN_SWIFT=/path/to/protoc-gen-swift to use an already built generator instead; otherwise
# one is built in release mode (about 30 s the first time) in a throwaway package under
# ${TMPDIR:-/tmp}, which later runs reuse. Running the script twice gives the same file.
set -euo pipefail

readonly SWIFT_PROTOBUF_VERSION="1.39.0"

proto_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package_root="$(dirname "$proto_dir")"

output_dir="${1:-$package_root/Sources/EscrowWire/Generated}"
mkdir -p "$output_dir"
output_dir="$(cd "$output_dir" && pwd)"

die() {
    echo "generate.sh: $*" >&2
    exit 1
}

# write_if_changed FILE CONTENT: writes CONTENT and a newline to FILE unless it holds them already.
write_if_changed() {
    if [[ ! -f "$1" ]] || [[ "$(cat "$1")" != "$2" ]]; then
        printf '%s\n' "$2" >"$1"
    fi
}

command -v protoc >/dev/null 2>&1 ||
    die "protoc not found on PATH; install it with: apt-get install protobuf-compiler"

if [[ -n "${PROTOC_GEN_SWIFT:-}" ]]; then
    [[ -x "$PROTOC_GEN_SWIFT" ]] || die "PROTOC_GEN_SWIFT=$PROTOC_GEN_SWIFT is not an executable file"
    generator="$PROTOC_GEN_SWIFT"
else
    command -v swift >/dev/null 2>&1 || die "swift not found on PATH (needed to build protoc-gen-swift)"
    build_dir="${TMPDIR:-/tmp}/escrow-protoc-gen-swift-$SWIFT_PROTOBUF_VERSION"
    mkdir -p "$build_dir/Sources/Placeholder"
    # Rewrite the files only when they change, so that a rerun does not make SwiftPM plan anew.
    write_if_changed "$build_dir/Package.swift" "// swift-tools-version: 6.0
// Throwaway package written by Escrow's Proto/generate.sh to build protoc-gen-swift.
import PackageDescription

let package = Package(
    name: \"EscrowProtocGenSwift\",
    dependencies: [
        .package(url: \"https://github.com/apple/swift-protobuf\", exact: \"$SWIFT_PROTOBUF_VERSION\"),
    ],
    targets: [.target(name: \"Placeholder\", path: \"Sources/Placeholder\")]
)"
    write_if_changed "$build_dir/Sources/Placeholder/Placeholder.swift" \
        "// Empty: this package exists only to build protoc-gen-swift."
    echo "generate.sh: building protoc-gen-swift $SWIFT_PROTOBUF_VERSION in $build_dir" >&2
    swift build --package-path "$build_dir" -c release --product protoc-gen-swift >&2 ||
        die "building protoc-gen-swift failed (see the output above)"
    generator="$(swift build --package-path "$build_dir" -c release --show-bin-path)/protoc-gen-swift"
    [[ -x "$generator" ]] || die "protoc-gen-swift was not built at $generator"
fi

# Run from Proto/ with a relative file name so the generated header says `Source: escrow.proto`
# whatever the checkout's absolute path is.
cd "$proto_dir"
protoc \
    --plugin="protoc-gen-swift=$generator" \
    --proto_path=. \
    --swift_out="$output_dir" \
    --swift_opt=Visibility=Public \
    escrow.proto

echo "generate.sh: wrote $output_dir/escrow.pb.swift" >&2
