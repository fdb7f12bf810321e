//! The rows the journal reads back: a call and a request. Their states are parsed here, once.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::status::{CallStatus, RequestStatus};
use crate::error::JournalError;

/// The columns of [`CallRow`], in order, for `SELECT` (some are read only by SQL).
pub(crate) const CALL_COLUMNS: &str = "call_id, tool, digest, arguments, state, attempt, owner, \
     lease_until, request_id, receipt, started_at, updated_at";

/// The columns of [`RequestRow`], in order, for `SELECT` (some are read only by SQL).
pub(crate) const REQUEST_COLUMNS: &str = "request_id, call_id, tool, kind, invocation_id, \
     request, expires_at, state, answer, created_at";

/// One call id's row.
#[derive(Debug, Clone)]
pub(crate) struct CallRow {
    pub(crate) call_id: String,
    pub(crate) tool: String,
    pub(crate) digest: String,
    pub(crate) arguments: String,
    pub(crate) state: CallStatus,
    pub(crate) attempt: i64,
    pub(crate) lease_until: i64,
    pub(crate) receipt: Option<String>,
    pub(crate) started_at: i64,
}

impl CallRow {
    pub(crate) fn read(row: &AnyRow) -> Result<Self, JournalError> {
        let bad = |e: sqlx::Error| JournalError::corrupt("call row", e);
        Ok(Self {
            call_id: row.try_get(0).map_err(bad)?,
            tool: row.try_get(1).map_err(bad)?,
            digest: row.try_get(2).map_err(bad)?,
            arguments: row.try_get(3).map_err(bad)?,
            state: row.try_get::<String, _>(4).map_err(bad)?.parse()?,
            attempt: row.try_get(5).map_err(bad)?,
            lease_until: row.try_get(7).map_err(bad)?,
            receipt: row.try_get(9).map_err(bad)?,
            started_at: row.try_get(10).map_err(bad)?,
        })
    }
}

/// One request's row.
#[derive(Debug, Clone)]
pub(crate) struct RequestRow {
    pub(crate) request_id: String,
    pub(crate) call_id: String,
    pub(crate) tool: String,
    pub(crate) invocation_id: String,
    pub(crate) request: String,
    pub(crate) expires_at: Option<i64>,
    pub(crate) state: RequestStatus,
    pub(crate) answer: Option<String>,
    pub(crate) created_at: i64,
}

impl RequestRow {
    pub(crate) fn read(row: &AnyRow) -> Result<Self, JournalError> {
        let bad = |e: sqlx::Error| JournalError::corrupt("request row", e);
        Ok(Self {
            request_id: row.try_get(0).map_err(bad)?,
            call_id: row.try_get(1).map_err(bad)?,
            tool: row.try_get(2).map_err(bad)?,
            invocation_id: row.try_get(4).map_err(bad)?,
            request: row.try_get(5).map_err(bad)?,
            expires_at: row.try_get(6).map_err(bad)?,
            state: row.try_get::<String, _>(7).map_err(bad)?.parse()?,
            answer: row.try_get(8).map_err(bad)?,
            created_at: row.try_get(9).map_err(bad)?,
        })
    }
}
