//! SQL over logs only reads: the statements a query may be, checked before
//! it is planned, and DataFusion's own plan check as a second guard.
//!
//! A query is `SELECT` (with or without `WITH`), `VALUES`, `EXPLAIN` of a
//! query (`EXPLAIN ANALYZE` runs it, so what it explains must read only
//! too), `SHOW ...` or `DESCRIBE table`. Everything else (`COPY ... TO`,
//! `INSERT`, `CREATE [EXTERNAL] TABLE`, `CREATE TABLE AS`, `DROP`, `SET`,
//! `RESET`, transactions, ...) is refused with [`Error::NotAQuery`]: a
//! query over logs must never write a file, replace a log or change the
//! session others share.

use datafusion::dataframe::DataFrame;
use datafusion::error::DataFusionError;
use datafusion::execution::context::SQLOptions;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::Statement as DfStatement;
use datafusion::sql::sqlparser::ast::Statement;

use crate::Error;
use crate::names::{closest, same_but_case};

/// The statements a query over logs may be, as the refusal names them.
pub const QUERY_STATEMENTS: &str = "SELECT, WITH, VALUES, EXPLAIN, SHOW and DESCRIBE";

/// DataFusion's options that refuse DDL (`CREATE`, `DROP`), DML (`INSERT`,
/// `COPY`) and statements (`SET`, transactions) when a plan is checked
/// ([`SQLOptions::verify_plan`]).
pub fn read_only_options() -> SQLOptions {
    SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_dml(false)
        .with_allow_statements(false)
}

/// Checks that `sql` is one statement that only reads (`SELECT`, `WITH`,
/// `VALUES`, `EXPLAIN` of such a statement, `SHOW`, `DESCRIBE`):
/// `Err(Error::NotAQuery)` naming the statement otherwise. A text that does not parse is left to the planner, whose
/// error says where.
///
/// ```
/// let ctx = datafusion::prelude::SessionContext::new();
/// assert!(robolog_sql::check_read_only(&ctx, "SELECT 1").is_ok());
/// let e = robolog_sql::check_read_only(&ctx, "COPY (SELECT 1) TO 'x.csv'").unwrap_err();
/// assert!(e.to_string().contains("COPY"));
/// ```
pub fn check_read_only(ctx: &SessionContext, sql: &str) -> Result<(), Error> {
    let state = ctx.state();
    let dialect = &state.config().options().sql_parser.dialect;
    match state.sql_to_statement(sql, dialect) {
        Ok(statement) => reads_only(&statement),
        Err(_) => Ok(()),
    }
}

/// Plans `sql` on `ctx` if it only reads (see [`check_read_only`]; the
/// plan is checked again with [`read_only_options`]). What every program
/// that lets users query logs should call instead of `ctx.sql`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// let ctx = SessionContext::new();
/// let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// robolog_sql::register_logs(&ctx, &[bag])?;
/// let rows = robolog_sql::query(&ctx, "SELECT * FROM count").await?.count().await?;
/// assert_eq!(rows, 30);
/// let refused = robolog_sql::query(&ctx, "COPY (SELECT * FROM count) TO '/tmp/x.csv'").await;
/// assert!(matches!(refused, Err(robolog_sql::Error::NotAQuery { .. })));
/// # Ok(())
/// # }
/// ```
///
/// A table the query names that no table has is [`Error::UnknownTable`],
/// naming the closest tables, and a name that differs only in case from
/// several tables and is none of them is [`Error::AmbiguousTable`] (see
/// [`plan_error`]).
pub async fn query(ctx: &SessionContext, sql: &str) -> Result<DataFrame, Error> {
    check_read_only(ctx, sql)?;
    let planned = match with_named_table_args(ctx, sql) {
        Some(statement) => plan_statement(ctx, statement).await,
        None => ctx.sql_with_options(sql, read_only_options()).await,
    };
    match planned {
        Ok(df) => Ok(df),
        Err(e) => Err(plan_error(ctx, sql, e).await),
    }
}

/// Plans `statement` as `ctx.sql_with_options` plans a text, read-only.
async fn plan_statement(
    ctx: &SessionContext,
    statement: DfStatement,
) -> Result<DataFrame, DataFusionError> {
    let plan = ctx.state().statement_to_plan(statement).await?;
    read_only_options().verify_plan(&plan)?;
    ctx.execute_logical_plan(plan).await
}

