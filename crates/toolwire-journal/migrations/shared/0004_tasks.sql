-- Durable tasks (the tasks extension of MCP 2026-07-28): each task's record as JSON, changed
-- only by a compare-and-set on its version, so that every process sharing the journal agrees
-- on who runs a task and how it ended. A row may be dropped once it has expired.
CREATE TABLE journal_tasks (
    task_id TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    record TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX journal_tasks_by_expiry ON journal_tasks (expires_at);
