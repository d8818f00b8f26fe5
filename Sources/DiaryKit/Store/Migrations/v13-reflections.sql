-- A reflection is a page of its own kind: the days it looks back on and the pages it cites.
ALTER TABLE entry ADD COLUMN reflection TEXT;
