//! A [`LogSet`] as the default schema of a DataFusion context: the
//! tables a query names are opened when DataFusion asks for them.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider, TableProvider};
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::prelude::SessionContext;

use crate::names::same_but_case;
use crate::{Error, LOGS, LogSet, TOPICS, external};

impl LogSet {
    /// Makes the tables of the logs, [`LOGS`] and [`TOPICS`] tables of `ctx`'s default
    /// schema. Each table is opened and built when a query first names it
    /// (DataFusion asks the schema for the tables a statement refers to,
    /// before planning it); tables registered in that schema before keep
    /// working, and a table of the logs replaces one of the same name
    /// registered before (one registered after replaces it).
    pub fn register(&self, ctx: &SessionContext) -> Result<(), Error> {
        let state = ctx.state();
        let options = &state.config().options().catalog;
        let catalog = ctx.catalog(&options.default_catalog).ok_or_else(|| {
            DataFusionError::Plan(format!("no catalog {}", options.default_catalog))
        })?;
        let fallback: Arc<dyn SchemaProvider> = match catalog.schema(&options.default_schema) {
            Some(s) => s,
            None => Arc::new(MemorySchemaProvider::new()),
        };
        let before = fallback.table_names().into_iter().collect();
        catalog.register_schema(
            &options.default_schema,
            Arc::new(SetSchema {
                set: self.clone(),
                fallback,
                before: Mutex::new(before),
            }),
        )?;
        ctx.register_udtf(
            crate::align::ALIGN,
            Arc::new(crate::align::AlignFunction::new(self.clone())),
        );
        Ok(())
    }
}

/// Finds every log under `paths` (see [`LogSet::find`]) and registers its
/// tables, [`LOGS`] and [`TOPICS`] with `ctx` ([`LogSet::register`]). No log is
/// opened here: a query opens the logs for the tables it names (a ULog is
/// read for those tables' samples only), and a log that does not open
/// fails the query.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// let ctx = SessionContext::new();
/// let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// robolog_sql::register_logs(&ctx, &[bag])?;
/// let batches = ctx.sql("SELECT count(*) AS n FROM count").await?.collect().await?;
/// let n = batches[0].column(0).as_any().downcast_ref::<arrow_array::Int64Array>().unwrap();
/// assert_eq!(n.value(0), 30);
/// # Ok(())
/// # }
/// ```
pub fn register_logs<P: AsRef<Path>>(ctx: &SessionContext, paths: &[P]) -> Result<LogSet, Error> {
    let set = LogSet::find(paths, robolog::Limits::default())?;
    set.register(ctx)?;
    Ok(set)
}

/// The default schema of a context once a [`LogSet`] is registered: the
/// set's tables, opened when first named, and the tables registered in
/// the schema before (which the set's tables of the same name hide) and
/// after (which hide them).
#[derive(Debug)]
struct SetSchema {
    set: LogSet,
    fallback: Arc<dyn SchemaProvider>,
    /// The tables of `fallback` registered before the set (and not since).
    before: Mutex<BTreeSet<String>>,
}

impl SetSchema {
    /// Whether `name` was registered before the set and not since.
    fn before(&self, name: &str) -> bool {
        self.before.lock().is_ok_and(|b| b.contains(name))
    }

    /// The table called `name` exactly: one registered after the set,
    /// else the set's, else one registered before.
    async fn exact(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        if !self.before(name)
            && let Some(t) = self.fallback.table(name).await?
        {
            return Ok(Some(t));
        }
        if let Some(t) = self.set_table(name)? {
            return Ok(Some(t));
        }
        self.fallback.table(name).await
    }

    /// The set's table `name`, if it has one.
    fn set_table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        if name == LOGS {
            return Ok(Some(self.set.logs_table().map_err(external)?));
        }
        if name == TOPICS {
            return Ok(Some(self.set.topics_table().map_err(external)?));
        }
        match self.set.provider(name).map_err(external)? {
            Some(t) => Ok(Some(t)),
            None => Ok(None),
        }
    }
}

#[async_trait]
impl SchemaProvider for SetSchema {
    /// The set's tables (every log opened for them the first time; when
    /// one does not open, the set lists none: a query naming a table
    /// reports the error) and the others.
    fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .set
            .table_names()
            .unwrap_or_default()
            .into_iter()
            .chain([LOGS, TOPICS])
            .map(String::from)
            .collect();
        for n in self.fallback.table_names() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    /// The table `name`, else the one table whose name differs from it
    /// only in case (SQL lower-cases names that are not quoted: `FROM
    /// Position` asks for `position`), among the set's and the others;
    /// `None` when none or several do (a query then fails, and
    /// [`query`](crate::query) names the closest tables or the candidates
    /// in its error: see [`plan_error`](crate::plan_error)).
    async fn table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        if let Some(t) = self.exact(name).await? {
            return Ok(Some(t));
        }
        let mut names = self.set.tables_ignoring_case(name).map_err(external)?;
        names.extend(same_but_case(
            name,
            self.fallback.table_names().iter().map(String::as_str),
        ));
        names.sort();
        names.dedup();
        match names.as_slice() {
            [one] => self.exact(one).await,
            _ => Ok(None),
        }
    }

    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> DfResult<Option<Arc<dyn TableProvider>>> {
        // A table registered before that one of the set's hides is
        // replaced (as if the set had replaced it).
        if self.before(&name) && self.set.has_table(&name).unwrap_or(false) {
            self.fallback.deregister_table(&name)?;
        }
        let old = self.fallback.register_table(name.clone(), table)?;
        if let Ok(mut before) = self.before.lock() {
            before.remove(&name);
        }
        Ok(old)
    }

    fn deregister_table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        if let Ok(mut before) = self.before.lock() {
            before.remove(name);
        }
        self.fallback.deregister_table(name)
    }

    fn table_exist(&self, name: &str) -> bool {
        // A table whose logs do not open exists: asking for it says why.
        self.set.has_table(name).unwrap_or(true) || self.fallback.table_exist(name)
    }
}
