#!/usr/bin/env bash
# Installs the five diary tools like any other Unix tool:
#   PREFIX/bin                                   the five commands, stripped
#   PREFIX/lib/innerbloom                        the code they share, once, with the Swift
#                                                runtime linked in (scripts/link-shared.sh)
#   PREFIX/share/man/man1, man7                  the man pages
#   PREFIX/share/bash-completion/completions     bash completion
#   PREFIX/share/zsh/site-functions              zsh completion
#   PREFIX/share/fish/vendor_completions.d       fish completion
#
# Usage: scripts/install.sh [--from BUILD_DIR] [PREFIX]     (PREFIX defaults to ~/.local)
#        scripts/install.sh --uninstall [PREFIX]
# --from links the tools from a build already made in BUILD_DIR instead of building a
# release (the tests use it with the debug build). Needs the Swift toolchain and what
# scripts/install-deps.sh installs; it builds in .build-release so an ordinary debug build
# is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=(diary-new diary-chat diary-save diary-find diary-sync)
uninstall=0
from=""
prefix=""
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) uninstall=1 ;;
        --from) from="${2:?--from needs a folder}"; shift ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "install.sh: unknown option $1" >&2; exit 64 ;;
        *) prefix="$1" ;;
    esac
    shift
done
prefix="${prefix:-$HOME/.local}"

bin_dir="$prefix/bin"
lib_dir="$prefix/lib/innerbloom"
man1="$prefix/share/man/man1"
man7="$prefix/share/man/man7"
bash_dir="$prefix/share/bash-completion/completions"
zsh_dir="$prefix/share/zsh/site-functions"
fish_dir="$prefix/share/fish/vendor_completions.d"

if [ "$uninstall" -eq 1 ]; then
    for tool in "${tools[@]}"; do
        rm -f "$bin_dir/$tool" "$man1/$tool.1" "$bash_dir/$tool" "$zsh_dir/_$tool" "$fish_dir/$tool.fish"
    done
    rm -f "$man7/diary.7" "$lib_dir"/libdiary-*.so
    rmdir "$lib_dir" 2>/dev/null || true
    echo "Removed the diary tools from $prefix (your diary itself is untouched)." >&2
    exit 0
fi

if [ -z "$from" ]; then
    scratch=.build-release
    swift build -c release --scratch-path "$scratch" >&2
    from="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"
fi
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
scripts/link-shared.sh "$from" "$stage"

# Through temporary names, so a tool that is running while we install is not cut off; the
# libraries first, so a command started meanwhile finds what it needs.
put() {
    install -m 0755 "$1" "$(dirname "$2")/.$(basename "$2").new"
    strip --strip-unneeded "$(dirname "$2")/.$(basename "$2").new"
    mv -f "$(dirname "$2")/.$(basename "$2").new" "$2"
}
mkdir -p "$bin_dir" "$lib_dir" "$man1" "$man7" "$bash_dir" "$zsh_dir" "$fish_dir"
libs=()
for lib in "$stage"/lib/innerbloom/libdiary-*.so; do
    put "$lib" "$lib_dir/$(basename "$lib")"
    libs+=("$lib_dir/$(basename "$lib")")
done
for tool in "${tools[@]}"; do
    put "$stage/bin/$tool" "$bin_dir/$tool"
    install -m 0644 "man/$tool.1" "$man1/$tool.1"
    "$bin_dir/$tool" --generate-completion-script bash > "$bash_dir/$tool"
    "$bin_dir/$tool" --generate-completion-script zsh > "$zsh_dir/_$tool"
    "$bin_dir/$tool" --generate-completion-script fish > "$fish_dir/$tool.fish"
done
install -m 0644 man/diary.7 "$man7/diary.7"
# A library an earlier version had and this one does not, once no installed tool needs it.
for lib in "$lib_dir"/libdiary-*.so; do
    [ -e "$stage/lib/innerbloom/$(basename "$lib")" ] || rm -f "$lib"
done

size=$(du -cb "${tools[@]/#/$bin_dir/}" "${libs[@]}" | tail -1 | cut -f1)
echo "Installed ${tools[*]} in $bin_dir and the code they share in $lib_dir ($((size / 1000000)) MB)," \
     "man pages and bash/zsh/fish completion under $prefix/share." >&2
case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) echo "Add $bin_dir to PATH to use them: export PATH=\"$bin_dir:\$PATH\"" >&2 ;;
esac
