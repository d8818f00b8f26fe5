#!/usr/bin/env bash
# Links the five tools from a SwiftPM build folder so that code they share is on disk once:
#   OUT/bin/diary-*                         each command's own code
#   OUT/lib/innerbloom/libdiary-core.so     what all five share, with the Swift runtime and
#                                           Foundation linked in (no toolchain needed to run)
#   OUT/lib/innerbloom/libdiary-TOOLS.so    what only some share, e.g. libdiary-new-chat-save.so
# An object file goes where the set of tools that SwiftPM links it into says: into a tool
# when only that tool uses it, else into the library of exactly that set. So each command
# still loads only what its own target graph holds (diary-find: libdiary-core.so alone).
#
# Usage: scripts/link-shared.sh BUILD_DIR OUT_DIR
#   BUILD_DIR: `swift build --show-bin-path` of a build of all five products (debug or
#   release, with or without --static-swift-stdlib).
set -euo pipefail

build="${1:?usage: link-shared.sh BUILD_DIR OUT_DIR}"
out="${2:?usage: link-shared.sh BUILD_DIR OUT_DIR}"
tools=(diary-new diary-chat diary-save diary-find diary-sync)
swift_bin="$(dirname "$(readlink -f "$(command -v swiftc)")")"
static_dir="$swift_bin/../lib/swift_static/linux"
clang="$swift_bin/clang"
autolink="$swift_bin/swift-autolink-extract"
rt="$static_dir/$(uname -m)/swiftrt.o"
for f in "$clang" "$autolink" "$rt"; do
    [ -e "$f" ] || { echo "link-shared.sh: $f is missing: is the Swift toolchain installed?" >&2; exit 69; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lib_dir="$out/lib/innerbloom"
mkdir -p "$out/bin" "$lib_dir"

# Which tools link each object file (lines stay as SwiftPM quotes them, for clang's @file).
for i in "${!tools[@]}"; do
    list="$build/${tools[$i]}.product/Objects.LinkFileList"
    [ -f "$list" ] || { echo "link-shared.sh: no $list: build all five products first" >&2; exit 66; }
    sort -u "$list" | sed "s/^/$i\t/"
done | awk -F '\t' '{ sets[$2] = sets[$2] $1 } END { for (o in sets) print sets[o] "\t" o }' | sort > "$work/objects"

# A group's name: "core" for all five, else the short names of the tools that share it.
group_name() {
    local set="$1" name="" i
    [ "${#set}" -eq "${#tools[@]}" ] && { echo core; return; }
    for ((i = 0; i < ${#set}; i++)); do name+="${name:+-}${tools[${set:$i:1}]#diary-}"; done
    echo "$name"
}

# The -l flags the objects ask for: the toolchain's own static libraries, which only
# libdiary-core.so links in (one copy of the runtime in the process), and the others.
for archive in "$static_dir"/lib*.a; do archive="${archive##*/lib}"; echo "-l${archive%.a}"; done > "$work/toolchain"
toolchain_libs() { "$autolink" "$@" -o - | sort -u | grep -Fx -f "$work/toolchain" || true; }
system_libs() { "$autolink" "$@" -o - | sort -u | grep -Fvx -f "$work/toolchain" || true; }

# True when the tool set $1 holds every tool of the set $2.
covers() { local i; for ((i = 0; i < ${#2}; i++)); do [[ "$1" == *"${2:$i:1}"* ]] || return 1; done; }
objects_of() { awk -F '\t' -v s="$1" '$1 == s { print $2 }' "$work/objects" > "$2"; }
unquoted() { sed "s/^'\\(.*\\)'\$/\\1/" "$1"; }

# What any image wants from another: the core must link it in from the runtime and
# Foundation, and each library exports only that (a short symbol table loads faster).
cut -f2 "$work/objects" > "$work/all.list"
mapfile -t all < <(unquoted "$work/all.list")
nm -u --format=just-symbols "$rt" "${all[@]}" 2>/dev/null | sort -u > "$work/wanted"
{ echo "{ global:"; sed 's/.*/"&";/' "$work/wanted"; echo "local: *; };"; } > "$work/exports.map"
sed 's/^/-Wl,--undefined=/' "$work/wanted" > "$work/wanted.flags"

# Libraries by how many tools share them, most first: one only ever uses a library shared
# by at least the same tools, so each links against those already made.
sets=$(cut -f1 "$work/objects" | sort -u | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2)
libs=()
for set in $sets; do
    [ "${#set}" -gt 1 ] || continue
    name="$(group_name "$set")"
    objects_of "$set" "$work/$name.list"
    mapfile -t files < <(unquoted "$work/$name.list")
    flags=()
    if [ "$name" = core ]; then
        # The toolchain's static libraries any image asks for, offered together (the linker
        # takes only the members wanted), and what linking Foundation statically takes as
        # the toolchain itself says: objects built without --static-swift-stdlib name only
        # Foundation, not the libraries under it.
        echo 'import Foundation' > "$work/probe.swift"
        "$swift_bin/swiftc" -static-stdlib -parse-as-library -c "$work/probe.swift" -o "$work/probe.o"
        flags+=(@"$work/wanted.flags" -L "$static_dir" -Wl,--start-group)
        mapfile -t -O "${#flags[@]}" flags < <(toolchain_libs "$work/probe.o" "${all[@]}")
        flags+=(-Wl,--end-group)
        mapfile -t -O "${#flags[@]}" flags < <(system_libs "$work/probe.o" "${files[@]}")
    else
        for dep in "${libs[@]}"; do covers "${dep%%:*}" "$set" && flags+=(-l"diary-${dep#*:}"); done
        mapfile -t -O "${#flags[@]}" flags < <(system_libs "${files[@]}")
    fi
    "$clang" -shared -Wl,--build-id -Wl,-soname,"libdiary-$name.so" -Wl,-Bsymbolic -Wl,-z,defs \
        -Wl,--version-script="$work/exports.map" -Wl,--gc-sections \
        "$rt" @"$work/$name.list" -L "$lib_dir" "${flags[@]}" -lstdc++ -lm \
        -o "$lib_dir/libdiary-$name.so"
    libs+=("$set:$name")
done

# Each command: its own objects, the libraries of every set it belongs to.
for i in "${!tools[@]}"; do
    tool="${tools[$i]}"
    objects_of "$i" "$work/$tool.list"
    mapfile -t files < <(unquoted "$work/$tool.list")
    flags=()
    for dep in "${libs[@]}"; do covers "${dep%%:*}" "$i" && flags+=(-l"diary-${dep#*:}"); done
    mapfile -t -O "${#flags[@]}" flags < <(system_libs "${files[@]}")
    "$clang" -pie -Wl,--build-id "$rt" @"$work/$tool.list" -L "$lib_dir" "${flags[@]}" -lstdc++ -lm \
        -Wl,--defsym,main="${tool//-/_}_main" -Wl,--gc-sections -Wl,-rpath,'$ORIGIN/../lib/innerbloom' -Wl,-z,defs \
        -o "$out/bin/$tool"
done
