//! Decodes every message of a bag to `logcore::Value` and prints the
//! throughput: `cargo run --release -p rosbag12 --example decode_all -- BAG [ROUNDS [reuse]]`
//! (`reuse` decodes into one value per connection)
//! (a profiling aid; the comparison with other readers is `cargo xtask bench rosbag`).

use std::time::Instant;

use logcore::MessageFilter;
use rosbag12::Bag;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: decode_all BAG [ROUNDS]")?;
    let rounds: u32 = args.next().map_or(Ok(5), |r| r.parse())?;
    let reuse = args.next().is_some_and(|a| a == "reuse");
    let bytes = std::fs::read(&path)?;
    for _ in 0..rounds {
        let start = Instant::now();
        let bag = Bag::new(&bytes)?;
        let (mut n, mut raw) = (0u64, 0u64);
        let mut values = std::collections::HashMap::new();
        for m in bag.messages(&MessageFilter::all()) {
            let m = m?;
            raw += m.data.len() as u64;
            if reuse {
                let v = values.entry(m.conn).or_insert(logcore::Value::Null);
                bag.decode_into(m.conn, &m.data, v)?;
                std::hint::black_box(v);
            } else {
                std::hint::black_box(bag.decode(m.conn, &m.data)?);
            }
            n += 1;
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{n} messages, {:.1} MB in {:.1} ms: {:.0} MB/s",
            raw as f64 / 1e6,
            s * 1e3,
            raw as f64 / 1e6 / s
        );
    }
    Ok(())
}
