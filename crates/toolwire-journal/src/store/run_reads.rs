//! Reading paused agent runs back: a run's row and the requests it waits on.

use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

use crate::error::JournalError;

/// A paused run's row.
#[derive(Debug, Clone)]
pub(crate) struct RunRow {
    pub(crate) run_id: String,
    pub(crate) label: String,
    pub(crate) state: String,
    pub(crate) claimed_until: i64,
    pub(crate) created_at: i64,
    pub(crate) updated_at: i64,
    pub(crate) waiting: Vec<RunRequestRow>,
}

/// A request a paused run waits on, as stored.
#[derive(Debug, Clone)]
pub(crate) struct RunRequestRow {
    pub(crate) call_id: String,
    pub(crate) tool: String,
    pub(crate) request: String,
    pub(crate) answer: Option<String>,
}

const RUN_COLUMNS: &str = "run_id, label, state, claimed_until, created_at, updated_at";
const REQUEST_COLUMNS: &str = "run_id, call_id, tool, request, answer";

/// The paused run `run_id`, if the journal holds it.
pub(crate) async fn run(
    pool: &AnyPool,
    place: &str,
    run_id: &str,
) -> Result<Option<RunRow>, JournalError> {
    let fail = |e| JournalError::database("read a run", place, e);
    let sql = format!("SELECT {RUN_COLUMNS} FROM journal_runs WHERE run_id = $1");
    let row = sqlx::query(&sql).bind(run_id).fetch_optional(pool).await.map_err(fail)?;
    let Some(row) = row else { return Ok(None) };
    let sql = format!(
        "SELECT {REQUEST_COLUMNS} FROM journal_run_requests WHERE run_id = $1 ORDER BY position"
    );
    let requests = sqlx::query(&sql).bind(run_id).fetch_all(pool).await.map_err(fail)?;
    let mut run = read_run(&row)?;
    for request in &requests {
        run.waiting.push(read_request(request)?.1);
    }
    Ok(Some(run))
}

/// Every paused run, oldest first.
pub(crate) async fn runs(pool: &AnyPool, place: &str) -> Result<Vec<RunRow>, JournalError> {
    let fail = |e| JournalError::database("list runs", place, e);
    let sql = format!("SELECT {RUN_COLUMNS} FROM journal_runs ORDER BY created_at, run_id");
    let rows = sqlx::query(&sql).fetch_all(pool).await.map_err(fail)?;
    let sql =
        format!("SELECT {REQUEST_COLUMNS} FROM journal_run_requests ORDER BY run_id, position");
    let requests = sqlx::query(&sql).fetch_all(pool).await.map_err(fail)?;
    let mut runs = rows.iter().map(read_run).collect::<Result<Vec<_>, _>>()?;
    let by_id: std::collections::HashMap<String, usize> =
        runs.iter().enumerate().map(|(i, run)| (run.run_id.clone(), i)).collect();
    for request in &requests {
        let (run_id, request) = read_request(request)?;
        // A request saved after the run list was read belongs to no listed run.
        if let Some(&i) = by_id.get(&run_id)
            && let Some(run) = runs.get_mut(i)
        {
            run.waiting.push(request);
        }
    }
    Ok(runs)
}

fn read_run(row: &AnyRow) -> Result<RunRow, JournalError> {
    let bad = |e: sqlx::Error| JournalError::corrupt("run row", e);
    Ok(RunRow {
        run_id: row.try_get(0).map_err(bad)?,
        label: row.try_get(1).map_err(bad)?,
        state: row.try_get(2).map_err(bad)?,
        claimed_until: row.try_get(3).map_err(bad)?,
        created_at: row.try_get(4).map_err(bad)?,
        updated_at: row.try_get(5).map_err(bad)?,
        waiting: Vec::new(),
    })
}

fn read_request(row: &AnyRow) -> Result<(String, RunRequestRow), JournalError> {
    let bad = |e: sqlx::Error| JournalError::corrupt("run request row", e);
    let run_id = row.try_get(0).map_err(bad)?;
    let request = RunRequestRow {
        call_id: row.try_get(1).map_err(bad)?,
        tool: row.try_get(2).map_err(bad)?,
        request: row.try_get(3).map_err(bad)?,
        answer: row.try_get(4).map_err(bad)?,
    };
    Ok((run_id, request))
}
