//! Running queries over logs on a [Ballista](https://datafusion.apache.org/ballista/)
//! cluster: the codecs that ship [`LogTable`]s and [`LogScanExec`]s to the
//! scheduler and the executors. A table travels as its name, its logs
//! (ids, paths and sizes), its merged schema and the scan's projection and
//! `log_time` range; executors re-open the logs by path, so the logs must
//! be on storage every executor sees at the same paths.
//!
//! The client, the scheduler and every executor must use these codecs
//! ([`with_codecs`] on the session config; the crate's `executor` example
//! is an executor that does).

use std::sync::Arc;

use arrow_schema::{Schema, SchemaRef};
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionConfig;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use prost::Message;
use serde_json::{Value, json};

use crate::exec::ScanSpec;
use crate::{LOGS, LogRef, LogScanExec, LogTable, LogsTable, TOPICS};

/// What every encoded table or scan starts with (a zero byte: no
/// protobuf message starts so, which keeps them apart from Ballista's),
/// then the version: 2 since a scan's `end` is exclusive.
const MAGIC: &[u8] = b"\0robolog-sql\x02";

/// `config` with the codecs of this module (and Ballista's for every
/// other node).
pub fn with_codecs(config: SessionConfig) -> SessionConfig {
    config
        .with_ballista_logical_extension_codec(Arc::new(LogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(PhysicalCodec::default()))
}

/// The logical codec: [`LogTable`]s and [`LogsTable`]s (the tables
/// `logs` and `topics`), then Ballista's nodes.
#[derive(Debug, Default)]
pub struct LogicalCodec {
    inner: BallistaLogicalExtensionCodec,
}

/// The physical codec: [`LogScanExec`]s, then Ballista's nodes.
#[derive(Debug, Default)]
pub struct PhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
}

fn bad(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("robolog-sql codec: {what}"))
}

fn logs_json(logs: &[LogRef]) -> Value {
    Value::Array(
        logs.iter()
            .map(|l| json!([l.id, l.path.to_string_lossy(), l.size]))
            .collect(),
    )
}

fn logs_from(v: &Value) -> Result<Vec<LogRef>> {
    v.as_array()
        .ok_or_else(|| bad("logs"))?
        .iter()
        .map(|l| {
            Ok(LogRef {
                id: l[0].as_str().ok_or_else(|| bad("log id"))?.to_string(),
                path: l[1].as_str().ok_or_else(|| bad("log path"))?.into(),
                size: l[2].as_u64().ok_or_else(|| bad("log size"))?,
            })
        })
        .collect()
}

/// `MAGIC`, the JSON header's length and the header, then `schema` as
/// DataFusion's protobuf.
fn encode(header: &Value, schema: Option<&Schema>, buf: &mut Vec<u8>) -> Result<()> {
    let head = serde_json::to_vec(header).map_err(|e| bad(&e.to_string()))?;
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&(head.len() as u64).to_le_bytes());
    buf.extend_from_slice(&head);
    if let Some(s) = schema {
        let proto = datafusion_proto::protobuf::Schema::try_from(s)?;
        proto
            .encode(buf)
            .map_err(|e| bad(&format!("schema: {e}")))?;
    }
    Ok(())
}

/// The header and the schema bytes of an encoded node, or `None` when
/// `buf` is not one of ours.
fn decode(buf: &[u8]) -> Result<Option<(Value, &[u8])>> {
    let Some(rest) = buf.strip_prefix(MAGIC) else {
        return Ok(None);
    };
    let (len, rest) = rest.split_at_checked(8).ok_or_else(|| bad("truncated"))?;
    let len = u64::from_le_bytes(len.try_into().map_err(|_| bad("length"))?) as usize;
    let (head, rest) = rest
        .split_at_checked(len)
        .ok_or_else(|| bad("truncated header"))?;
    let header: Value = serde_json::from_slice(head).map_err(|e| bad(&e.to_string()))?;
    Ok(Some((header, rest)))
}

