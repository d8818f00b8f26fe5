#!/usr/bin/env python3
"""The watch driver and the report of bench/sync.sh (python3, standard library only).

  sync-report.py watch --bin DIR --a DEVICE --b DEVICE --photo FILE --out WORK [--changes N]
      Starts `diary-sync watch --json` on devices A and B (DEVICE/home, DEVICE/state), then
      N times: notes the time, writes a page on A (`diary-new FILE --text "change i"`) and
      waits until B's watch prints a line with "pulled" >= 1, read from its stdout as it
      comes. A few warm-up changes go first, untimed. Writes WORK/watch.tsv (one line per
      change), WORK/watch-a.jsonl and WORK/watch-b.jsonl (what the two watches printed, B's
      lines with the time they were read), and the two pids in WORK/watch.pids while they run.

  sync-report.py report WORK
      The markdown table of everything bench/sync.sh measured, on stdout.
"""
import argparse
import datetime
import json
import math
import os
import queue
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


# --- watch driver ----------------------------------------------------------------------

def device_env(device):
    return dict(os.environ, DIARY_HOME=str(Path(device) / "home"), XDG_STATE_HOME=str(Path(device) / "state"))


def parse_at(text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except (TypeError, ValueError):
        return float("nan")


def watch(args):
    out = Path(args.out)
    sync = str(Path(args.bin) / "diary-sync")
    new = str(Path(args.bin) / "diary-new")
    a_lines = open(out / "watch-a.jsonl", "wb")
    b_log = open(out / "watch-b.jsonl", "w")
    pa = subprocess.Popen([sync, "watch", "--json"], env=device_env(args.a), stdout=a_lines, stdin=subprocess.DEVNULL)
    pb = subprocess.Popen([sync, "watch", "--json"], env=device_env(args.b), stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    (out / "watch.pids").write_text(f"{pa.pid} {pb.pid}\n")
    lines = queue.Queue()

    def read_b():
        # readline on the pipe returns as soon as a whole line is there.
        for raw in iter(pb.stdout.readline, b""):
            mono, wall = time.monotonic(), time.time()
            text = raw.decode("utf-8", "replace").strip()
            b_log.write(json.dumps({"read_at": wall, "line": text}) + "\n")
            b_log.flush()
            try:
                obj = json.loads(text)
            except ValueError:
                continue
            lines.put((mono, wall, obj))

    threading.Thread(target=read_b, daemon=True).start()
    rng = random.Random(args.seed)

    def one_change(label):
        """Writes a page on A; returns (t0_wall, new_s, delay_s, after_new_s, at_delay_s, pulled, status)."""
        while True:  # lines that came late (a media fetch, a slow poll) are not this change's
            try:
                lines.get_nowait()
            except queue.Empty:
                break
        # A pause of 0–250 ms, so the writes fall anywhere in A's 200 ms poll of its diary.
        time.sleep(rng.uniform(0, 0.25))
        w0, t0 = time.time(), time.monotonic()
        done = subprocess.run([new, args.photo, "--text", label], env=device_env(args.a),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        t1 = time.monotonic()
        if done.returncode != 0:
            sys.stderr.write(done.stderr.decode("utf-8", "replace"))
            raise SystemExit(f"diary-new failed with status {done.returncode}")
        deadline = t0 + args.timeout
        while True:
            try:
                mono, wall, obj = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return (w0, t1 - t0, float("nan"), float("nan"), float("nan"), 0, "timeout")
            if obj.get("pulled", 0) >= 1:
                return (w0, t1 - t0, mono - t0, mono - t1, parse_at(obj.get("at")) - w0, obj["pulled"], "ok")

    rows = []
    try:
        time.sleep(args.settle)  # both watches connect and do their catch-up sync
        for i in range(1, args.warmup + 1):
            result = one_change(f"warm-up {i}")
            if result[-1] != "ok":
                raise SystemExit(f"B saw nothing within {args.timeout} s of warm-up change {i}")
        misses = 0
        for i in range(1, args.changes + 1):
            result = one_change(f"change {i}")
            rows.append((i,) + result)
            misses = misses + 1 if result[-1] != "ok" else 0
            if misses >= 5:
                sys.stderr.write("five changes in a row never reached B; stopping\n")
                break
            if i % 50 == 0:
                ok = [r[3] for r in rows if r[-1] == "ok"]
                sys.stderr.write(f"watch: {i} changes, median {statistics.median(ok) * 1000:.0f} ms\n" if ok else "")
    finally:
        for process in (pa, pb):
            if process.poll() is None:
                process.send_signal(signal.SIGINT)  # Ctrl-C, as a person stops it
        for process in (pa, pb):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        (out / "watch.pids").unlink(missing_ok=True)
        a_lines.close()
        with open(out / "watch.tsv", "w") as f:
            f.write("n\tt0_wall\tnew_s\tdelay_s\tafter_new_s\tat_delay_s\tpulled\tstatus\n")
            for r in rows:
                f.write("\t".join(str(x) if not isinstance(x, float) else f"{x:.6f}" for x in r) + "\n")


# --- report ----------------------------------------------------------------------------

def read_tsv(path):
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    if not lines:
        return []
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:] if line]


def read_pairs(path):
    if not path.exists():
        return {}
    return dict(line.split("\t", 1) for line in path.read_text().splitlines() if "\t" in line)


def p95(values):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def secs(s):
    return f"{s:.2f} s" if s >= 1 else f"{s * 1000:.1f} ms"


def ms(s):
    return f"{s * 1000:.1f} ms"


def hyperfine(path, name_start=""):
    if not path.exists():
        return {}
    results = json.loads(path.read_text())["results"]
    return {r["command"]: r for r in results if r["command"].startswith(name_start)}


def report(work):
    info = read_pairs(work / "info.tsv")
    runs = read_tsv(work / "runs.tsv")
    entries = int(info.get("entries", "0"))
    out = []
    w = out.append
    w(f"### Sync (issue 6): `bench/sync.sh {entries} {info.get('users', '')}`")
    w("")
    w(f"Build {info.get('version', '?')}; {info.get('postgres', '?')} on loopback ({info.get('pg_settings', '')}); "
      f"{info.get('cpus', '?')} cores, {info.get('memory', '?')}; {info.get('date', '')}. "
      f"Corpus: diary-corpus seed 42, {entries:,} entries, no media ({info.get('corpus_outbox', '?')} outbox rows), "
      f"made in {info.get('corpus_s', '?')} s. Whole benchmark {info.get('total_s', '?')} s; "
      f"load average at the start {info.get('start_load', '?')}, at the end {info.get('end_load', '?')}.")
    w("")
    w("| measurement | median | min – max | rate / detail | load (1 min) |")
    w("|---|---:|---:|---:|---:|")

    def sync_rows(step, label, counted, fixed=None):
        sel = [r for r in runs if r["step"] == step and r["status"] == "ok"]
        failed = sum(1 for r in runs if r["step"] == step and r["status"] != "ok")
        if not sel:
            if failed:
                w(f"| {label} | FAILED ({failed} runs) | | | |")
            return
        t = [float(r["seconds"]) for r in sel]
        moved = []
        for r in sel:
            try:
                moved.append(json.loads(r["json"]).get(counted, 0))
            except ValueError:
                moved.append(0)
        med = statistics.median(t)
        n = statistics.median(moved)
        rate = f"{n / med:,.0f} entries/s ({int(n):,} {counted})" if med > 0 else ""
        if fixed is not None:  # entries that travel without counting as moved
            rate = f"{fixed / med:,.0f} entries/s ({fixed:,} received, {int(n):,} counted as {counted})" if med > 0 else ""
        extra = f", {failed} failed" if failed else ""
        rng = f"{min(t):.2f} – {max(t):.2f} s" if len(t) > 1 else "1 run"
        load1 = sorted(float(r["load1"]) for r in sel)
        loads = f"{load1[0]:.2f}–{load1[-1]:.2f}" if len(load1) > 1 else f"{load1[0]:.2f}"
        mem = max(int(r["max_rss_kb"]) for r in sel) / 1024
        cpu = statistics.median(float(r["user_s"]) + float(r["sys_s"]) for r in sel)
        w(f"| {label} | {med:.2f} s | {rng} | {rate}; CPU {cpu:.1f} s, {mem:.0f} MB{extra} | {loads} |")

    sync_rows("push", f"push {entries:,} entries, `diary-sync push` on A (n={info.get('runs')})", "pushed")
    sync_rows("pull", f"pull {entries:,} entries, `diary-sync pull` on a fresh B (n={info.get('runs')})", "pulled")
    sync_rows("push-sealed", f"push {entries:,} entries sealed, `diary-sync push` on A (n={info.get('runs')})", "pushed")
    sync_rows("pull-sealed", f"pull {entries:,} entries sealed, `diary-sync pull` on a fresh B (n={info.get('runs')})", "pulled")
    sync_rows("push-supabase", f"push {entries:,} entries through the Supabase stand-in on this machine "
              f"(n={info.get('runs')})", "pushed")
    sync_rows("pull-supabase", f"pull {entries:,} entries through the Supabase stand-in on this machine "
              f"(n={info.get('runs')})", "pulled")
    sync_rows("catchup", f"A's next `diary-sync` after its push (takes its own {entries:,} entries back, all unchanged; 1 run)",
              "pulled", fixed=entries)

    noop = hyperfine(work / "noop.json")
    stmts = read_tsv_plain(work / "noop-statements.tsv")
    logged = (work / "noop-statements.log").read_text().splitlines() if (work / "noop-statements.log").exists() else []
    calls = sum(int(r[0]) for r in stmts) if stmts else None
    server_ms = sum(float(r[2]) for r in stmts) if stmts else None
    for name, r in noop.items():
        detail = ""
        if name.startswith("diary-sync (nothing"):
            detail = (f"{calls} statement(s) by pg_stat_statements, {len(logged)} in the server log; "
                      f"{server_ms:.2f} ms of server time" if calls is not None else "")
        w(f"| {name}, whole process (n={len(r['times'])}) | {ms(r['median'])} | {ms(r['min'])} – {ms(r['max'])} | "
          f"{detail} | {info.get('noop_load', '').split(' ')[0]} |")

    watch_rows = [r for r in read_tsv(work / "watch.tsv")]
    ok = [r for r in watch_rows if r["status"] == "ok"]
    if watch_rows:
        delay = [float(r["delay_s"]) for r in ok]
        after = [float(r["after_new_s"]) for r in ok]
        at = [float(r["at_delay_s"]) for r in ok if r["at_delay_s"] != "nan"]
        new = [float(r["new_s"]) for r in watch_rows]
        missed = len(watch_rows) - len(ok)
        loads = f"{info.get('watch_load_before', '').split(' ')[0]}–{info.get('watch_load_after', '').split(' ')[0]}"
        if delay:
            w(f"| watch: a page written on A until B's watch prints it (n={len(ok)}{f', {missed} never arrived' if missed else ''}) | "
              f"{ms(statistics.median(delay))} | {ms(min(delay))} – {ms(max(delay))} | "
              f"**p95 {ms(p95(delay))}**, max {ms(max(delay))}; by B's \"at\" median {ms(statistics.median(at)) if at else '—'} | {loads} |")
            w(f"| watch: the same from diary-new's exit | {ms(statistics.median(after))} | {ms(min(after))} – {ms(max(after))} | "
              f"p95 {ms(p95(after))}; diary-new itself median {ms(statistics.median(new))} | |")
        else:
            w(f"| watch | no change reached B ({missed}) | | | |")

    fill = read_tsv(work / "fill.tsv")
    big = read_pairs(work / "big-server.tsv")
    if fill:
        total = sum(float(r["seconds"]) for r in fill)
        parts = ", ".join(f"{r['step']} {float(r['seconds']):.1f} s" for r in fill)
        rows = int(big.get("entry_rows", "0"))
        w(f"| fill of the big server: {int(info.get('users', 0)):,} users × {info.get('per_user')} entries with SQL | "
          f"{total:.1f} s | | {parts}; {rows / max(1e-9, sum(float(r['seconds']) for r in fill if r['step'] == 'entries')):,.0f} entry rows/s | "
          f"{fill[0]['load1']}–{fill[-1]['load1']} |")
        for name, r in hyperfine(work / "big-pull.json").items():
            w(f"| {name} on a server of {rows:,} entry rows, whole process (n={len(r['times'])}) | {ms(r['median'])} | "
              f"{ms(r['min'])} – {ms(r['max'])} | {int(info.get('per_user', 20)) / r['median']:,.0f} entries/s | "
              f"{info.get('big_pull_load', '').split(' ')[0]} |")
        for name, r in hyperfine(work / "big-noop.json").items():
            w(f"| {name}, whole process (n={len(r['times'])}) | {ms(r['median'])} | {ms(r['min'])} – {ms(r['max'])} | | |")
        psql = (work / "big-psql.txt").read_text() if (work / "big-psql.txt").exists() else ""
        times = [float(x) for x in re.findall(r"Time: ([0-9.]+) ms", psql)]
        answer = psql.splitlines()[0] if psql else "?"
        if len(times) > 1:
            t = times[1:]  # the first call also measured the answer's size
            w(f"| `SELECT diary.pull(0, 200)` as that user in psql, server + loopback (n={len(t)}) | "
              f"{statistics.median(t):.2f} ms | {min(t):.2f} – {max(t):.2f} ms | answer {answer} bytes (20 entries) | |")
    w("")

    rows = read_tsv(work / "rows.tsv")
    if rows:
        w("Rows on the server after each push (one user each): "
          + "; ".join(f"{r['user']}: {int(r['entries']):,} entries, {int(r['messages']):,} messages, "
                      f"{int(r['tag_links']):,} tag links, {r['media']} media, account server_seq {r['account_seq']}" for r in rows)
          + ".")
        w("")
    if big:
        w(f"Big server: {int(big.get('accounts', 0)):,} accounts, {int(big.get('entry_rows', 0)):,} entry rows "
          f"(average doc {big.get('avg_doc_bytes')} bytes; diary.entry {int(big.get('entry_heap_bytes', 0)) / 1e9:.2f} GB heap, "
          f"{int(big.get('entry_total_bytes', 0)) / 1e9:.2f} GB with indexes; database {int(big.get('database_bytes', 0)) / 1e9:.2f} GB); "
          f"the measured user holds {big.get('big_user_entries')} entries, {big.get('big_user_messages')} messages, "
          f"{big.get('big_user_tag_links')} tag links.")
        w("")
    if stmts:
        w("Statements of one sync with nothing to do (pg_stat_statements, top level):")
        w("")
        w("```")
        for r in stmts:
            w(f"calls {r[0]}  rows {r[1]}  {r[2]} ms  {r[3][:150]}")
        w("```")
        w("")
    blocks = [b for b in auto_explain_blocks(work / "auto-explain.txt") if not b[1].startswith("SELECT diary.pull")]
    if blocks:
        main_block = max(blocks, key=lambda b: b[0])
        w(f"Inside one `diary.pull(0, 200)` call (auto_explain, nested statements, analyze): {len(blocks)} statements. "
          f"The main query (`{main_block[1][:60]}…`) took {main_block[0]:.3f} ms; its scans "
          f"(whole plan in auto-explain.txt):")
        w("")
        w("```")
        w("\n".join(line for line in main_block[2] if re.search(r"Scan|Index Cond|Execution|actual time=.*loops", line)
                    and not re.search(r"^\s*->\s*(Result|Limit|Sort|Aggregate|Merge Append)\b|^Aggregate", line)))
        w("```")
        w("")
        others = {}
        for duration, text, plan in blocks:
            if plan is main_block[2]:
                continue
            count, total = others.get(text, (0, 0.0))
            others[text] = (count + 1, total + duration)
        w("The others: " + "; ".join(f"{c} × `{t[:90]}` ({d:.3f} ms in all)" for t, (c, d) in others.items()) + ".")
        w("")
    checks = (work / "checks.txt").read_text().strip() if (work / "checks.txt").exists() else ""
    if checks:
        w("Checks: " + "; ".join(line for line in checks.splitlines() if not line.startswith("{")) + ".")
    print("\n".join(out))


def auto_explain_blocks(path):
    """(duration ms, query text, plan lines) of each statement auto_explain logged."""
    if not path.exists():
        return []
    raw = []
    open_block = False
    for line in path.read_text().splitlines():
        found = re.search(r"LOG:  duration: ([0-9.]+) ms  plan:", line)
        if found:
            raw.append((float(found.group(1)), []))
            open_block = True
        elif open_block and line.startswith("\t"):
            raw[-1][1].append(line[1:])
        else:
            open_block = False  # a CONTEXT line and its continuation belong to no plan
    blocks = []
    for duration, lines in raw:
        # "Query Text: …" (indented continuation lines), then the plan from its root node.
        root = next((i for i, line in enumerate(lines) if "(cost=" in line and not line[:1].isspace()), len(lines))
        text = " ".join(line.strip() for line in lines[:root]).removeprefix("Query Text:").strip()
        blocks.append((duration, re.sub(r"\s+", " ", text), lines[root:]))
    return blocks


def read_tsv_plain(path):
    if not path.exists():
        return []
    return [line.split("\t") for line in path.read_text().splitlines() if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    wp = sub.add_parser("watch")
    wp.add_argument("--bin", required=True)
    wp.add_argument("--a", required=True)
    wp.add_argument("--b", required=True)
    wp.add_argument("--photo", required=True)
    wp.add_argument("--out", required=True)
    wp.add_argument("--changes", type=int, default=200)
    wp.add_argument("--warmup", type=int, default=3)
    wp.add_argument("--settle", type=float, default=3.0)
    wp.add_argument("--timeout", type=float, default=60.0)
    wp.add_argument("--seed", type=int, default=42)
    rp = sub.add_parser("report")
    rp.add_argument("work")
    args = parser.parse_args()
    if args.command == "watch":
        watch(args)
    else:
        report(Path(args.work))


if __name__ == "__main__":
    main()
