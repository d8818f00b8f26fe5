#!/usr/bin/python3
"""Many people on one server, through the real functions (issue 18, item 5).

Driven by bench/load.sh, which starts the cluster, shapes the database like a Supabase
project and runs server-init. This script then

  fill     signs USERS people up (rows in auth.users, so the real trigger makes their diary
           accounts) and pushes PER_USER entries for each through diary.push, as PostgREST
           would call it: SET LOCAL ROLE authenticated and the person's JWT claims, one
           transaction per batch of at most 20 (the client's batches), CLIENTS connections
           at once;
  measure  CLIENTS connections for SECONDS, each picking a random person and doing one of:
           pull of all their entries on a fresh device (pull(0, 200)), an idle sync (pull
           from their current counter), a push of one new entry; latencies per kind.

Records are real ones: the entries.jsonl of a diary-corpus backup (the push wire format).
Each person gets fresh entry, message and media ids, as their own devices would make.

Prints JSON lines; load.sh turns them into results.md.
"""
import argparse
import json
import random
import statistics
import sys
import threading
import time
import uuid
import hashlib

import psycopg2


def renamed(template):
    """The record with new ids for the entry and everything that belongs to it."""
    record = json.loads(template)
    entry_id = str(uuid.uuid4())
    record["id"] = entry_id
    for key in ("messages", "media", "tag_links"):
        for child in record.get(key) or []:
            if "id" in child:
                child["id"] = str(uuid.uuid4())
            if "entry_id" in child:
                child["entry_id"] = entry_id
    return record


def batch_text(records):
    items = []
    for record in records:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        key = hashlib.sha256(text.encode()).hexdigest()
        items.append('{"key":"%s","record":%s}' % (key, text))
    return "[" + ",".join(items) + "]"


def as_person(cursor, user_id):
    cursor.execute("SET LOCAL ROLE authenticated")
    claims = json.dumps({"sub": user_id, "role": "authenticated", "aud": "authenticated"})
    cursor.execute("SELECT set_config('request.jwt.claims', %s, true)", (claims,))


def push(connection, user_id, records):
    """One push transaction per batch of at most 20; the statuses must all be applied."""
    with connection.cursor() as cursor:
        for start in range(0, len(records), 20):
            as_person(cursor, user_id)
            cursor.execute("SELECT diary.push(%s::jsonb, 'load-device')::text", (batch_text(records[start:start + 20]),))
            answer = json.loads(cursor.fetchone()[0])
            connection.commit()
            bad = [r for r in answer["results"] if r["status"] != "applied"]
            if bad:
                raise RuntimeError(f"push refused: {bad[:1]}")


def pull(connection, user_id, after):
    with connection.cursor() as cursor:
        as_person(cursor, user_id)
        cursor.execute("SELECT diary.pull(%s, 200, 'other-device')::text", (after,))
        answer = json.loads(cursor.fetchone()[0])
        connection.commit()
    return answer


def percentiles(samples):
    if not samples:
        return {}
    ordered = sorted(samples)
    def at(p):
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 2)
    return {"n": len(ordered), "mean_ms": round(statistics.mean(ordered) * 1000, 2),
            "p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": round(ordered[-1] * 1000, 2)}


