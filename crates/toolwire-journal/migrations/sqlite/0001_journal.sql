-- The journal's first schema (SQLite). Times are milliseconds since the Unix epoch.
CREATE TABLE journal_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per call id: its state, the lease of the process running it, its receipt.
CREATE TABLE journal_calls (
    call_id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    digest TEXT NOT NULL,
    arguments TEXT NOT NULL,
    state TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    owner TEXT,
    lease_until BIGINT NOT NULL,
    request_id TEXT,
    receipt TEXT,
    started_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX journal_calls_state ON journal_calls (state);

-- One row per request a suspended call waited on.
CREATE TABLE journal_requests (
    request_id TEXT PRIMARY KEY,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    kind TEXT NOT NULL,
    invocation_id TEXT NOT NULL,
    request TEXT NOT NULL,
    expires_at BIGINT,
    state TEXT NOT NULL,
    answer TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX journal_requests_open ON journal_requests (state, tool, kind);

-- The audit log: every receipt appended, in order.
CREATE TABLE journal_receipts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    invocation_id TEXT NOT NULL,
    call_id TEXT,
    tool TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    failure TEXT,
    receipt TEXT NOT NULL
);
CREATE INDEX journal_receipts_call ON journal_receipts (call_id);
CREATE INDEX journal_receipts_tool ON journal_receipts (tool, started_at);
CREATE INDEX journal_receipts_time ON journal_receipts (started_at);
CREATE INDEX journal_receipts_failure ON journal_receipts (failure, started_at);
