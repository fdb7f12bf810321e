-- Paused agent runs; the same SQL for SQLite and PostgreSQL. Times are milliseconds since
-- the Unix epoch.

-- One row per run that waits for answers: its state as the agent wrote it (JSON), and the
-- claim of the process resuming it, if one is.
CREATE TABLE journal_runs (
    run_id TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    state TEXT NOT NULL,
    claimed_until BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- One row per request a paused run's calls wait on, with its answer once one is recorded.
CREATE TABLE journal_run_requests (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    request TEXT NOT NULL,
    expires_at BIGINT,
    answer TEXT,
    answered_at BIGINT
);
CREATE INDEX journal_run_requests_run ON journal_run_requests (run_id, position);
