-- Approvals that have opened a run: each id is spent once, across every process sharing the
-- journal. A row may be dropped once its approval has lapsed, since a lapsed id is refused
-- before the journal is asked.
CREATE TABLE journal_spent (
    approval_id TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    spent_at BIGINT NOT NULL
);
CREATE INDEX journal_spent_by_expiry ON journal_spent (expires_at);
