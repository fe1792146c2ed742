//! The gyro's and accelerometer's spectra and spectrograms: how much of the
//! vehicle's rotation rate and acceleration is at each frequency, over the
//! whole flight and over time, as Flight Review draws them to find
//! vibration and filter problems.

use serde::Serialize;
use ulogfile::{Subscription, ULog};

/// Samples per FFT segment (a power of two).
pub(crate) const SEGMENT: usize = 256;
/// Columns of the spectrogram at most: consecutive segments are averaged
/// down to this many.
pub(crate) const MAX_COLUMNS: usize = 400;
/// The spectrogram's intensity range below its largest value, dB.
pub(crate) const DYNAMIC_RANGE_DB: f64 = 80.0;

/// A sensor's spectrum: per axis, the mean amplitude of Hann-windowed
/// segments of `SEGMENT` (256) samples overlapping by half; and a spectrogram
/// of the three axes' power together.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrum {
    /// Where the samples come from (`sensor_combined.gyro_rad`).
    pub source: String,
    /// What they are, with their unit (`angular rate (rad/s)`).
    pub quantity: String,
    /// The sample rate (the inverse of the median interval), Hz.
    pub rate: f64,
    /// The frequency step between bins, Hz (bin `k` is `k * step`).
    pub step: f64,
    /// Per axis (`x`, `y`, `z`): the mean amplitude of each bin, in the
    /// samples' unit.
    pub axes: Vec<(String, Vec<f64>)>,
    /// The spectrogram: one column per time step, one row per bin.
    pub spectrogram: Spectrogram,
}

/// Power over time and frequency, as intensities.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrogram {
    /// Time of the first column's centre, ns on the log's clock.
    pub t0: i64,
    /// Time between columns, ns.
    pub dt: i64,
    /// Columns (time steps).
    pub columns: usize,
    /// Rows (frequency bins, the first at 0 Hz).
    pub rows: usize,
    /// The power of intensity 0 and of 255, dB.
    pub db: (f64, f64),
    /// Intensities 0-255, column after column, each from 0 Hz up.
    pub data: Vec<u8>,
}

/// In-place radix-2 FFT of `re`/`im` (their length a power of two).
pub(crate) fn fft(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    debug_assert!(n.is_power_of_two() && im.len() == n);
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let angle = -2.0 * std::f64::consts::PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (s, c) = (angle * k as f64).sin_cos();
                let (a, b) = (start + k, start + k + len / 2);
                let tr = re[b] * c - im[b] * s;
                let ti = re[b] * s + im[b] * c;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
        len <<= 1;
    }
}

/// The amplitude of each bin `0..=n/2` of a Hann-windowed segment, its
/// mean removed: `|X[k]| / sum(window)`.
fn amplitudes(segment: &[f64], window: &[f64]) -> Vec<f64> {
    let n = segment.len();
    let mean = segment.iter().sum::<f64>() / n as f64;
    let mut re: Vec<f64> = segment
        .iter()
        .zip(window)
        .map(|(v, w)| (v - mean) * w)
        .collect();
    let mut im = vec![0.0; n];
    fft(&mut re, &mut im);
    let norm: f64 = window.iter().sum();
    (0..=n / 2).map(|k| re[k].hypot(im[k]) / norm).collect()
}

/// A topic and its three fields of x, y, z, named as the page says.
type Candidate = (&'static str, [&'static str; 3], &'static str);

/// The gyro: `sensor_combined.gyro_rad`, else
/// `vehicle_angular_velocity.xyz`.
const GYRO: [Candidate; 2] = [
    (
        "sensor_combined",
        ["gyro_rad[0]", "gyro_rad[1]", "gyro_rad[2]"],
        "sensor_combined.gyro_rad",
    ),
    (
        "vehicle_angular_velocity",
        ["xyz[0]", "xyz[1]", "xyz[2]"],
        "vehicle_angular_velocity.xyz",
    ),
];

