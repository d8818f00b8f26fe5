-- What another diary's export says that ours kept nowhere, so that exporting it back
-- loses nothing: the journal a page came from, a tag's case as written, and where a
-- photo stood in the text.
ALTER TABLE entry ADD COLUMN journal TEXT;
ALTER TABLE entry_tag ADD COLUMN label TEXT;
ALTER TABLE media ADD COLUMN anchor INTEGER;