fn schema_from(bytes: &[u8]) -> Result<SchemaRef> {
    let proto = datafusion_proto::protobuf::Schema::decode(bytes)
        .map_err(|e| bad(&format!("schema: {e}")))?;
    Ok(Arc::new(Schema::try_from(&proto)?))
}

/// The limits a plan header carries: `max_chunk_size`, `max_bag_expansion`
/// and, when set, `max_nesting` (absent or null: each format's default).
fn limits(h: &Value) -> robolog::Limits {
    let mut l = robolog::Limits::default();
    if let Some(n) = h["max_chunk_size"].as_u64() {
        l = l.with_max_chunk_size(n);
    }
    if let Some(n) = h["max_nesting"].as_u64() {
        l = l.with_max_nesting(usize::try_from(n).unwrap_or(usize::MAX));
    }
    if let Some(n) = h["max_bag_expansion"].as_u64() {
        l = l.with_max_bag_expansion(n);
    }
    l
}

impl LogicalExtensionCodec for LogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some((h, _)) = decode(buf)? else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let name = h["name"].as_str().ok_or_else(|| bad("table name"))?;
        let logs = logs_from(&h["logs"])?;
        // One scan partition: see `LogTable::with_max_partitions`.
        if name == LOGS || name == TOPICS {
            let table = if name == LOGS {
                LogsTable::new(logs, schema)
            } else {
                LogsTable::topics(logs, schema)
            };
            let table = table.with_limits(limits(&h)).with_max_partitions(1);
            return Ok(Arc::new(table));
        }
        let mut table = LogTable::new(name, logs, schema)
            .with_limits(limits(&h))
            .with_max_partitions(1);
        if let Some(key) = h["source"].as_str() {
            table.key = key.to_string();
        }
        Ok(Arc::new(table))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let (name, key, logs, limits) = if let Some(t) = node.downcast_ref::<LogTable>() {
            (t.name(), t.key(), t.logs(), t.limits())
        } else if let Some(t) = node.downcast_ref::<LogsTable>() {
            (t.name(), t.name(), t.logs(), t.limits())
        } else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        encode(
            &json!({
                "name": name,
                "source": key,
                "logs": logs_json(logs),
                "max_chunk_size": limits.max_chunk_size,
                "max_nesting": limits.max_nesting,
                "max_bag_expansion": limits.max_bag_expansion,
            }),
            None,
            buf,
        )
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn datafusion::datasource::file_format::FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn datafusion::datasource::file_format::FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }
}

