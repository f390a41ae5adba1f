#include "store/schema.hpp"

namespace store {

// Timestamps are UTC unix seconds in both dialects. Engagement is the raw sum of a
// source's engagement fields. Findings are unique by canonical URL (url_key).
const std::vector<Migration>& migrations() {
  static const std::vector<Migration> kMigrations{
      {1, "topics, runs, findings, sightings, watchlist, findings full-text",
       R"sql(
CREATE TABLE topics(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, display TEXT NOT NULL);
CREATE TABLE runs(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL REFERENCES topics(id), kind TEXT NOT NULL,
  window_from INTEGER NOT NULL, window_to INTEGER NOT NULL, days INTEGER NOT NULL, depth TEXT NOT NULL,
  started_at INTEGER NOT NULL, finished_at INTEGER NOT NULL, source_status TEXT NOT NULL, findings INTEGER NOT NULL);
CREATE INDEX runs_by_topic ON runs(topic_id, id);
CREATE TABLE findings(id INTEGER PRIMARY KEY, url_key TEXT NOT NULL UNIQUE, url TEXT NOT NULL, title TEXT NOT NULL,
  source TEXT NOT NULL, snippet TEXT NOT NULL, published_at INTEGER, first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL, sightings INTEGER NOT NULL, max_engagement REAL NOT NULL);
CREATE TABLE sightings(finding_id INTEGER NOT NULL REFERENCES findings(id), run_id INTEGER NOT NULL REFERENCES runs(id),
  engagement REAL NOT NULL, PRIMARY KEY(finding_id, run_id)) WITHOUT ROWID;
CREATE INDEX sightings_by_run ON sightings(run_id);
CREATE TABLE watchlist(topic_id INTEGER PRIMARY KEY REFERENCES topics(id), days INTEGER NOT NULL,
  every_hours REAL NOT NULL, sources TEXT NOT NULL, added_at INTEGER NOT NULL, last_run_at INTEGER,
  next_due_at INTEGER NOT NULL, claimed_by TEXT, claim_expires_at INTEGER);
CREATE VIRTUAL TABLE findings_fts USING fts5(title, snippet, url, content='findings', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO findings_fts(findings_fts, rank) VALUES('rank', 'bm25(10.0, 3.0, 1.0)');
CREATE TRIGGER findings_fts_insert AFTER INSERT ON findings BEGIN
  INSERT INTO findings_fts(rowid, title, snippet, url) VALUES (new.id, new.title, new.snippet, new.url);
END;
CREATE TRIGGER findings_fts_update AFTER UPDATE OF title, snippet, url ON findings
  WHEN old.title IS NOT new.title OR old.snippet IS NOT new.snippet OR old.url IS NOT new.url BEGIN
  INSERT INTO findings_fts(findings_fts, rowid, title, snippet, url) VALUES ('delete', old.id, old.title, old.snippet, old.url);
  INSERT INTO findings_fts(rowid, title, snippet, url) VALUES (new.id, new.title, new.snippet, new.url);
END;
CREATE TRIGGER findings_fts_delete AFTER DELETE ON findings BEGIN
  INSERT INTO findings_fts(findings_fts, rowid, title, snippet, url) VALUES ('delete', old.id, old.title, old.snippet, old.url);
END;
)sql",
       R"sql(
CREATE TABLE topics(id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL UNIQUE, display TEXT NOT NULL);
CREATE TABLE runs(id BIGSERIAL PRIMARY KEY, topic_id BIGINT NOT NULL REFERENCES topics(id), kind TEXT NOT NULL,
  window_from BIGINT NOT NULL, window_to BIGINT NOT NULL, days INTEGER NOT NULL, depth TEXT NOT NULL,
  started_at BIGINT NOT NULL, finished_at BIGINT NOT NULL, source_status TEXT NOT NULL, findings INTEGER NOT NULL);
CREATE INDEX runs_by_topic ON runs(topic_id, id);
CREATE TABLE findings(id BIGSERIAL PRIMARY KEY, url_key TEXT NOT NULL UNIQUE, url TEXT NOT NULL, title TEXT NOT NULL,
  source TEXT NOT NULL, snippet TEXT NOT NULL, published_at BIGINT, first_seen BIGINT NOT NULL,
  last_seen BIGINT NOT NULL, sightings INTEGER NOT NULL, max_engagement DOUBLE PRECISION NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, title), 'A') ||
    setweight(to_tsvector('english'::regconfig, snippet), 'B') ||
    setweight(to_tsvector('simple'::regconfig, url), 'C')) STORED);
CREATE INDEX findings_tsv ON findings USING GIN(tsv);
CREATE TABLE sightings(finding_id BIGINT NOT NULL REFERENCES findings(id), run_id BIGINT NOT NULL REFERENCES runs(id),
  engagement DOUBLE PRECISION NOT NULL, PRIMARY KEY(finding_id, run_id));
CREATE INDEX sightings_by_run ON sightings(run_id);
CREATE TABLE watchlist(topic_id BIGINT PRIMARY KEY REFERENCES topics(id), days INTEGER NOT NULL,
  every_hours DOUBLE PRECISION NOT NULL, sources TEXT NOT NULL, added_at BIGINT NOT NULL, last_run_at BIGINT,
  next_due_at BIGINT NOT NULL, claimed_by TEXT, claim_expires_at BIGINT);
)sql"},
      {2, "saved briefs and their full-text index",
       R"sql(
CREATE TABLE briefs(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime INTEGER NOT NULL, size INTEGER NOT NULL,
  hash TEXT NOT NULL, topic TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, indexed_at INTEGER NOT NULL);
CREATE VIRTUAL TABLE briefs_fts USING fts5(title, body, content='briefs', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO briefs_fts(briefs_fts, rank) VALUES('rank', 'bm25(10.0, 1.0)');
CREATE TRIGGER briefs_fts_insert AFTER INSERT ON briefs BEGIN
  INSERT INTO briefs_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER briefs_fts_update AFTER UPDATE OF title, body ON briefs BEGIN
  INSERT INTO briefs_fts(briefs_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
  INSERT INTO briefs_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER briefs_fts_delete AFTER DELETE ON briefs BEGIN
  INSERT INTO briefs_fts(briefs_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
)sql",
       R"sql(
CREATE TABLE briefs(id BIGSERIAL PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime BIGINT NOT NULL, size BIGINT NOT NULL,
  hash TEXT NOT NULL, topic TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, indexed_at BIGINT NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, title), 'A') || setweight(to_tsvector('english'::regconfig, body), 'B')) STORED);
