//! The same queries on a Ballista cluster started in process (a scheduler
//! and two executors, all with `robolog_sql::ballista`'s codecs) and on
//! DataFusion alone give the same answers. A module of the `sql` test
//! binary, so DataFusion is linked into one test executable, not two.

use std::time::Duration;

use arrow_array::RecordBatch;
use std::net::SocketAddr;
use std::sync::Arc;

use ballista::prelude::SessionContextExt;
use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use robolog_sql::ballista::{LogicalCodec, PhysicalCodec};

use super::corpus;

/// A free local port.
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A client session of a new in-process cluster: a scheduler and two
/// executors, each started as its process would be (see the `executor`
/// example), all with this crate's codecs.
async fn cluster() -> SessionContext {
    let policy = TaskSchedulingPolicy::PushStaged;
    let port = free_port();
    let config = SchedulerConfig {
        bind_host: "127.0.0.1".into(),
        external_host: "127.0.0.1".into(),
        bind_port: port,
        scheduling_policy: policy,
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        ..SchedulerConfig::default()
    };
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let cluster = BallistaCluster::new_from_config(&config).await.unwrap();
    tokio::spawn(async move { start_server(cluster, addr, Arc::new(config)).await });
    let url = format!("http://127.0.0.1:{port}");
    while SchedulerGrpcClient::connect(url.clone()).await.is_err() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for _ in 0..2 {
        let p = free_port();
        let config = ExecutorProcessConfig {
            bind_host: "127.0.0.1".into(),
            external_host: Some("127.0.0.1".into()),
            port: p,
            grpc_port: free_port(),
            scheduler_host: "127.0.0.1".into(),
            scheduler_port: port,
            // Fewer task slots (two in all) than the session's target
            // partitions (four): Ballista packs several partitions into a
            // task, which a scan of ours must not read twice.
            vcores: 1,
            task_scheduling_policy: policy,
            override_logical_codec: Some(Arc::new(LogicalCodec::default())),
            override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
            ..ExecutorProcessConfig::default()
        };
        tokio::spawn(async move { start_executor_process(Arc::new(config)).await });
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let config = robolog_sql::ballista::with_codecs(
        SessionConfig::new_with_ballista().with_target_partitions(4),
    );
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    SessionContext::remote_with_state(&format!("df://127.0.0.1:{port}"), state)
        .await
        .unwrap()
}

async fn run(ctx: &SessionContext, sql: &str) -> String {
    let batches: Vec<RecordBatch> = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    pretty_format_batches(&batches).unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ballista_answers_equal_datafusion_answers() {
    let (Some(ulog), Some(gps), Some(example)) = (
        corpus("ulog"),
        corpus("rosbag/ccny-gpsd_viewer-demo.bag"),
        corpus("rosbag/rosbagjs-example.bag"),
    ) else {
        return;
    };
    let paths = [ulog, gps, example];
    let queries = [
        "SELECT log, MAX(alt) AS max_alt, (MAX(\"timestamp\") - MIN(\"timestamp\")) / 1e6 AS flight_s \
         FROM vehicle_global_position GROUP BY log ORDER BY log",
        "SELECT log, count(*) AS n FROM rosout GROUP BY log ORDER BY log",
        "SELECT log, format, message_count FROM logs ORDER BY log",
        "SELECT log, count(*) AS n FROM vehicle_global_position GROUP BY log ORDER BY log",
        "SELECT log, log_time FROM rosout ORDER BY log, log_time LIMIT 20",
        // Read from the logs by the executors, tables named as the set
        // names them.
        "SELECT log, topic, types, message_count, channel_count, start, \"end\", start_utc, \
         end_utc, \"table\" FROM topics ORDER BY log, topic",
        "SELECT log, CAST(sum(message_count) AS BIGINT) AS n FROM topics \
         WHERE log <> 'x' GROUP BY log ORDER BY log",
    ];
    let set = robolog_sql::LogSet::open(&paths).unwrap();
    let local = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    set.register(&local).unwrap();
    let remote = cluster().await;
    set.register(&remote).unwrap();
    for sql in queries {
        let want = run(&local, sql).await;
        assert!(want.lines().count() > 5, "{sql}:\n{want}");
        let got = run(&remote, sql).await;
        assert_eq!(got, want, "{sql}");
    }
}
