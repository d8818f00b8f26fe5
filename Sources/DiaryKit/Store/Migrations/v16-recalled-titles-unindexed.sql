-- The companion's words are indexed without what it quoted (〈…〉, “…”): the titles of other
-- pages it recalled made every recalling page match a search for them. No schema change; the
-- Swift step makes the full-text rows of every live entry again.
SELECT 1;
