//! Times the flat frames of every topic of a ULog as Python's
//! `Log.dataframes(flatten=True)` makes them before pandas sees them:
//! each frame planned (`pyulog::frame`), every frame's samples written on
//! the cores (`pyulog::fill`), each cut into its blocks. `cargo run
//! --release -p robolog-arrow --example ulog_frames -- LOG [RUNS]` prints
//! the best time of each phase over RUNS (default 20) and the cells
//! written per second.

use std::time::Instant;

use logcore::LogReader;
use robolog_arrow::pyulog::{self, Frame, Selection};

/// Plans, fills and cuts every topic's frame RUNS times, and prints the
/// best time of each phase.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        return Err("usage: ulog_frames LOG [RUNS]".into());
    };
    let runs: usize = args.next().map_or(Ok(20), |r| r.parse())?;
    let log = robolog::open(&path)?;
    let summary = log.summary()?;
    let ulog = log.as_ulog().ok_or("not a ULog")?;
    let utc_offset =
        robolog::clock::to_utc(&summary, logcore::Timestamp(0)).map(logcore::Timestamp::as_nanos);
    let mut keys: Vec<String> = Vec::new();
    for c in &summary.channels {
        let key = log.table_key(&c.info);
        if c.message_count > 0 && !keys.iter().any(|k| k == key) {
            keys.push(key.to_string());
        }
    }
    let (mut plan, mut fill, mut cut) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut cells = 0usize;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let mut frames = Vec::with_capacity(keys.len());
        for k in &keys {
            frames.push(pyulog::frame(
                ulog,
                &Selection {
                    topic: k.clone(),
                    columns: None,
                    start: None,
                    end: None,
                    utc_offset,
                },
            )?);
        }
        let t1 = Instant::now();
        pyulog::fill(&mut frames);
        let t2 = Instant::now();
        let blocks: Vec<_> = frames
            .into_iter()
            .map(|f| f.map(Frame::into_blocks))
            .collect();
        let t3 = Instant::now();
        plan = plan.min((t1 - t0).as_secs_f64());
        fill = fill.min((t2 - t1).as_secs_f64());
        cut = cut.min((t3 - t2).as_secs_f64());
        cells = blocks
            .iter()
            .flatten()
            .map(|(names, rows, _)| names.len() * rows)
            .sum();
    }
    println!(
        "{path}: {} topics, {cells} cells; best of {runs}: plan {:.3} ms, fill {:.3} ms ({:.1} ns a cell), blocks {:.3} ms",
        keys.len(),
        plan * 1e3,
        fill * 1e3,
        fill * 1e9 / cells.max(1) as f64,
        cut * 1e3,
    );
    Ok(())
}
