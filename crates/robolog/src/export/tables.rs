//! [`export_tables`]: planning, a column pass and a row pass.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use logcore::{ChannelId, ChannelInfo, Error, LogReader, MessageFilter, ReadMode, Value};

use crate::Log;
use crate::names::TableNames;
use crate::write::{AtomicFile, OutputPolicy};

use super::plan::{MetaColumn, MetaSource, meta_columns, prepare_folder};
use super::shape::Shape;
use super::{
    Cell, Column, ExportError, ExportOptions, ExportedLog, ExportedTable, Progress, Selection,
    TableFormat, TableSink, Undecoded,
};

/// The most output files open at once; a log with more tables is exported
/// in several passes.
pub(crate) const MAX_OPEN_TABLES: usize = 256;

/// Exports `log`, read from `input`, as tables of `format` in `dir`, one
/// per table key, named by [`TableNames`] (see the [module](super) docs),
/// calling `progress` as the work goes on.
pub fn export_tables(
    log: &Log<'_>,
    input: &Path,
    dir: &Path,
    opts: &ExportOptions,
    format: &dyn TableFormat,
    progress: &mut dyn FnMut(Progress),
) -> Result<ExportedLog, ExportError> {
    let log_id = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = ExportedLog::new(input, &log_id, log.format());
    let mut plan = Plan::new(log, input, opts)?;
    let mut meter = Meter {
        progress,
        size: log.size(),
        passes: 2,
        done: 0,
        pos: 0,
        rows: 0,
        since: 0,
    };
    plan.column_pass(log, opts.max_array_columns, &mut meter, &mut out.problems)?;
    let policy = OutputPolicy::new(opts.force).reading(input);
    plan.place_files(dir, format.extension(), opts.max_array_columns, &policy)?;
    prepare_folder(dir)?;
    let written: Vec<usize> = (0..plan.tables.len())
        .filter(|&t| plan.tables[t].path.is_some())
        .collect();
    let groups: Vec<&[usize]> = written.chunks(MAX_OPEN_TABLES).collect();
    meter.passes = 1 + groups.len().max(1) as u64;
    for group in groups {
        plan.row_pass(log, group, format, &policy, &mut meter, &mut out.tables)?;
    }
    meter.report();
    Ok(out)
}

/// The tables of one log: its channels grouped by table key.
struct Plan {
    tables: Vec<Table>,
    of_channel: HashMap<ChannelId, usize>,
    /// The instance of each channel of a log whose messages come from
    /// several (see [`MetaSource::MultiId`]).
    multi_ids: HashMap<ChannelId, u64>,
    meta: Vec<MetaColumn>,
    input: PathBuf,
    /// The messages of the selected channels, damaged records skipped.
    filter: MessageFilter,
}

impl Plan {
    /// Groups the channels of `log` that `opts` selects by their table
    /// key, names the tables, and starts each table's columns from its
    /// channels' declared value type where they share one.
    fn new(log: &Log<'_>, input: &Path, opts: &ExportOptions) -> Result<Plan, ExportError> {
        let channels = log.channels().map_err(ExportError::read(input))?;
        let names = TableNames::new(channels.iter().map(|c| log.table_key(c)));
        let mut selection = Selection::new(&opts.topics);
        let mut tables: Vec<Table> = Vec::new();
        let mut of_channel: HashMap<ChannelId, usize> = HashMap::new();
        let mut by_key: HashMap<&str, usize> = HashMap::new();
        let mut multi_ids = HashMap::new();
        for c in &channels {
            let key = log.table_key(c);
            let name = names.name(key).unwrap_or(key);
            if !selection.selects(&c.topic, name) && !selection.selects(key, name) {
                continue;
            }
            let t = *by_key.entry(key).or_insert_with(|| {
                tables.push(Table::new(c, key, name));
                tables.len() - 1
            });
            tables[t].channels.push(c.id);
            of_channel.insert(c.id, t);
            if let Some(m) = c.metadata.get("multi_id").and_then(|m| m.parse().ok()) {
                multi_ids.insert(c.id, m);
            }
        }
        selection.check(channels.iter().map(|c| c.topic.as_str()))?;
        for table in &mut tables {
            let mut declared = None;
            for &id in &table.channels {
                match (
                    log.value_type(id).map_err(ExportError::read(input))?,
                    &declared,
                ) {
                    (Some(t), None) => declared = Some(t),
                    (Some(t), Some(d)) if t == *d => {}
                    // Channels of different or undeclared types: the
                    // values alone give the columns.
                    _ => {
                        declared = None;
                        break;
                    }
                }
            }
            if let Some(t) = declared {
                table.shape = Shape::declared(&t, opts.max_array_columns);
            }
        }
        let mut filter = MessageFilter::all().mode(ReadMode::Lenient);
        if !selection.is_all() {
            filter.channels = Some(of_channel.keys().copied().collect());
        }
        Ok(Plan {
            tables,
            of_channel,
            multi_ids,
            meta: meta_columns(log),
            input: input.to_path_buf(),
            filter,
        })
    }

