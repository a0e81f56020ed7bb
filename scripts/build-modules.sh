#!/usr/bin/env bash
# Builds the example compute modules (Examples/Modules/*/) from source into .build/modules/NAME.wasm
# with the Swift toolchain's own clang, swiftc, wasm-ld and llvm-objcopy: C modules (*.c) against
# kit/c/escrow_module.h, Embedded Swift modules (*.swift) with kit/swift/. Each module's
# module.json becomes its escrow.module custom section (docs/MODULES.md). Built modules are never
# committed. Usage: scripts/build-modules.sh [NAME…]  (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

toolchain="$(dirname "$(command -v swiftc)")"
for tool in clang wasm-ld llvm-objcopy; do
    if [[ ! -x "$toolchain/$tool" ]]; then
        echo "build-modules: $toolchain/$tool is missing; the Swift toolchain ships it (see docs/MODULES.md)" >&2
        exit 1
    fi
done
clang="$toolchain/clang"
kit=Examples/Modules/kit
out=.build/modules
mkdir -p "$out"

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
    for dir in Examples/Modules/*/; do
        name="$(basename "$dir")"
        [[ "$name" == kit ]] || names+=("$name")
    done
fi

for name in "${names[@]}"; do
    dir="Examples/Modules/$name"
    if [[ ! -f "$dir/module.json" ]]; then
        echo "build-modules: $dir has no module.json" >&2
        exit 1
    fi
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    shopt -s nullglob
    c_sources=("$dir"/*.c)
    swift_sources=("$dir"/*.swift)
    shopt -u nullglob
    if [[ ${#swift_sources[@]} -gt 0 ]]; then
        swiftc -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded \
            -enable-experimental-feature Extern -wmo -Osize -parse-as-library -Xfrontend -disable-stack-protector \
            -c "$kit/swift/EscrowModule.swift" "${swift_sources[@]}" -o "$work/swift.o"
        "$clang" --target=wasm32 -O2 -ffreestanding -Wall -Wextra -Werror -c "$kit/swift/support.c" -o "$work/support.o"
        "$toolchain/wasm-ld" --no-entry --export=escrow_run "$work/swift.o" "$work/support.o" -o "$work/module.wasm"
    else
        "$clang" --target=wasm32 -O2 -nostdlib -ffreestanding -Wall -Wextra -Werror -Wl,--no-entry \
            -I "$kit/c" -o "$work/module.wasm" "${c_sources[@]}"
    fi
    "$toolchain/llvm-objcopy" --add-section=escrow.module="$dir/module.json" "$work/module.wasm"
    mv "$work/module.wasm" "$out/$name.wasm"
    rm -rf "$work"
    trap - EXIT
    echo "built $out/$name.wasm ($(wc -c < "$out/$name.wasm") bytes)"
done