/// `sql` parsed with each named argument of a table function in `FROM`
/// (`align('/imu', rate => '50hz')`), which DataFusion 55 does not plan,
/// given as the string `'rate=50hz'`, the form the [`align`](crate::align)
/// function reads; `None` when there is none (or `sql` does not parse).
fn with_named_table_args(ctx: &SessionContext, sql: &str) -> Option<DfStatement> {
    use datafusion::sql::sqlparser::ast::{
        Expr, FunctionArg, FunctionArgExpr, TableFactor, Value, VisitMut, VisitorMut,
    };
    use std::ops::ControlFlow;

    struct Named(bool);
    impl VisitorMut for Named {
        type Break = ();
        fn pre_visit_table_factor(&mut self, table: &mut TableFactor) -> ControlFlow<()> {
            let TableFactor::Table { args: Some(a), .. } = table else {
                return ControlFlow::Continue(());
            };
            for arg in &mut a.args {
                let FunctionArg::Named {
                    name,
                    arg: FunctionArgExpr::Expr(Expr::Value(v)),
                    ..
                } = arg
                else {
                    continue;
                };
                let value = match &v.value {
                    Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
                    Value::Number(n, _) => n.clone(),
                    _ => continue,
                };
                let text = Value::SingleQuotedString(format!("{}={value}", name.value));
                *arg = FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(text.into())));
                self.0 = true;
            }
            ControlFlow::Continue(())
        }
    }

    let state = ctx.state();
    let dialect = &state.config().options().sql_parser.dialect;
    let mut statement = state.sql_to_statement(sql, dialect).ok()?;
    let DfStatement::Statement(inner) = &mut statement else {
        return None;
    };
    let mut named = Named(false);
    let _ = inner.as_mut().visit(&mut named);
    named.0.then_some(statement)
}

/// The error to report for `e`, DataFusion's failure to plan `sql` on
/// `ctx`: when a table the statement names is missing, which DataFusion
/// only reports as `table 'datafusion.public.x' not found`,
/// [`Error::UnknownTable`] with the closest names of its schema
/// (the same letters ignoring case and punctuation, names containing
/// it, a typo or two away), or [`Error::AmbiguousTable`] when names
/// differing from it only in case are several; else `e`. [`query`] calls
/// it; a program that plans with `ctx.sql` can too.
///
/// Listing the tables of a [`LogSet`](crate::LogSet)'s schema opens every
/// log (once).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = robolog_sql::session();
/// let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// robolog_sql::register_logs(&ctx, &[bag])?;
/// let sql = r#"SELECT * FROM "/count""#;
/// let e = ctx.sql(sql).await.unwrap_err();
/// match robolog_sql::plan_error(&ctx, sql, e).await {
///     robolog_sql::Error::UnknownTable { table, closest } => {
///         assert_eq!((table.as_str(), closest), ("/count", vec!["count".to_string()]));
///     }
///     other => panic!("{other}"),
/// }
/// # Ok(())
/// # }
/// ```
pub async fn plan_error(ctx: &SessionContext, sql: &str, e: DataFusionError) -> Error {
    // A log's own error is what it says.
    if Error::of(&e).is_some() {
        return e.into();
    }
    match missing_table(ctx, sql).await {
        Some(missing) => missing,
        None => e.into(),
    }
}

/// The first table `sql` names that its schema does not have, as
/// [`Error::UnknownTable`] or [`Error::AmbiguousTable`].
async fn missing_table(ctx: &SessionContext, sql: &str) -> Option<Error> {
    let state = ctx.state();
    let dialect = &state.config().options().sql_parser.dialect;
    let statement = state.sql_to_statement(sql, dialect).ok()?;
    let catalog = &state.config().options().catalog;
    for reference in state.resolve_table_references(&statement).ok()? {
        let resolved = reference
            .clone()
            .resolve(&catalog.default_catalog, &catalog.default_schema);
        // A table function's call (align(...)) failed on its own.
        if state
            .table_functions()
            .contains_key(resolved.table.as_ref())
        {
            continue;
        }
        let Ok(schema) = state.schema_for_ref(reference) else {
            continue;
        };
        if !matches!(schema.table(&resolved.table).await, Ok(None)) {
            continue;
        }
        let table = resolved.table.to_string();
        let names = schema.table_names();
        let candidates = same_but_case(&table, names.iter().map(String::as_str));
        return Some(if candidates.len() > 1 {
            Error::AmbiguousTable { table, candidates }
        } else {
            Error::UnknownTable {
                closest: closest(&table, names.iter().map(String::as_str)),
                table,
            }
        });
    }
    None
}