/// The accelerometer: `sensor_combined.accelerometer_m_s2`, else
/// `vehicle_acceleration.xyz`.
const ACCEL: [Candidate; 2] = [
    (
        "sensor_combined",
        [
            "accelerometer_m_s2[0]",
            "accelerometer_m_s2[1]",
            "accelerometer_m_s2[2]",
        ],
        "sensor_combined.accelerometer_m_s2",
    ),
    (
        "vehicle_acceleration",
        ["xyz[0]", "xyz[1]", "xyz[2]"],
        "vehicle_acceleration.xyz",
    ),
];

/// The first of `candidates` the log has, with its fields, and at least
/// [`SEGMENT`] samples.
fn source<'u, 'a>(
    ulog: &'u ULog<'a>,
    candidates: &[Candidate],
) -> Option<(&'u Subscription<'a>, [&'static str; 3], String)> {
    candidates.iter().find_map(|&(topic, fields, name)| {
        let sub = ulog.subscription(topic, 0)?;
        (fields.iter().all(|f| sub.field(f).is_some()) && sub.samples.len() >= SEGMENT)
            .then(|| (sub, fields, name.to_string()))
    })
}

/// The spectra of the gyro and of the accelerometer over `[from, until)`
/// (ns), each where the log has one with at least [`SEGMENT`] samples
/// there.
pub(crate) fn spectra(ulog: &ULog<'_>, span: (i64, i64)) -> Vec<Spectrum> {
    [
        (&GYRO[..], "angular rate (rad/s)"),
        (&ACCEL[..], "acceleration (m/s\u{b2})"),
    ]
    .into_iter()
    .filter_map(|(candidates, quantity)| spectrum(ulog, span, candidates, quantity))
    .collect()
}

/// The spectrum of the first of `candidates` the log has.
fn spectrum(
    ulog: &ULog<'_>,
    span: (i64, i64),
    candidates: &[Candidate],
    quantity: &str,
) -> Option<Spectrum> {
    let (sub, fields, name) = source(ulog, candidates)?;
    let refs: Vec<_> = fields.iter().map(|f| sub.field(f)).collect::<Option<_>>()?;
    let mut times = Vec::new();
    let mut cols: [Vec<f64>; 3] = Default::default();
    for s in sub.samples.iter() {
        let t = (s.timestamp as i64).saturating_mul(1000);
        if t < span.0 || t >= span.1 {
            continue;
        }
        let v: Vec<f64> = refs
            .iter()
            .map(|f| f.get(&s).map_or(f64::NAN, |x| x.as_f64()))
            .collect();
        if v.iter().all(|x| x.is_finite()) {
            times.push(t);
            for (c, x) in cols.iter_mut().zip(v) {
                c.push(x);
            }
        }
    }
    let n = SEGMENT;
    if times.len() < n {
        return None;
    }
    let mut steps: Vec<i64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_unstable();
    let median = steps[steps.len() / 2];
    if median <= 0 {
        return None;
    }
    let rate = 1e9 / median as f64;
    let window: Vec<f64> = (0..n)
        .map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / n as f64).cos())
        .collect();
    let hop = n / 2;
    let segments = (times.len() - n) / hop + 1;
    let bins = n / 2 + 1;
    let mut axes: Vec<Vec<f64>> = vec![vec![0.0; bins]; 3];
    // Each segment's power, the three axes together.
    let mut power: Vec<Vec<f64>> = Vec::with_capacity(segments);
    for s in 0..segments {
        let mut p = vec![0.0; bins];
        for (axis, col) in axes.iter_mut().zip(&cols) {
            let a = amplitudes(&col[s * hop..s * hop + n], &window);
            for k in 0..bins {
                axis[k] += a[k];
                p[k] += a[k] * a[k];
            }
        }
        power.push(p);
    }
    for axis in &mut axes {
        for v in axis.iter_mut() {
            *v /= segments as f64;
        }
    }
    // Consecutive segments averaged into at most MAX_COLUMNS columns.
    let per = segments.div_ceil(MAX_COLUMNS);
    let columns = segments.div_ceil(per);
    let db: Vec<f64> = (0..columns)
        .flat_map(|c| {
            let group = &power[c * per..((c + 1) * per).min(segments)];
            (0..bins)
                .map(|k| {
                    let mean = group.iter().map(|p| p[k]).sum::<f64>() / group.len() as f64;
                    10.0 * mean.max(1e-30).log10()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let top = db.iter().copied().fold(f64::MIN, f64::max);
    let bottom = top - DYNAMIC_RANGE_DB;
    let data = db
        .iter()
        .map(|v| (((v - bottom) / DYNAMIC_RANGE_DB).clamp(0.0, 1.0) * 255.0).round() as u8)
        .collect();
    let t0 = times[n / 2];
    let dt = (hop * per) as i64 * median;
    Some(Spectrum {
        source: name,
        quantity: quantity.to_string(),
        rate,
        step: rate / n as f64,
        axes: ["x", "y", "z"]
            .into_iter()
            .map(String::from)
            .zip(axes)
            .collect(),
        spectrogram: Spectrogram {
            t0,
            dt,
            columns,
            rows: bins,
            db: (bottom, top),
            data,
        },
    })
}

/// The spectrum in the page: amplitudes as `f32`, the spectrogram's
/// intensities as base64, times from the report's start.
#[derive(Serialize)]
pub(crate) struct SpectrumJson<'a> {
    source: &'a str,
    quantity: &'a str,
    rate: f64,
    step: f64,
    axes: Vec<AxisJson<'a>>,
    spectrogram: SpectrogramJson,
}

#[derive(Serialize)]
struct AxisJson<'a> {
    name: &'a str,
    amplitude: Vec<f32>,
}

#[derive(Serialize)]
struct SpectrogramJson {
    t0: i64,
    dt: i64,
    columns: usize,
    rows: usize,
    db_min: f64,
    db_max: f64,
    data: String,
}

impl Spectrum {
    pub(crate) fn json(&self, start: i64) -> SpectrumJson<'_> {
        let g = &self.spectrogram;
        SpectrumJson {
            source: &self.source,
            quantity: &self.quantity,
            rate: self.rate,
            step: self.step,
            axes: self
                .axes
                .iter()
                .map(|(n, a)| AxisJson {
                    name: n,
                    amplitude: a.iter().map(|&v| v as f32).collect(),
                })
                .collect(),
            spectrogram: SpectrogramJson {
                t0: g.t0 - start,
                dt: g.dt,
                columns: g.columns,
                rows: g.rows,
                db_min: g.db.0,
                db_max: g.db.1,
                data: crate::model::base64(&g.data),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fft_equals_the_discrete_fourier_transform() {
        let n = 64;
        let x: Vec<f64> = (0..n)
            .map(|i| (i as f64 * 0.37).sin() + 0.25 * (i as f64 * 1.9).cos() + (i % 5) as f64)
            .collect();
        let mut re = x.clone();
        let mut im = vec![0.0; n];
        fft(&mut re, &mut im);
        for k in 0..n {
            let (mut r, mut i) = (0.0, 0.0);
            for (j, v) in x.iter().enumerate() {
                let a = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
                r += v * a.cos();
                i += v * a.sin();
            }
            assert!(
                (re[k] - r).abs() < 1e-9 && (im[k] - i).abs() < 1e-9,
                "bin {k}"
            );
        }
    }

    #[test]
    fn a_sine_peaks_at_its_frequency() {
        // 40 Hz at 256 Hz, amplitude 2: bin 40 of 256, amplitude 2/2
        // (the Hann window's coherent gain is in the normalisation).
        let w: Vec<f64> = (0..SEGMENT)
            .map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / SEGMENT as f64).cos())
            .collect();
        let x: Vec<f64> = (0..SEGMENT)
            .map(|i| 2.0 * (2.0 * std::f64::consts::PI * 40.0 * i as f64 / 256.0).sin())
            .collect();
        let a = amplitudes(&x, &w);
        let peak = (0..a.len()).max_by(|&i, &j| a[i].total_cmp(&a[j])).unwrap();
        assert_eq!(peak, 40);
        assert!((a[40] - 1.0).abs() < 1e-9, "{}", a[40]);
    }
}
