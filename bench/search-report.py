#!/usr/bin/env python3
"""Prints bench/search.sh's figures as Markdown tables: search-report.py OUT_DIR N."""
import json
import os
import re
import sys

out, n = sys.argv[1], int(sys.argv[2])


def load(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return {}
    return {r["command"]: r for r in json.load(open(path))["results"]}


def tsv(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return {}
    rows = {}
    for line in open(path, encoding="utf-8"):
        if "\t" in line:
            key, value = line.rstrip("\n").split("\t", 1)
            rows[key] = value.strip()
    return rows


def ms(seconds):
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.2f} s"


def spread(r):
    return f"{ms(r['min'])} – {ms(r['max'])}"


def mb(kb):
    return f"{int(kb) / 1024:.0f} MB" if kb and kb.isdigit() and int(kb) > 0 else "—"


diary, floor, rg, jrnl, cold = load("diary.json"), load("floor.json"), load("rg.json"), load("jrnl.json"), load("cold.json")
peak, counts, sizes = tsv("peak.tsv"), tsv("counts.tsv"), tsv("sizes.tsv")
tables, load = tsv("tables.tsv"), tsv("load.tsv")

# Which floor query answers the same question as each diary-find query, and its matches.
floor_of = {
    "diary-find 海邊 --limit 20 --json": ("sqlite3 海边 by rowid", "海邊"),
    "diary-find 開心 --limit 20 --json": ("sqlite3 开心 by rowid", "開心"),
    "diary-find coffee --limit 20 --json": ("sqlite3 coffee* by rowid", "coffee"),
    "diary-find --tag 旅行 --limit 20 --json": ("sqlite3 tag 旅行, newest first (diary.sqlite)", "tag 旅行"),
    "diary-find --tag 旅行 --from 2020-01 --to 2020-06 --limit 20 --json": ("sqlite3 tag 旅行 + 2020-01..06, newest first (diary.sqlite)", "tag 旅行 2020-01..06"),
    "diary-find 海邊 --tag 旅行 --limit 20 --json": ("sqlite3 海边 + tag 旅行 (floor.sqlite)", "海邊 + tag 旅行"),
    "diary-find --tags --json": ("sqlite3 tag counts from tag.entry_count (diary.sqlite)", None),
    "diary-find --calendar 2024-03 --json": ("sqlite3 calendar 2024-03 (diary.sqlite)", None),
    "diary-find --count 海邊": ("sqlite3 count 海边", "海邊"),
}

fill = ""
if os.path.exists(os.path.join(out, "fill.txt")):
    found = re.findall(r"^fill: .*$", open(os.path.join(out, "fill.txt"), encoding="utf-8").read(), re.M)
    fill = found[-1] if found else ""

print(f"### {n:,} entries\n")
if os.path.exists(os.path.join(out, "version.txt")):
    print(f"Build: {open(os.path.join(out, 'version.txt')).read().strip()}  ")
if fill:
    print(f"Bulk load: `{fill}`  ")
if sizes:
    print("On disk: " + ", ".join(f"{k} {int(v) / 1024:.0f} MB" for k, v in sizes.items()) + "  ")
check = open(os.path.join(out, "floor-check.txt")).read().strip() if os.path.exists(os.path.join(out, "floor-check.txt")) else "?"
print(f"Floor check: diary-find 海邊's first 20 ids vs the floor's newest 20 with 海边 in the person's own words: {check}.\n")

print("diary-find, warm (hyperfine -N, median of the runs; × floor = median / the sqlite3 median of the same question)\n")
print("| query | matches | median | min – max | peak RSS | sqlite3 floor | × floor |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, r in diary.items():
    floor_name, count_key = floor_of.get(name, (None, None))
    f = floor.get(floor_name) if floor_name else None
    ratio = f"{r['median'] / f['median']:.1f}×" if f else ""
    print(f"| `{r['command']}` | {counts.get(count_key, '') if count_key else ''} | {ms(r['median'])} | {spread(r)} | "
          f"{mb(peak.get(name))} | {ms(f['median']) if f else ''} | {ratio} |")
print()

def plain(title, results, count_keys={}):
    if not results:
        return
    print(title + "\n")
    print("| command | median | min – max | peak RSS |")
    print("|---|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {ms(r['median'])} | {spread(r)} | {mb(peak.get(name))} |")
    print()

plain("sqlite3 CLI floor, warm (`sqlite3 -readonly DB \"SQL\"`, whole process)", floor)
plain("ripgrep over the Markdown folder, warm", rg)
plain("jrnl (plain-text journal), warm", jrnl)
if cold:
    print("Cold: `sync; echo 3 > /proc/sys/vm/drop_caches` before every run\n")
    print("| command | median | min – max |")
    print("|---|---:|---:|")
    for name, r in cold.items():
        print(f"| {name} | {ms(r['median'])} | {spread(r)} |")
    print()
elif os.path.exists(os.path.join(out, "cold.txt")):
    print(open(os.path.join(out, "cold.txt")).read().strip() + "\n")
if tables:
    print("diary.sqlite by table and index (MB): " + ", ".join(f"{k} {v}" for k, v in tables.items()) + "\n")
if load:
    print("Load average (1, 5, 15 min) when each group started: " + "; ".join(f"{k.replace('.json', '')} {v}" for k, v in load.items()) + "\n")
if counts:
    print("Matches: " + "; ".join(f"{k} {v}" for k, v in counts.items()) + "\n")