    /// The first pass: decodes every message and merges its shape into its
    /// table's; damaged records go to `problems`.
    fn column_pass(
        &mut self,
        log: &Log<'_>,
        cap: usize,
        meter: &mut Meter<'_>,
        problems: &mut Vec<Error>,
    ) -> Result<(), ExportError> {
        let mut value = Value::Null;
        let messages = log
            .messages(&self.filter)
            .map_err(ExportError::read(&self.input))?;
        for item in messages {
            let msg = match item {
                Ok(m) => m,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            let Some(&t) = self.of_channel.get(&msg.channel) else {
                continue;
            };
            meter.at(msg.offset);
            let table = &mut self.tables[t];
            match log.decode_into(&msg, &mut value) {
                Ok(()) => {
                    table.shape.merge(&value, cap);
                    table.decoded += 1;
                }
                Err(e) => {
                    value = Value::Null;
                    table.failed += 1;
                    table.longest_raw = table.longest_raw.max(msg.payload.len());
                    table
                        .first_failure
                        .get_or_insert_with(|| Undecoded::new(msg.offset, &e));
                }
            }
        }
        meter.pass_done();
        Ok(())
    }

    /// Gives each table with rows its file in `dir`, named after the
    /// table, checked against `policy`; a table none of whose messages
    /// decode is written raw.
    fn place_files(
        &mut self,
        dir: &Path,
        extension: &str,
        cap: usize,
        policy: &OutputPolicy,
    ) -> Result<(), ExportError> {
        for table in &mut self.tables {
            table.raw = table.decoded == 0 && table.failed > 0;
            if table.raw {
                table.shape = Shape::bytes(table.longest_raw, cap);
            }
            if table.decoded == 0 && !table.raw {
                continue;
            }
            table.shape.finish();
            let path = dir.join(format!("{}.{extension}", table.name));
            policy.check(&path).map_err(ExportError::Refused)?;
            table.path = Some(path);
        }
        Ok(())
    }

    /// The columns of table `t`: the message facts', then its values'.
    fn columns(&self, t: usize) -> Vec<Column> {
        let mut columns: Vec<Column> = self
            .meta
            .iter()
            .map(|mc| Column {
                name: mc.name.to_string(),
                kind: mc.kind,
            })
            .collect();
        self.tables[t].shape.root_columns(&mut columns);
        unique_names(&mut columns);
        columns
    }

    /// A pass writing the rows of the tables of `group`, their files all
    /// open at once; every file is complete before the first is renamed
    /// into place.
    fn row_pass(
        &mut self,
        log: &Log<'_>,
        group: &[usize],
        format: &dyn TableFormat,
        policy: &OutputPolicy,
        meter: &mut Meter<'_>,
        done: &mut Vec<ExportedTable>,
    ) -> Result<(), ExportError> {
        let mut files: Vec<(usize, PathBuf, AtomicFile)> = Vec::with_capacity(group.len());
        let mut ids = BTreeSet::new();
        for &t in group {
            let path = self.tables[t].path.clone().unwrap_or_default();
            let file = AtomicFile::create(&path, policy).map_err(ExportError::write(&path))?;
            ids.extend(self.tables[t].channels.iter().copied());
            files.push((t, path, file));
        }
        {
            let mut sinks: HashMap<usize, (Box<dyn TableSink + '_>, &Path)> = HashMap::new();
            for (t, path, file) in &mut files {
                let path: &Path = path;
                let sink = format
                    .create(file, &self.columns(*t))
                    .map_err(ExportError::io(path))?;
                sinks.insert(*t, (sink, path));
            }
            let filter = MessageFilter::all().mode(ReadMode::Lenient).channels(ids);
            let messages = log
                .messages(&filter)
                .map_err(ExportError::read(&self.input))?;
            let mut value = Value::Null;
            for item in messages {
                // Damage was reported by the first pass.
                let Ok(msg) = item else { continue };
                let Some(&t) = self.of_channel.get(&msg.channel) else {
                    continue;
                };
                let Some((sink, path)) = sinks.get_mut(&t) else {
                    continue;
                };
                meter.at(msg.offset);
                let table = &mut self.tables[t];
                let raw;
                let v = match log.decode_into(&msg, &mut value) {
                    Ok(()) => &value,
                    Err(_) if table.raw => {
                        value = Value::Null;
                        raw = Value::Bytes(msg.payload.to_vec());
                        &raw
                    }
                    // A row all the same, its value columns empty: the
                    // rows of a table are its messages, as in the Parquet
                    // and SQL tables.
                    Err(_) => {
                        value = Value::Null;
                        &value
                    }
                };
                for mc in &self.meta {
                    sink.cell(match mc.source {
                        MetaSource::LogTime => Cell::Time(msg.log_time),
                        MetaSource::PublishTime => msg.publish_time.map_or(Cell::Empty, Cell::Time),
                        MetaSource::MultiId => self
                            .multi_ids
                            .get(&msg.channel)
                            .map_or(Cell::Empty, |&m| Cell::U64(m)),
                    });
                }
                table.shape.flatten(v, sink.as_mut());
                sink.end_row().map_err(ExportError::io(path))?;
                table.rows += 1;
                meter.row();
            }
            meter.pass_done();
            for &t in group {
                if let Some((sink, path)) = sinks.remove(&t) {
                    sink.finish().map_err(ExportError::io(path))?;
                }
            }
        }
        for (t, path, mut file) in files {
            file.flush().map_err(ExportError::io(&path))?;
            file.commit().map_err(ExportError::io(&path))?;
            done.push(self.report(t, &path));
        }
        Ok(())
    }

    /// What was written of table `t` to `path`.
    fn report(&self, t: usize, path: &Path) -> ExportedTable {
        let table = &self.tables[t];
        let mut e = ExportedTable::new(&table.name, &table.topic, &table.type_name, path);
        e.rows = table.rows;
        e.columns = self.columns(t).len();
        e.undecoded = table.failed;
        e.first_undecoded = table.first_failure.clone();
        e.raw = table.raw;
        e
    }
}

/// Makes the column names unique, so that a reader that looks columns up
/// by name (`csv.DictReader`, pandas) reads each: a name taken by an
/// earlier column (a field `time_s` beside the time column, the JSON keys
/// `"a.b"` and `{"a": {"b": ..}}`) gets `_` after it until it is free.
fn unique_names(columns: &mut [Column]) {
    let mut taken = std::collections::HashSet::with_capacity(columns.len());
    for c in columns {
        while taken.contains(&c.name) {
            c.name.push('_');
        }
        taken.insert(c.name.clone());
    }
}

/// One output table while it is planned and written.
struct Table {
    topic: String,
    type_name: String,
    channels: Vec<ChannelId>,
    shape: Shape,
    decoded: u64,
    failed: u64,
    first_failure: Option<Undecoded>,
    longest_raw: usize,
    raw: bool,
    name: String,
    path: Option<PathBuf>,
    rows: u64,
}

impl Table {
    fn new(c: &ChannelInfo, key: &str, name: &str) -> Table {
        Table {
            topic: key.to_string(),
            type_name: c.type_name.clone(),
            channels: Vec::new(),
            shape: Shape::Unknown,
            decoded: 0,
            failed: 0,
            first_failure: None,
            longest_raw: 0,
            raw: false,
            name: name.to_string(),
            path: None,
            rows: 0,
        }
    }
}

/// Progress reports: bytes over all passes, rows written; reported every
/// few thousand messages.
struct Meter<'p> {
    progress: &'p mut dyn FnMut(Progress),
    size: u64,
    passes: u64,
    done: u64,
    pos: u64,
    rows: u64,
    since: u32,
}

impl Meter<'_> {
    fn at(&mut self, offset: Option<u64>) {
        if let Some(o) = offset {
            self.pos = self.pos.max(o.min(self.size));
        }
        self.since += 1;
        if self.since >= 4096 {
            self.report();
        }
    }

    fn row(&mut self) {
        self.rows += 1;
    }

    fn pass_done(&mut self) {
        self.done += 1;
        self.pos = 0;
        self.report();
    }

    fn report(&mut self) {
        self.since = 0;
        (self.progress)(Progress {
            bytes: (self.done * self.size + self.pos).min(self.passes * self.size),
            total_bytes: self.passes * self.size,
            rows: self.rows,
            log: 0,
            logs: 1,
        });
    }
}
