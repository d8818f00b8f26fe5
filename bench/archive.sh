#!/usr/bin/env bash
# Archive throughput: `diary-sync backup` and `diary-sync restore` on a diary of N entries
# with M bytes of photos and videos (default 1,000 entries, 2 GB), beside GNU tar on the
# same files (`tar -cf/-czf/--zstd -cf` over the diary folder, `-xf/-xzf/--zstd -xf` as
# the restore baseline). Wall time, MB/s, CPU time and peak RSS (/usr/bin/time), the median
# of RUNS runs, page cache warm (the corpus is read once before; every archive is
# restored right after it was written, so it is in the cache too).
#
# Usage: bench/archive.sh [ENTRIES] [MEDIA_BYTES]     e.g. bench/archive.sh 1000 2G
#   RUNS=3               runs per measurement
#   FORMATS="tar tar.gz tar.zst"
#   BACKUP_TO=file       diary-sync backup -o FILE; `stdout` times `diary-sync backup > FILE`
#   WITH_SYNC=1          time each command followed by sync(1), so its writes reach the disk
#   SKIP_OURS=1          only the tar baselines
#   TAG=name             a suffix for the output folder (WITH_SYNC and BACKUP_TO=stdout add theirs)
#   KEEP=1               keep the corpus (bench/out/archive-N-M/home) for the next run;
#                        by default it is deleted at the end, with every archive and copy
#   REGEN=1              make the corpus again even if KEEP left one
#
# Durability differs: diary-sync backup fsyncs its archive before renaming it into place,
# and restore calls syncfs(2) before and after it renames the files into place (before the
# diary points at them); tar does neither, so
# by default tar's times stop at the page cache. WITH_SYNC=1 makes both sides pay for the
# disk and is the like-for-like comparison.
#
# MB/s = input bytes / 10^6 / median seconds, input = media files + diary.sqlite (the
# whole diary folder), for backup and restore alike. Until `diary-sync backup --help`
# answers with a --format option, only the tar baselines run.
# Files: bench/out/archive-N-M[-variant]/{results.md,runs.tsv,info.tsv,sizes.tsv,fill.txt,checks.txt,stdout.log}.
# The main package is built in release with the Swift runtime linked in, each binary on
# its own (the code is what is installed), in its own scratch folder (.build-bench) so it
# does not collide with other builds.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
entries="${1:-1000}"
media="${2:-2G}"
runs="${RUNS:-3}"
formats="${FORMATS:-tar tar.gz tar.zst}"
backup_to="${BACKUP_TO:-file}"

need() { command -v "$1" >/dev/null || apt-get install -y -qq "$2" >/dev/null; }
need sqlite3 sqlite3
need zstd zstd
need python3 python3
[ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null

. "$root/bench/build.sh"
ours=1 why=""
if [ "${SKIP_OURS:-0}" = 1 ]; then
    ours=0 why="SKIP_OURS=1"
elif ! retry build_main --product diary-sync >&2; then
    ours=0 why="diary-sync did not build"
fi
bin="$(build_main --show-bin-path)"
version="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' + uncommitted changes in Sources/')"

# Variants get their own folder, so a run never overwrites another's reports.
suffix=""
[ "${WITH_SYNC:-0}" = 1 ] && suffix+="-sync"
[ "$backup_to" = stdout ] && suffix+="-stdout"
[ -n "${TAG:-}" ] && suffix+="-$TAG"
work="$root/bench/out/archive-$entries-$media$suffix"
home="$work/home"
scratch="$work/scratch" # archives and restored copies, emptied after each step
mkdir -p "$work"
export DIARY_CONFIG="$work/no-config.toml" XDG_STATE_HOME="$work/state" LANG=C.UTF-8 NO_COLOR=1

# `diary-sync backup --help` fails (or shows no --format) until the command exists.
if [ "$ours" = 1 ]; then
    if ! help=$("$bin/diary-sync" backup --help 2>&1) || ! grep -q -- '--format' <<<"$help" \
        || ! "$bin/diary-sync" restore --help >/dev/null 2>&1; then
        ours=0 why="diary-sync backup/restore not available in this build"
    fi
fi
[ "$ours" = 1 ] || echo "$why: tar baselines only" >&2

# Disk: the corpus, two archives (ours and tar's) and one restored copy at a time.
bytes_of() { # 2G, 500M, 2000000000 (decimal units, like diary-corpus)
    python3 -c '
import sys
t = sys.argv[1].upper().removesuffix("B"); s = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}.get(t[-1:], 1)
print(int(float(t[:-1] if s != 1 else t) * s))' "$1"
}
media_bytes=$(bytes_of "$media")
avail=$(df -B1 --output=avail "$work" | tail -1)
want=$(( media_bytes * 5 + 1000000000 ))
echo "disk: $(( avail / 1000000000 )) GB free in $work, want about $(( want / 1000000000 )) GB" >&2
if [ "$avail" -lt "$want" ]; then echo "not enough free disk space" >&2; exit 1; fi