impl PhysicalExtensionCodec for PhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some((h, schema)) = decode(buf)? else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let spec = ScanSpec {
            table: h["table"].as_str().ok_or_else(|| bad("table"))?.to_string(),
            key: h["key"]
                .as_str()
                .or(h["table"].as_str())
                .ok_or_else(|| bad("table"))?
                .to_string(),
            logs_table: h["logs_table"].as_bool().unwrap_or(false),
            logs: logs_from(&h["logs"])?,
            schema: schema_from(schema)?,
            start: h["start"].as_i64(),
            end: h["end"].as_i64(),
            utc: crate::filter::Range {
                start: h["utc_start"].as_i64(),
                end: h["utc_end"].as_i64(),
            },
            batch_size: h["batch_size"].as_u64().unwrap_or(8192) as usize,
            target_partitions: h["target_partitions"].as_u64().unwrap_or(1) as usize,
            limits: limits(&h),
        };
        Ok(Arc::new(LogScanExec::new(spec)))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(scan) = node.downcast_ref::<LogScanExec>() else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let s = scan.spec();
        encode(
            &json!({
                "table": s.table,
                "key": s.key,
                "logs_table": s.logs_table,
                "logs": logs_json(&s.logs),
                "start": s.start,
                "end": s.end,
                "utc_start": s.utc.start,
                "utc_end": s.utc.end,
                "batch_size": s.batch_size,
                "target_partitions": s.target_partitions,
                "max_chunk_size": s.limits.max_chunk_size,
                "max_nesting": s.limits.max_nesting,
                "max_bag_expansion": s.limits.max_bag_expansion,
            }),
            Some(&s.schema),
            buf,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{DataType, Field};
    use datafusion_proto::physical_plan::DefaultPhysicalProtoConverter;

    fn spec(limits: robolog::Limits) -> ScanSpec {
        ScanSpec {
            table: "vehicle_gps_position".into(),
            key: "vehicle_gps_position".into(),
            logs_table: false,
            logs: vec![LogRef {
                id: "a.ulg".into(),
                path: "/data/a.ulg".into(),
                size: 1234,
            }],
            schema: Arc::new(Schema::new(vec![Field::new("alt", DataType::Int32, false)])),
            start: Some(5),
            end: None,
            utc: crate::filter::Range {
                start: None,
                end: Some(1_700_000_000_000_000_000),
            },
            batch_size: 100,
            target_partitions: 2,
            limits,
        }
    }

    /// A scan sent to an executor keeps the limits it was planned with:
    /// the chunk size and the nesting limit, set or not.
    #[test]
    fn scans_keep_their_limits() {
        let codec = PhysicalCodec::default();
        let ctx = TaskContext::default();
        let cases = [
            robolog::Limits::default(),
            robolog::Limits::default()
                .with_max_chunk_size(4096)
                .with_max_nesting(90),
            robolog::Limits::default().with_max_nesting(3),
        ];
        for limits in cases {
            let sent = spec(limits);
            let mut buf = Vec::new();
            codec
                .try_encode(
                    Arc::new(LogScanExec::new(sent.clone())),
                    &mut buf,
                    &DefaultPhysicalProtoConverter {},
                )
                .unwrap();
            let plan = codec
                .try_decode(&buf, &[], &ctx, &DefaultPhysicalProtoConverter {})
                .unwrap();
            let got = plan.downcast_ref::<LogScanExec>().unwrap().spec().clone();
            assert_eq!(got.limits.max_chunk_size, limits.max_chunk_size);
            assert_eq!(got.limits.max_nesting, limits.max_nesting);
            assert_eq!(got, sent);
        }
    }

    /// A table decoded by the scheduler keeps the nesting limit too.
    #[test]
    fn tables_keep_their_limits() {
        let codec = LogicalCodec::default();
        let ctx = TaskContext::default();
        let schema = spec(robolog::Limits::default()).schema;
        let limits = robolog::Limits::default()
            .with_max_chunk_size(1 << 20)
            .with_max_nesting(100);
        let table = LogTable::new("t", spec(limits).logs, schema.clone()).with_limits(limits);
        let mut buf = Vec::new();
        codec
            .try_encode_table_provider(&TableReference::bare("t"), Arc::new(table), &mut buf)
            .unwrap();
        let got = codec
            .try_decode_table_provider(&buf, &TableReference::bare("t"), schema, &ctx)
            .unwrap();
        let got = got.downcast_ref::<LogTable>().unwrap();
        assert_eq!(got.limits(), limits);
    }

    /// The tables `logs` and `topics` come back as themselves, with their
    /// logs.
    #[test]
    fn logs_and_topics_tables_keep_their_names() {
        let codec = LogicalCodec::default();
        let ctx = TaskContext::default();
        let logs = spec(robolog::Limits::default()).logs;
        for (table, schema) in [
            (
                LogsTable::new(logs.clone(), crate::logs_schema()),
                crate::logs_schema(),
            ),
            (
                LogsTable::topics(logs.clone(), crate::topics_schema()),
                crate::topics_schema(),
            ),
        ] {
            let name = table.name().to_string();
            let mut buf = Vec::new();
            let at = TableReference::bare(name.as_str());
            codec
                .try_encode_table_provider(&at, Arc::new(table), &mut buf)
                .unwrap();
            let got = codec
                .try_decode_table_provider(&buf, &at, schema.clone(), &ctx)
                .unwrap();
            let got = got.downcast_ref::<LogsTable>().unwrap();
            assert_eq!(got.name(), name);
            assert_eq!(got.logs(), logs.as_slice());
            assert_eq!(got.schema(), schema);
        }
    }
}