/// A DataFusion session for queries over logs, set up as `robolog sql`
/// and the Python package's `robolog.sql` set it up: `information_schema`
/// on (`SHOW TABLES`, `information_schema.columns`) and a partition per
/// core. Register logs with [`register_logs`](crate::register_logs) or
/// [`LogSet::register`](crate::LogSet::register), then ask with
/// [`query`].
///
/// ```
/// # async fn run() -> Result<(), robolog_sql::Error> {
/// let ctx = robolog_sql::session();
/// let rows = robolog_sql::query(&ctx, "SHOW TABLES").await?.count().await?;
/// assert!(rows > 0);
/// # Ok(())
/// # }
/// ```
pub fn session() -> SessionContext {
    let config = datafusion::prelude::SessionConfig::new()
        .with_information_schema(true)
        .with_target_partitions(std::thread::available_parallelism().map_or(2, usize::from));
    SessionContext::new_with_config(config)
}

fn refuse(what: impl Into<String>) -> Result<(), Error> {
    Err(Error::NotAQuery {
        statement: what.into(),
    })
}

fn reads_only(statement: &DfStatement) -> Result<(), Error> {
    match statement {
        DfStatement::Statement(s) => sql_reads_only(s),
        DfStatement::Explain(e) => reads_only(&e.statement),
        DfStatement::CreateExternalTable(_) => refuse("CREATE EXTERNAL TABLE"),
        DfStatement::CopyTo(_) => refuse("COPY"),
        DfStatement::Reset(_) => refuse("RESET"),
    }
}

fn sql_reads_only(statement: &Statement) -> Result<(), Error> {
    match statement {
        Statement::Query(_)
        | Statement::ExplainTable { .. }
        | Statement::ShowFunctions { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. } => Ok(()),
        Statement::Explain { statement, .. } => sql_reads_only(statement),
        other => {
            // The statement's first words name it (`INSERT INTO`, `CREATE
            // TABLE`, `DROP VIEW`, ...).
            let text = other.to_string();
            let words: Vec<&str> = text
                .split_whitespace()
                .take_while(|w| w.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
                .take(3)
                .collect();
            refuse(if words.is_empty() {
                "this statement".to_string()
            } else {
                words.join(" ")
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str) -> Option<String> {
        let ctx = SessionContext::new();
        match check_read_only(&ctx, sql) {
            Ok(()) => None,
            Err(Error::NotAQuery { statement }) => Some(statement),
            Err(e) => panic!("{sql}: {e}"),
        }
    }

    #[test]
    fn queries_pass_and_writes_are_named() {
        for ok in [
            "SELECT 1",
            "WITH a AS (SELECT 1 AS x) SELECT x FROM a",
            "VALUES (1), (2)",
            "EXPLAIN SELECT 1",
            "EXPLAIN ANALYZE SELECT 1",
            "SHOW TABLES",
            "SHOW COLUMNS FROM t",
            "SHOW datafusion.execution.batch_size",
            "DESCRIBE t",
            "not sql at all",
        ] {
            assert_eq!(refused(ok), None, "{ok}");
        }
        for (bad, named) in [
            ("COPY (SELECT 1) TO 'in.bag'", "COPY"),
            ("COPY t TO 'x.parquet' STORED AS PARQUET", "COPY"),
            (
                "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION '/etc/passwd'",
                "CREATE EXTERNAL TABLE",
            ),
            ("CREATE TABLE x AS SELECT 1", "CREATE TABLE"),
            ("CREATE VIEW v AS SELECT 1", "CREATE VIEW"),
            ("INSERT INTO t VALUES (1)", "INSERT INTO"),
            ("DROP TABLE t", "DROP TABLE"),
            ("SET datafusion.execution.batch_size = 1", "SET"),
            ("RESET datafusion.execution.batch_size", "RESET"),
            ("EXPLAIN ANALYZE COPY (SELECT 1) TO 'x.csv'", "COPY"),
            ("EXPLAIN INSERT INTO t VALUES (1)", "INSERT INTO"),
        ] {
            assert_eq!(refused(bad).as_deref(), Some(named), "{bad}");
        }
    }

    #[tokio::test]
    async fn the_plan_check_refuses_what_the_statement_check_lets_by() {
        // A second guard: DataFusion refuses writes in the plan itself.
        let ctx = SessionContext::new();
        let e = ctx
            .sql_with_options(
                "COPY (SELECT 1) TO '/nonexistent/x.csv'",
                read_only_options(),
            )
            .await
            .expect_err("COPY is DML");
        assert!(e.to_string().contains("COPY"), "{e}");
        let e = ctx
            .sql_with_options("CREATE TABLE x AS SELECT 1", read_only_options())
            .await
            .expect_err("CREATE TABLE is DDL");
        assert!(e.to_string().contains("DDL"), "{e}");
    }
}
