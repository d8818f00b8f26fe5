#!/usr/bin/env python3
"""Markdown report of bench/archive.sh: python3 bench/archive-report.py bench/out/archive-N-M"""
import csv
import statistics
import sys
from pathlib import Path

work = Path(sys.argv[1])
info = dict(line.rstrip("\n").split("\t", 1) for line in open(work / "info.tsv") if "\t" in line)
rows = list(csv.DictReader(open(work / "runs.tsv"), delimiter="\t"))
sizes = {(r["tool"], r["format"]): int(r["bytes"]) for r in csv.DictReader(open(work / "sizes.tsv"), delimiter="\t")} \
    if (work / "sizes.tsv").exists() else {}
checks = (work / "checks.txt").read_text().strip() if (work / "checks.txt").exists() else ""

input_bytes = int(info["input_bytes"])
mb = lambda b: b / 1e6


def runs(tool, step, fmt):
    return [r for r in rows if (r["tool"], r["step"], r["format"]) == (tool, step, fmt)]


def summary(tool, step, fmt):
    sel = [r for r in runs(tool, step, fmt) if r["status"] == "ok"]
    if not sel:
        return None
    secs = [float(r["seconds"]) for r in sel]
    return {
        "n": len(sel),
        "failed": len(runs(tool, step, fmt)) - len(sel),
        "median": statistics.median(secs),
        "min": min(secs),
        "max": max(secs),
        "rss": statistics.median(int(r["max_rss_kb"]) for r in sel) / 1024,
        "rss_max": max(int(r["max_rss_kb"]) for r in sel) / 1024,
        "cpu": statistics.median(float(r["user_s"]) + float(r["sys_s"]) for r in sel),
    }


def cell_time(s):
    return f"{s['median']:.2f} s ({s['min']:.2f}–{s['max']:.2f})" if s else "—"


def cell_rate(s):
    return f"{mb(input_bytes) / s['median']:.0f}" if s and s["median"] > 0 else "—"


def cell_rss(s):
    return f"{s['rss_max']:.0f} MB" if s else "—"


def cell_cpu(s):
    return f"{s['cpu']:.2f} s" if s else "—"


formats = []
for r in rows:
    if r["format"] not in formats:
        formats.append(r["format"])
loads = [float(r["load1"]) for r in rows]
ours = info.get("ours") == "1"

print(f"## Archive throughput: {int(info['entries']):,} entries, {mb(int(info['media_bytes'])) / 1000:.2f} GB of media\n")
print(f"Build: {info['version']}  ")
print(f"Date: {info['date']}, {info['cpus']} cores  ")
print(f"Tools: {info['tar']}; {info['gzip']}; {info['zstd']}  ")
print(f"diary-sync backup/restore: {'measured' if ours else 'not measured: ' + (info.get('why_not_ours') or 'not available') + ' (tar baselines only)'}"
      + (f" (backup to {'stdout, redirected to the file' if info.get('backup_to') == 'stdout' else '-o FILE'})" if ours else "") + "  ")
if info.get("with_sync") == "1":
    print("Every timed command is followed by sync(1) inside the timing (both sides pay for the disk).  ")
elif ours:
    print("Not like-for-like on durability: diary-sync fsyncs its backup and syncs before a restore commits; "
          "tar's times stop at the page cache (WITH_SYNC=1 times both with sync).  ")
print(f"Input: {mb(input_bytes):,.1f} MB = media {mb(int(info['media_bytes'])):,.1f} MB in {int(info['media_files']):,} files "
      f"(largest {mb(int(info['largest_bytes'])):.1f} MB) + diary.sqlite {mb(int(info['db_bytes'])):.1f} MB "
      f"({info['files']} files in the diary folder)  ")
if "generate_s" in info:
    fill = (work / "fill.txt").read_text().strip().splitlines() if (work / "fill.txt").exists() else []
    media_line = next((l for l in fill if l.startswith("media:")), "")
    print(f"Corpus generation: {info['generate_s']} s (then sync {info['sync_s']} s; load {info['generate_load']})  ")
    if media_line:
        print(f"`{media_line}`  ")
print(f"Runs: {info['runs']} per cell, median (min–max); page cache warm; sync (untimed) before each run  ")
if loads:
    print(f"Load average (1 min) at the start of the runs: {min(loads):.2f} – {max(loads):.2f}, median {statistics.median(loads):.2f}")
print()
print("MB/s = input MB (10^6 bytes) / median seconds, for backup and restore alike. Peak RSS: the largest")
print("of the runs (`/usr/bin/time %M`; for `tar -z`/`--zstd` the larger of tar and its compressor, not the sum).")
print("CPU = user + sys, median.\n")

head = "| format | step | diary-sync | MB/s | CPU | peak RSS | GNU tar | MB/s | CPU | peak RSS | time ours/tar | RSS ours/tar |"
print(head)
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for fmt in formats:
    for step, tar_cmd in (("backup", {"tar": "tar -cf", "tar.gz": "tar -czf", "tar.zst": "tar --zstd -cf"}),
                          ("restore", {"tar": "tar -xf", "tar.gz": "tar -xzf", "tar.zst": "tar --zstd -xf"})):
        o = summary("diary-sync", step, fmt)
        t = summary("gnu-tar", step, fmt)
        ratio = f"{o['median'] / t['median']:.2f}×" if o and t and t["median"] > 0 else "—"
        rss_ratio = f"{o['rss_max'] / t['rss_max']:.1f}×" if o and t and t["rss_max"] > 0 else "—"
        failed = ""
        for name, s in (("diary-sync", o), ("tar", t)):
            tool = "diary-sync" if name == "diary-sync" else "gnu-tar"
            n_failed = len([r for r in runs(tool, step, fmt) if r["status"] != "ok"])
            if n_failed:
                failed += f" ({name}: {n_failed} failed)"
        print(f"| {fmt} | {step}{failed} | {cell_time(o)} | {cell_rate(o)} | {cell_cpu(o)} | {cell_rss(o)} | "
              f"{cell_time(t)} `{tar_cmd[fmt]}` | {cell_rate(t)} | {cell_cpu(t)} | {cell_rss(t)} | {ratio} | {rss_ratio} |")

if sizes:
    print("\nArchive sizes (bytes; % of input)\n")
    print("| format | diary-sync | GNU tar | ours − tar |")
    print("|---|---:|---:|---:|")
    for fmt in formats:
        o, t = sizes.get(("diary-sync", fmt)), sizes.get(("gnu-tar", fmt))
        fmt_size = lambda b: f"{b:,} ({100 * b / input_bytes:.2f} %)" if b is not None else "—"
        diff = f"{o - t:+,}" if o is not None and t is not None else "—"
        print(f"| {fmt} | {fmt_size(o)} | {fmt_size(t)} | {diff} |")

if checks:
    print("\nChecks (untimed)\n")
    for line in checks.splitlines():
        print(f"- {line}")
