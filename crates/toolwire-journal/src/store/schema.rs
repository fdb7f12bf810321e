//! The journal's schema: embedded migrations, applied on open, and the checks before them.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyConnection, Row};
use toolwire::policy::ApprovalKey;

use super::BoxFuture;
use crate::error::{JournalError, JournalErrorKind};

/// Which SQL dialect a journal speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// SQLite, with the `sqlite` feature.
    #[cfg(feature = "sqlite")]
    Sqlite,
    /// PostgreSQL, with the `postgres` feature.
    #[cfg(feature = "postgres")]
    Postgres,
}

impl Flavor {
    /// Whether the journal owns the whole database, so that other tables in it mean it is not
    /// a journal: an SQLite file is the journal's alone, a PostgreSQL schema may be shared.
    fn owns_database(self) -> bool {
        match self {
            #[cfg(feature = "sqlite")]
            Flavor::Sqlite => true,
            #[cfg(feature = "postgres")]
            Flavor::Postgres => false,
        }
    }
}

/// The newest schema version this crate knows.
pub(crate) const LATEST: i64 = 4;

/// The migrations, compiled into the crate: version, name and SQL of each, in order.
fn migrations(flavor: Flavor) -> Vec<Migration> {
    let first = match flavor {
        #[cfg(feature = "sqlite")]
        Flavor::Sqlite => include_str!("../../migrations/sqlite/0001_journal.sql"),
        #[cfg(feature = "postgres")]
        Flavor::Postgres => include_str!("../../migrations/postgres/0001_journal.sql"),
    };
    let runs = include_str!("../../migrations/shared/0002_runs.sql");
    let spent = include_str!("../../migrations/shared/0003_spent.sql");
    let tasks = include_str!("../../migrations/shared/0004_tasks.sql");
    [(1, "journal", first), (2, "runs", runs), (3, "spent", spent), (4, "tasks", tasks)]
        .into_iter()
        .map(|(version, name, sql)| {
            Migration::new(
                version,
                Cow::Borrowed(name),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                false,
            )
        })
        .collect()
}

/// Embedded migrations, as sqlx's migrator takes them.
#[derive(Debug)]
struct Embedded(Vec<Migration>);

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, sqlx::error::BoxDynError>> {
        Box::pin(async move { Ok(self.0) })
    }
}

/// Checks that the database is a journal of a version this crate reads (or empty), and
/// brings its schema up to date.
pub(crate) async fn migrate(
    conn: &mut AnyConnection,
    flavor: Flavor,
    place: &str,
) -> Result<(), JournalError> {
    let tables = table_names(conn, flavor, place).await?;
    let has = |name: &str| tables.iter().any(|t| t == name);
    if has("_sqlx_migrations") {
        check_version(conn, place).await?;
    } else if flavor.owns_database() && !tables.is_empty() {
        let text = format!(
            "{place} is not a journal: it is an SQLite database with other tables ({})",
            tables.join(", ")
        );
        return Err(JournalError::new(JournalErrorKind::NotAJournal, text));
    }
    let migrator = Migrator::new(Embedded(migrations(flavor))).await.map_err(|e| {
        JournalError::new(
            JournalErrorKind::Database,
            format!("cannot read the journal's migrations: {e}"),
        )
    })?;
    migrator.run(&mut *conn).await.map_err(|e| match e {
        sqlx::migrate::MigrateError::Execute(e) => {
            JournalError::database("apply the journal's schema", place, e)
        }
        other => JournalError::new(
            JournalErrorKind::Database,
            format!("cannot apply the journal's schema in {place}: {other}"),
        )
        .with_source(other),
    })
}

/// The tables of the database (SQLite) or of the current schema (PostgreSQL).
async fn table_names(
    conn: &mut AnyConnection,
    flavor: Flavor,
    place: &str,
) -> Result<Vec<String>, JournalError> {
    let sql = match flavor {
        #[cfg(feature = "sqlite")]
        Flavor::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        }
        #[cfg(feature = "postgres")]
        Flavor::Postgres => {
            "SELECT CAST(table_name AS TEXT) FROM information_schema.tables WHERE table_schema = current_schema()"
        }
    };
    let rows = sqlx::query(sql)
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| JournalError::database("open the journal", place, e))?;
    rows.iter()
        .map(|row| row.try_get::<String, _>(0).map_err(|e| JournalError::corrupt("table list", e)))
        .collect()
}

/// Fails if the journal's schema is newer than this crate's.
async fn check_version(conn: &mut AnyConnection, place: &str) -> Result<(), JournalError> {
    let row = sqlx::query("SELECT CAST(MAX(version) AS BIGINT) FROM _sqlx_migrations")
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| JournalError::database("read the journal's schema version", place, e))?;
    let version: Option<i64> =
        row.try_get(0).map_err(|e| JournalError::corrupt("schema version", e))?;
    match version {
        Some(found) if found > LATEST => Err(JournalError::new(
            JournalErrorKind::NewerSchema,
            format!(
                "{place} has schema version {found}, newer than version {LATEST} that this \
                 toolwire-journal reads: upgrade toolwire-journal"
            ),
        )),
        _ => Ok(()),
    }
}

/// The journal's approval key: made at random by the first process to open the journal,
/// and the same for every process after it.
pub(crate) async fn approval_key(
    conn: &mut AnyConnection,
    place: &str,
) -> Result<ApprovalKey, JournalError> {
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|e| {
        JournalError::new(
            JournalErrorKind::Unavailable,
            format!("cannot draw a random approval key: {e}"),
        )
    })?;
    let hex: String = fresh.iter().map(|b| format!("{b:02x}")).collect();
    sqlx::query("INSERT INTO journal_meta (key, value) VALUES ('approval_key', $1) ON CONFLICT (key) DO NOTHING")
        .bind(&hex)
        .execute(&mut *conn)
        .await
        .map_err(|e| JournalError::database("store the approval key", place, e))?;
    let row = sqlx::query("SELECT value FROM journal_meta WHERE key = 'approval_key'")
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| JournalError::database("read the approval key", place, e))?;
    let stored: String = row.try_get(0).map_err(|e| JournalError::corrupt("approval key", e))?;
    parse_key(&stored).ok_or_else(|| JournalError::corrupt("approval key", "not 64 hex digits"))
}

fn parse_key(hex: &str) -> Option<ApprovalKey> {
    let mut bytes = [0u8; 32];
    if hex.len() != 64 {
        return None;
    }
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    Some(ApprovalKey::from_bytes(bytes))
}