[ "${REGEN:-0}" = 1 ] && rm -f "$work/corpus.done"
if [ ! -f "$work/corpus.done" ]; then
    rm -rf "$home" "$scratch"
    echo "generating $entries entries with $media of media into $home" >&2
    start=$(date +%s.%N)
    "$corpus" "$home" "$entries" --seed 42 --media-total-bytes "$media_bytes" 2>"$work/fill.txt" || { cat "$work/fill.txt" >&2; exit 1; }
    # Settle the WAL into the file so every run archives the same single database file.
    sqlite3 "$home/diary.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
    generated=$(date +%s.%N)
    sync
    synced=$(date +%s.%N)
    cat "$work/fill.txt" >&2
    {
        printf 'generate_s\t%.2f\n' "$(echo "$generated - $start" | bc)"
        printf 'sync_s\t%.2f\n' "$(echo "$synced - $generated" | bc)"
        printf 'generate_load\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    } >"$work/generation.tsv"
    touch "$work/corpus.done"
fi

sum_sizes() { find "$@" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d\n", s }'; }
input_bytes=$(sum_sizes "$home")
{
    printf 'entries\t%s\n' "$entries"
    printf 'media_arg\t%s\n' "$media"
    printf 'input_bytes\t%s\n' "$input_bytes"
    printf 'media_bytes\t%s\n' "$(sum_sizes "$home/media")"
    printf 'media_files\t%s\n' "$(find "$home/media" -type f | wc -l)"
    printf 'largest_bytes\t%s\n' "$(find "$home/media" -type f -printf '%s\n' | sort -n | tail -1)"
    printf 'db_bytes\t%s\n' "$(sum_sizes "$home" -maxdepth 1 -name 'diary.sqlite*')"
    printf 'files\t%s\n' "$(find "$home" -type f | wc -l)"
    printf 'runs\t%s\n' "$runs"
    printf 'ours\t%s\n' "$ours"
    printf 'why_not_ours\t%s\n' "$why"
    printf 'backup_to\t%s\n' "$backup_to"
    printf 'with_sync\t%s\n' "${WITH_SYNC:-0}"
    printf 'version\t%s\n' "$version"
    printf 'tar\t%s\n' "$(tar --version | head -1)"
    printf 'gzip\t%s\n' "$(gzip --version | head -1)"
    printf 'zstd\t%s\n' "$(zstd --version | tr -d '*' | sed 's/^ *//; s/ *$//')"
    printf 'cpus\t%s\n' "$(nproc)"
    printf 'date\t%s\n' "$(date -Is)"
    cat "$work/generation.tsv"
} >"$work/info.tsv"

# Warm the page cache with the whole diary.
find "$home" -type f -exec cat {} + >/dev/null

# measure TOOL STEP FORMAT RUN command...: one timed run, a line in runs.tsv. Dirty pages
# of the step before are written out first (sync, untimed), so no run pays for another.
runs_tsv="$work/runs.tsv"
printf 'tool\tstep\tformat\trun\tseconds\tmax_rss_kb\tuser_s\tsys_s\tload1\tstatus\n' >"$runs_tsv"
measure() {
    local tool="$1" step="$2" format="$3" run="$4"; shift 4
    sync
    local load status=ok
    load=$(cut -d' ' -f1 /proc/loadavg)
    if [ "${WITH_SYNC:-0}" = 1 ]; then set -- bash -c '"$@" && sync' _ "$@"; fi
    # diary-sync prints a JSON summary line when piped: kept in stdout.log.
    /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$@" >>"$work/stdout.log" || status=failed
    local e m u s
    read -r e m u s < <(tail -1 "$work/time.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$step" "$format" "$run" "$e" "$m" "$u" "$s" "$load" "$status" >>"$runs_tsv"
    printf '  %-8s %-7s %-7s run %s: %6.2f s  %7d KB  (load %s)%s\n' "$tool" "$step" "$format" "$run" "$e" "$m" "$load" \
        "$([ "$status" = ok ] || echo '  FAILED')" >&2
}

tar_flags() { case "$1" in tar) echo "" ;; tar.gz) echo "-z" ;; tar.zst) echo "--zstd" ;; esac; }
ours_backup() { # FORMAT FILE
    if [ "$backup_to" = stdout ]; then
        DIARY_HOME="$home" "$bin/diary-sync" backup --format "$1" >"$2"
    else
        DIARY_HOME="$home" "$bin/diary-sync" backup --format "$1" -o "$2"
    fi
}
ours_restore() { DIARY_HOME="$2" "$bin/diary-sync" restore "$1"; } # FILE HOME
export -f ours_backup ours_restore
export bin home backup_to