CREATE INDEX briefs_tsv ON briefs USING GIN(tsv);
)sql"},
      // Notifications (pending digests per channel until delivered, the last delivery per
      // channel), per-topic channel overrides, daily request budgets, a machine identity
      // for saved briefs on a shared store, and discovery topics in their own namespace
      // (a key no research topic can have: research keys hold no control characters).
      {3, "notifications, request budgets, briefs per machine, discovery namespace",
       R"sql(
ALTER TABLE watchlist ADD COLUMN notify TEXT;
CREATE TABLE notify_pending(id INTEGER PRIMARY KEY, channel TEXT NOT NULL, topic_id INTEGER NOT NULL REFERENCES topics(id),
  created_at INTEGER NOT NULL, run TEXT NOT NULL);
CREATE INDEX notify_pending_by_channel ON notify_pending(channel, id);
CREATE TABLE notify_log(channel TEXT PRIMARY KEY, at INTEGER NOT NULL, ok INTEGER NOT NULL, detail TEXT NOT NULL);
CREATE TABLE budget_spend(source TEXT NOT NULL, day TEXT NOT NULL, spent INTEGER NOT NULL, PRIMARY KEY(source, day));
CREATE TABLE briefs_v3(id INTEGER PRIMARY KEY, origin TEXT NOT NULL DEFAULT '', path TEXT NOT NULL, mtime INTEGER NOT NULL,
  size INTEGER NOT NULL, hash TEXT NOT NULL, topic TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
  indexed_at INTEGER NOT NULL, UNIQUE(origin, path));
INSERT INTO briefs_v3(id, origin, path, mtime, size, hash, topic, title, body, indexed_at)
  SELECT id, '', path, mtime, size, hash, topic, title, body, indexed_at FROM briefs;
DROP TABLE briefs;
ALTER TABLE briefs_v3 RENAME TO briefs;
CREATE TRIGGER briefs_fts_insert AFTER INSERT ON briefs BEGIN
  INSERT INTO briefs_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER briefs_fts_update AFTER UPDATE OF title, body ON briefs BEGIN
  INSERT INTO briefs_fts(briefs_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
  INSERT INTO briefs_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER briefs_fts_delete AFTER DELETE ON briefs BEGIN
  INSERT INTO briefs_fts(briefs_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
UPDATE topics SET key = char(1) || key WHERE id IN (SELECT topic_id FROM runs WHERE kind = 'discovery')
  AND id NOT IN (SELECT topic_id FROM runs WHERE kind <> 'discovery');
)sql",
       R"sql(
ALTER TABLE watchlist ADD COLUMN notify TEXT;
CREATE TABLE notify_pending(id BIGSERIAL PRIMARY KEY, channel TEXT NOT NULL, topic_id BIGINT NOT NULL REFERENCES topics(id),
  created_at BIGINT NOT NULL, run TEXT NOT NULL);
CREATE INDEX notify_pending_by_channel ON notify_pending(channel, id);
CREATE TABLE notify_log(channel TEXT PRIMARY KEY, at BIGINT NOT NULL, ok INTEGER NOT NULL, detail TEXT NOT NULL);
CREATE TABLE budget_spend(source TEXT NOT NULL, day TEXT NOT NULL, spent BIGINT NOT NULL, PRIMARY KEY(source, day));
ALTER TABLE briefs ADD COLUMN origin TEXT NOT NULL DEFAULT '';
ALTER TABLE briefs DROP CONSTRAINT briefs_path_key;
ALTER TABLE briefs ADD CONSTRAINT briefs_origin_path UNIQUE(origin, path);
UPDATE topics SET key = chr(1) || key WHERE id IN (SELECT topic_id FROM runs WHERE kind = 'discovery')
  AND id NOT IN (SELECT topic_id FROM runs WHERE kind <> 'discovery');
)sql"},
      // Daily request budgets kept in the store (`watch budget SOURCE N|off`): one per source,
      // for every run that uses this store.
      {4, "request budgets kept in the store",
       R"sql(
CREATE TABLE budget_limit(source TEXT PRIMARY KEY, requests INTEGER NOT NULL, set_at INTEGER NOT NULL);
)sql",
       R"sql(
CREATE TABLE budget_limit(source TEXT PRIMARY KEY, requests BIGINT NOT NULL, set_at BIGINT NOT NULL);
)sql"},
  };
  return kMigrations;
}

}  // namespace store
