-- A pulled record this build cannot read is kept aside, so one bad record does not
-- stop every later sync; `diary-sync status` shows them.
CREATE TABLE pulled_reject (
    id INTEGER PRIMARY KEY,
    record TEXT NOT NULL,
    problem TEXT NOT NULL,
    received_at INTEGER NOT NULL
);