: >"$work/stdout.log"
checks="$work/checks.txt"
: >"$checks"
sizes="$work/sizes.tsv"
printf 'tool\tformat\tbytes\n' >"$sizes"
for format in $formats; do
    flag=$(tar_flags "$format")
    rm -rf "$scratch"; mkdir -p "$scratch"
    ours_file="$scratch/ours.$format"
    tar_file="$scratch/gnu.$format"
    echo "== $format: backup ==" >&2
    for run in $(seq 1 "$runs"); do
        # Alternate who goes first, so a drift in load does not always favour one side.
        order="ours tar"; [ $((run % 2)) = 0 ] && order="tar ours"
        for tool in $order; do
            if [ "$tool" = ours ]; then
                [ "$ours" = 1 ] || continue
                rm -f "$ours_file"
                measure diary-sync backup "$format" "$run" bash -c 'ours_backup "$1" "$2"' _ "$format" "$ours_file"
            else
                rm -f "$tar_file"
                # shellcheck disable=SC2086
                measure gnu-tar backup "$format" "$run" tar -C "$home" $flag -cf "$tar_file" .
            fi
        done
    done
    [ -f "$tar_file" ] && printf 'gnu-tar\t%s\t%s\n' "$format" "$(stat -c %s "$tar_file")" >>"$sizes"
    if [ "$ours" = 1 ] && [ -f "$ours_file" ]; then
        printf 'diary-sync\t%s\t%s\n' "$format" "$(stat -c %s "$ours_file")" >>"$sizes"
        # Is ours a tar that GNU tar reads? (untimed)
        # shellcheck disable=SC2086
        if members=$(tar $flag -tf "$ours_file" 2>>"$checks" | wc -l); then
            echo "$format: GNU tar lists $members members in diary-sync's archive" >>"$checks"
        else
            echo "$format: GNU tar cannot read diary-sync's archive" >>"$checks"
        fi
    fi

    echo "== $format: restore ==" >&2
    for run in $(seq 1 "$runs"); do
        order="ours tar"; [ $((run % 2)) = 0 ] && order="tar ours"
        for tool in $order; do
            dest="$scratch/restore-$tool"
            rm -rf "$dest"; mkdir -p "$dest"
            if [ "$tool" = ours ]; then
                [ "$ours" = 1 ] && [ -f "$ours_file" ] || continue
                measure diary-sync restore "$format" "$run" bash -c 'ours_restore "$1" "$2"' _ "$ours_file" "$dest"
                if [ "$run" = 1 ]; then # the copy is the diary (untimed)
                    if diff -rq "$home/media" "$dest/media" >>"$checks" 2>&1; then
                        echo "$format: restored media identical ($(find "$dest/media" -type f | wc -l) files)" >>"$checks"
                    else
                        echo "$format: restored media DIFFER" >>"$checks"
                    fi
                    q="SELECT (SELECT count(*) FROM entry) || ' entries, ' || (SELECT count(*) FROM media) || ' media rows'"
                    echo "$format: original $(sqlite3 -readonly "$home/diary.sqlite" "$q"); restored $(sqlite3 -readonly "$dest/diary.sqlite" "$q" 2>&1)" >>"$checks"
                fi
            else
                [ -f "$tar_file" ] || continue
                # shellcheck disable=SC2086
                measure gnu-tar restore "$format" "$run" tar -C "$dest" $flag -xf "$tar_file"
            fi
            rm -rf "$dest"
        done
    done
    rm -rf "$scratch"
done
rm -f "$work/time.txt"

if [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$home" "$scratch" "$work/state"
    rm -f "$work/corpus.done"
fi
python3 "$root/bench/archive-report.py" "$work" | tee "$work/results.md"
