-- Feelings over time count tags per day: the live entries' days by id, so the count
-- reads this small index instead of each (large) entry row.
CREATE INDEX entry_live_day_by_id ON entry(id, local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;