def fill(args, templates):
    admin = psycopg2.connect(args.url)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM diary.account")
        before = cursor.fetchone()[0]
        started = time.time()
        # Signing up as Supabase Auth does: a row in auth.users; the diary's trigger does the rest.
        cursor.execute("""
            INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at)
            SELECT gen_random_uuid(), 'authenticated', 'authenticated', 'load-' || n || '-' || %s || '@example.com', '', now()
              FROM generate_series(1, %s) n""", (uuid.uuid4().hex[:8], args.users))
        cursor.execute("SELECT user_id::text FROM diary.account ORDER BY created_at DESC, user_id LIMIT %s", (args.users,))
        people = [row[0] for row in cursor.fetchall()]
        signup_s = time.time() - started
    admin.close()

    queue = list(people)
    lock = threading.Lock()
    latencies = []
    failures = []

    def worker():
        connection = psycopg2.connect(args.url)
        mine = []
        while True:
            with lock:
                if not queue:
                    break
                person = queue.pop()
            records = [renamed(t) for t in templates[:args.per_user]]
            began = time.perf_counter()
            try:
                push(connection, person, records)
            except Exception as error:  # noqa: BLE001 (reported, the run goes on)
                connection.rollback()
                failures.append(str(error)[:200])
                continue
            mine.append(time.perf_counter() - began)
        connection.close()
        with lock:
            latencies.extend(mine)

    started = time.time()
    threads = [threading.Thread(target=worker) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    done = 0
    while any(t.is_alive() for t in threads):
        time.sleep(10)
        with lock:
            left = len(queue)
        if args.users - left - done >= max(1, args.users // 20):
            done = args.users - left
            rate = done * args.per_user / (time.time() - started)
            print(f"  filled {done}/{args.users} people ({rate:.0f} entries/s)", file=sys.stderr)
    for thread in threads:
        thread.join()
    seconds = time.time() - started
    print(json.dumps({"step": "fill", "people": args.users, "accounts_before": before, "per_user": args.per_user,
                      "clients": args.clients, "signup_s": round(signup_s, 2), "push_s": round(seconds, 2),
                      "entries_per_s": round(args.users * args.per_user / seconds),
                      "push_per_person": percentiles(latencies), "failures": len(failures),
                      "first_failure": failures[0] if failures else None}), flush=True)


def measure(args, templates):
    admin = psycopg2.connect(args.url)
    with admin.cursor() as cursor:
        cursor.execute("SELECT user_id::text, server_seq FROM diary.account WHERE server_seq >= %s", (args.per_user,))
        people = cursor.fetchall()
    admin.close()
    if not people:
        raise SystemExit("no filled accounts: run the fill first")
    stop_at = time.time() + args.seconds
    samples = {"pull_fresh": [], "pull_idle": [], "push_one": []}
    lock = threading.Lock()
    failures = []

    def worker(seed):
        rng = random.Random(seed)
        connection = psycopg2.connect(args.url)
        mine = {k: [] for k in samples}
        while time.time() < stop_at:
            person, counter = rng.choice(people)
            kind = rng.choices(["pull_fresh", "pull_idle", "push_one"], weights=[2, 6, 2])[0]
            began = time.perf_counter()
            try:
                if kind == "pull_fresh":
                    answer = pull(connection, person, 0)
                    if len(answer["items"]) < args.per_user:
                        raise RuntimeError(f"pulled {len(answer['items'])} of {person}'s entries")
                elif kind == "pull_idle":
                    pull(connection, person, counter)
                else:
                    push(connection, person, [renamed(rng.choice(templates))])
            except Exception as error:  # noqa: BLE001
                connection.rollback()
                failures.append(str(error)[:200])
                continue
            mine[kind].append(time.perf_counter() - began)
        connection.close()
        with lock:
            for key, values in mine.items():
                samples[key].extend(values)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(args.clients)]
    started = time.time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.time() - started
    total = sum(len(v) for v in samples.values())
    print(json.dumps({"step": "measure", "clients": args.clients, "seconds": round(seconds, 1), "people": len(people),
                      "operations_per_s": round(total / seconds), "failures": len(failures),
                      "first_failure": failures[0] if failures else None,
                      **{key: percentiles(values) for key, values in samples.items()}}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["fill", "measure", "batch"], help="batch: print one push batch of a new entry")
    parser.add_argument("--url", help="the admin's postgres:// URL")
    parser.add_argument("--records", required=True, help="entries.jsonl of a backup (one push record per line)")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--per-user", type=int, default=20)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()
    with open(args.records, encoding="utf-8") as lines:
        templates = [line.strip() for line in lines if line.strip()]
    if len(templates) < args.per_user:
        raise SystemExit(f"{args.records} has {len(templates)} records, fewer than --per-user {args.per_user}")
    if args.step == "batch":
        print(batch_text([renamed(templates[0])]))
    else:
        fill(args, templates) if args.step == "fill" else measure(args, templates)


if __name__ == "__main__":
    main()
