-- Place names (a Day One import's town, region and country among them) are found by
-- search like the person's own words: a column of their own in the index.
-- After this runs, DiaryStore fills the new index.
DROP TABLE entry_vocabulary;
DROP TABLE entry_fts;
CREATE VIRTUAL TABLE entry_fts USING fts5(
    title, summary, note, transcript, tags, person_chat, analysis, companion_chat, place,
    tokenize = 'diary_bigram'
);
CREATE VIRTUAL TABLE entry_vocabulary USING fts5vocab(entry_fts, row);
