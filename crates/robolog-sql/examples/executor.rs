//! A Ballista executor (or, with `--scheduler`, a scheduler) that knows
//! the tables of `robolog-sql`: it decodes their scans with
//! `robolog_sql::ballista`'s codecs and re-opens the logs by path (the logs
//! must be on storage mounted at the same path everywhere).
//!
//! ```sh
//! executor --scheduler --port 50050
//! executor --scheduler-host HOST --scheduler-port 50050 --port 50051 [--concurrent-tasks N]
//! ```

use std::net::SocketAddr;
use std::sync::Arc;

use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use robolog_sql::ballista::{LogicalCodec, PhysicalCodec};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = |default: u16| -> Result<u16, Box<dyn std::error::Error>> {
        Ok(arg(&args, "--port").map_or(Ok(default), |p| p.parse())?)
    };
    if args.iter().any(|a| a == "--scheduler") {
        let config = SchedulerConfig {
            bind_port: port(50050)?,
            override_logical_codec: Some(Arc::new(LogicalCodec::default())),
            override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
            ..SchedulerConfig::default()
        };
        let addr: SocketAddr = format!("{}:{}", config.bind_host, config.bind_port).parse()?;
        let cluster = BallistaCluster::new_from_config(&config).await?;
        start_server(cluster, addr, Arc::new(config)).await?;
        return Ok(());
    }
    let mut config = ExecutorProcessConfig {
        port: port(50051)?,
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        ..ExecutorProcessConfig::default()
    };
    if let Some(h) = arg(&args, "--scheduler-host") {
        config.scheduler_host = h;
    }
    if let Some(p) = arg(&args, "--scheduler-port") {
        config.scheduler_port = p.parse()?;
    }
    if let Some(n) = arg(&args, "--concurrent-tasks") {
        config.vcores = n.parse()?;
    }
    config.grpc_port = config.port + 1;
    start_executor_process(Arc::new(config)).await?;
    Ok(())
}
