//! Many writes of one kind in one statement, for the SQLite writer's group commits: the
//! claims of fresh call ids, and the completions of calls that neither suspended nor
//! resumed. Whatever these do not settle runs one write at a time.

use std::collections::HashSet;

use sqlx::{AnyConnection, Row};

use super::{Claim, Completion, Cx};
use crate::error::JournalError;
use crate::store::status::CallStatus;

/// Inserts the rows of `claims` whose call ids are new; the positions of those that were
/// inserted. Each claim's owner is unique, so a call id claimed twice in one batch goes to
/// exactly one of them.
pub(crate) async fn insert_claims(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    claims: &[&Claim],
) -> Result<HashSet<usize>, JournalError> {
    let mut sql = String::from(
        "INSERT INTO journal_calls (call_id, tool, digest, arguments, state, attempt, owner, \
         lease_until, started_at, updated_at) VALUES ",
    );
    // The state, running, is the last parameter, after the claims' seven each.
    let running = claims.len() * 7 + 1;
    for i in 0..claims.len() {
        let p = i * 7;
        let sep = if i == 0 { "" } else { ", " };
        sql += &format!(
            "{sep}(${}, ${}, ${}, ${}, ${running}, 1, ${}, ${}, ${}, ${})",
            p + 1,
            p + 2,
            p + 3,
            p + 4,
            p + 5,
            p + 6,
            p + 7,
            p + 7
        );
    }
    sql += " ON CONFLICT (call_id) DO NOTHING RETURNING owner";
    let mut query = sqlx::query(&sql);
    for c in claims {
        query = query
            .bind(&c.call_id)
            .bind(&c.tool)
            .bind(&c.digest)
            .bind(&c.arguments)
            .bind(&c.owner)
            .bind(c.lease_until)
            .bind(c.now);
    }
    let rows = query
        .bind(CallStatus::Running)
        .fetch_all(&mut *conn)
        .await
        .map_err(cx.fail("record that calls started"))?;
    let owners: HashSet<String> =
        rows.iter().filter_map(|row| row.try_get::<String, _>(0).ok()).collect();
    Ok(claims
        .iter()
        .enumerate()
        .filter(|(_, c)| owners.contains(&c.owner))
        .map(|(i, _)| i)
        .collect())
}

/// Records `done`, none of which suspended or resumed: one update of their rows and one
/// insert into the audit log. The positions of those whose update applied.
pub(crate) async fn complete_many(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    done: &[&Completion],
) -> Result<HashSet<usize>, JournalError> {
    let mut values = String::new();
    for i in 0..done.len() {
        let p = i * 4;
        let sep = if i == 0 { "" } else { ", " };
        values += &format!("{sep}(${}, ${}, ${}, ${})", p + 1, p + 2, p + 3, p + 4);
    }
    // The states come last, after the completions' four parameters each.
    let states = done.len() * 4;
    let (completed, running, unknown) = (states + 1, states + 2, states + 3);
    let sql = format!(
        "UPDATE journal_calls SET state = ${completed}, receipt = v.column3, request_id = NULL, \
         owner = NULL, lease_until = 0, updated_at = v.column4 FROM (VALUES {values}) AS v \
         WHERE journal_calls.call_id = v.column1 AND journal_calls.attempt = v.column2 \
         AND journal_calls.state IN (${running}, ${unknown}) RETURNING journal_calls.call_id"
    );
    let mut query = sqlx::query(&sql);
    for d in done {
        query = query.bind(&d.call_id).bind(d.attempt).bind(&d.audit.receipt).bind(d.now);
    }
    let rows = query
        .bind(CallStatus::Completed)
        .bind(CallStatus::Running)
        .bind(CallStatus::Unknown)
        .fetch_all(&mut *conn)
        .await
        .map_err(cx.fail("record calls' receipts"))?;
    let applied: HashSet<String> =
        rows.iter().filter_map(|row| row.try_get::<String, _>(0).ok()).collect();
    append_many(conn, cx, done).await?;
    Ok(done
        .iter()
        .enumerate()
        .filter(|(_, d)| applied.contains(&d.call_id))
        .map(|(i, _)| i)
        .collect())
}

/// Appends the receipts of `done` to the audit log, in order.
async fn append_many(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    done: &[&Completion],
) -> Result<(), JournalError> {
    let mut sql = String::from(
        "INSERT INTO journal_receipts (invocation_id, call_id, tool, started_at, failure, receipt) VALUES ",
    );
    for i in 0..done.len() {
        let p = i * 6;
        let sep = if i == 0 { "" } else { ", " };
        sql += &format!(
            "{sep}(${}, ${}, ${}, ${}, ${}, ${})",
            p + 1,
            p + 2,
            p + 3,
            p + 4,
            p + 5,
            p + 6
        );
    }
    let mut query = sqlx::query(&sql);
    for d in done {
        let row = &d.audit;
        query = query
            .bind(&row.invocation_id)
            .bind(&row.call_id)
            .bind(&row.tool)
            .bind(row.started_at)
            .bind(row.failure)
            .bind(&row.receipt);
    }
    query.execute(&mut *conn).await.map_err(cx.fail("append receipts to the audit log"))?;
    Ok(())
}
