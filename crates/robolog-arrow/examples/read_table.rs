//! Times reading one table of a log into memory, as Python's
//! `Log.table(name, flatten=True)` does: `read_table`, then every batch
//! flattened. `cargo run --release -p robolog-arrow --example read_table
//! -- LOG TABLE [RUNS]` prints the best time of RUNS (default 5) and the
//! rate over the log's size.

use std::time::Instant;

use logcore::LogReader;

/// Reads the table RUNS times and prints the best time.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(name)) = (args.next(), args.next()) else {
        return Err("usage: read_table LOG TABLE [RUNS]".into());
    };
    let runs: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    let log = robolog::open(&path)?;
    let summary = log.summary()?;
    let tables = robolog_arrow::tables(&log)?;
    let table = tables
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| format!("no table {name}"))?;
    let mb = log.size() as f64 / 1e6;
    let mut best = f64::INFINITY;
    let mut rows = 0;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let read = robolog_arrow::read_table(
            &log,
            &summary,
            table,
            &robolog_arrow::ScanOptions::default(),
        )?;
        let mut flat = Vec::with_capacity(read.batches.len());
        for b in &read.batches {
            flat.push(robolog_arrow::flatten::flatten_batch(b, usize::MAX)?);
        }
        best = best.min(t0.elapsed().as_secs_f64());
        rows = flat.iter().map(|b| b.num_rows()).sum::<usize>();
    }
    println!(
        "{path}: table {name}: {rows} rows, best of {runs}: {best:.3} s, {:.0} MB/s of the {mb:.1} MB log",
        mb / best
    );
    Ok(())
}
