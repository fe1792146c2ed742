//! The report's part of `cargo xtask hostile`, and `cargo xtask bench
//! report-topics`: `robolog report` of an MCAP file of many topics (each
//! a channel of its own with a few `float64` messages) must finish within
//! the hostile step's time and memory limits, with a page under
//! [`PAGE_BUDGET`] bytes that lists every channel.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::hostile::{MAX_SECONDS, MEMORY_BUDGET, wait_with_timeout};
use crate::{Result, root};

/// Topics of the hostile step's report case.
const TOPICS: u32 = 20_000;
/// Largest page allowed, in bytes: the report's own page budget.
const PAGE_BUDGET: u64 = 10_000_000;
/// Messages per topic.
const MESSAGES: u32 = 3;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// An MCAP file of `n` topics (`/sensor_00000/value` ...), each a
/// `ros1msg` channel of [`MESSAGES`] messages of two `float64` fields, the
/// messages of all topics interleaved over 60 s.
pub(crate) fn many_topics_mcap(n: u32) -> Result<Vec<u8>> {
    let mut w =
        mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).map_err(err)?;
    let schema = w
        .add_schema("hostile/Pair", "ros1msg", b"float64 a\nfloat64 b\n")
        .map_err(err)?;
    let mut channels = Vec::new();
    for i in 0..n {
        channels.push(
            w.add_channel(
                schema,
                &format!("/sensor_{i:05}/value"),
                "ros1",
                &BTreeMap::new(),
            )
            .map_err(err)?,
        );
    }
    let total = u64::from(n) * u64::from(MESSAGES);
    let mut k = 0u64;
    for m in 0..MESSAGES {
        for (i, ch) in channels.iter().enumerate() {
            let t = 1_000_000_000 + k * 60_000_000_000 / total.max(1);
            let mut data = (i as f64).to_le_bytes().to_vec();
            data.extend_from_slice(&f64::from(m).to_le_bytes());
            w.write_message(*ch, m, t, t, &data).map_err(err)?;
            k += 1;
        }
    }
    w.finish().map_err(err)
}

/// Runs `exe report LOG -o PAGE --force` and returns (exit code, peak RSS
/// in bytes, seconds, timed out).
fn report(exe: &Path, log: &Path, page: &Path) -> Result<(Option<i32>, u64, f64, bool)> {
    let started = Instant::now();
    let child = Command::new(exe)
        .arg("report")
        .arg(log)
        .arg("-o")
        .arg(page)
        .arg("--force")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", exe.display()))?;
    let (status, usage, timed_out) =
        wait_with_timeout(child.id() as i32, Duration::from_secs(MAX_SECONDS))?;
    let exit = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok((
        exit,
        usage.ru_maxrss.max(0) as u64 * 1024,
        started.elapsed().as_secs_f64(),
        timed_out,
    ))
}

/// The hostile step's report case: a [`TOPICS`]-topic log reported within
/// [`MAX_SECONDS`] and [`MEMORY_BUDGET`], its page under [`PAGE_BUDGET`]
/// and listing every channel. Returns the failures.
pub(crate) fn check(exe: &Path, dir: &Path) -> Result<Vec<String>> {
    let log = dir.join(format!("topics-{TOPICS}.mcap"));
    if !log.exists() {
        std::fs::write(&log, many_topics_mcap(TOPICS)?).map_err(err)?;
    }
    let page = dir.join(format!("topics-{TOPICS}.html"));
    let (exit, rss, secs, timed_out) = report(exe, &log, &page)?;
    let size = std::fs::metadata(&page).map_or(0, |m| m.len());
    let mut problems = Vec::new();
    if exit != Some(0) {
        problems.push(format!("exit {exit:?}"));
    }
    if timed_out {
        problems.push(format!("ran over {MAX_SECONDS} s"));
    }
    if rss > MEMORY_BUDGET {
        problems.push(format!("peak RSS {rss} > {MEMORY_BUDGET}"));
    }
    if size > PAGE_BUDGET {
        problems.push(format!("the page is {size} bytes, over {PAGE_BUDGET}"));
    }
    if exit == Some(0) {
        let html = std::fs::read_to_string(&page).map_err(err)?;
        let listed = html.matches("\"topic\":\"/sensor_").count();
        if listed != TOPICS as usize {
            problems.push(format!("the page lists {listed} of {TOPICS} channels"));
        }
    }
    println!(
        "{:<28} {:<10} {:>6} {:>10.1} {:>10.1} {:>8.2}  {} ({:.1} MB page)",
        log.file_name().unwrap_or_default().to_string_lossy(),
        "report",
        exit.map_or("-".into(), |c| c.to_string()),
        rss as f64 / (1 << 20) as f64,
        MEMORY_BUDGET as f64 / (1 << 20) as f64,
        secs,
        if problems.is_empty() {
            "ok".to_string()
        } else {
            problems.join(", ")
        },
        size as f64 / 1e6,
    );
    let _ = std::fs::remove_file(&page);
    Ok(if problems.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "{}: robolog report: {}",
            log.display(),
            problems.join(", ")
        )]
    })
}

/// `cargo xtask bench report-topics`: the release `robolog report` of
/// logs of 2,500 to 40,000 topics: seconds, growth against the size before
/// (2.0 is linear) and page size.
pub(crate) fn bench() -> Result {
    let exe = crate::hostile::release_robolog()?;
    let dir = root().join("target/bench-report-topics");
    std::fs::create_dir_all(&dir).map_err(err)?;
    println!(
        "{:>7} {:>9} {:>8} {:>10} {:>10}",
        "topics", "seconds", "growth", "page MB", "peak MiB"
    );
    let mut before: Option<f64> = None;
    for n in [2_500u32, 5_000, 10_000, 20_000, 40_000] {
        let log = dir.join(format!("topics-{n}.mcap"));
        if !log.exists() {
            std::fs::write(&log, many_topics_mcap(n)?).map_err(err)?;
        }
        let page = dir.join(format!("topics-{n}.html"));
        let (exit, rss, secs, _) = report(&exe, &log, &page)?;
        if exit != Some(0) {
            return Err(format!("robolog report {}: exit {exit:?}", log.display()));
        }
        let size = std::fs::metadata(&page).map_or(0, |m| m.len());
        println!(
            "{n:>7} {secs:>9.2} {:>8} {:>10.2} {:>10.1}",
            before.map_or("-".to_string(), |b| format!("{:.2}", secs / b)),
            size as f64 / 1e6,
            rss as f64 / (1 << 20) as f64,
        );
        before = Some(secs);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use logcore::LogReader as _;

    #[test]
    fn many_topics_are_channels_of_three_messages() {
        let bytes = super::many_topics_mcap(50).unwrap();
        let log = robolog::open_bytes(&bytes).unwrap();
        let summary = log.summary().unwrap();
        assert_eq!(summary.channels.len(), 50);
        assert_eq!(summary.channels[49].info.topic, "/sensor_00049/value");
        assert!(summary.channels.iter().all(|c| c.message_count == 3));
        assert_eq!(summary.message_count, 150);
    }
}
