//! The progress bar of long commands (convert, and any command reading a
//! whole file): input bytes with their rate, and messages with theirs.
//! Drawn on stderr only when stderr is a terminal; otherwise every call is
//! a no-op, so piped and scripted runs stay silent.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressDrawTarget, ProgressStyle};

/// How often the message count and rate are redrawn.
const MESSAGE_EVERY: Duration = Duration::from_millis(100);

/// A progress bar over the bytes of one input file.
pub(crate) struct Progress {
    /// The bar, when it is shown.
    bar: Option<indicatif::ProgressBar>,
    /// When the bar was made, for the message rate.
    started: Instant,
    /// When the message count was last redrawn.
    last_message: Option<Instant>,
}

impl Progress {
    /// A bar for reading `total` bytes, shown when stderr is a terminal.
    pub(crate) fn bytes(total: u64) -> Self {
        Self::with_target(total, std::io::stderr().is_terminal())
    }

    /// A bar counting `total` items (messages written as files) rather
    /// than bytes, shown when stderr is a terminal; [`Progress::inc`]
    /// counts one.
    pub(crate) fn items(total: u64, unit: &str) -> Self {
        let p = Self::with_target(total, std::io::stderr().is_terminal());
        if let Some(bar) = &p.bar {
            let template = format!(
                "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{per_sec}}, eta {{eta}})"
            );
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style.progress_chars("=> "));
            }
        }
        p
    }

    /// One more item done (on a bar of [`Progress::items`]).
    pub(crate) fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// A bar drawn on stderr when `shown`, else a silent one.
    pub(crate) fn with_target(total: u64, shown: bool) -> Self {
        let bar = shown.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total),
                ProgressDrawTarget::stderr_with_hz(10),
            );
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta}) {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            last_message: None,
        }
    }

    /// `bytes` of the input read and `messages` handled so far.
    pub(crate) fn update(&mut self, bytes: u64, messages: u64) {
        let Some(bar) = &self.bar else {
            return;
        };
        bar.set_position(bytes);
        let now = Instant::now();
        if self
            .last_message
            .is_none_or(|t| now.duration_since(t) >= MESSAGE_EVERY)
        {
            self.last_message = Some(now);
            bar.set_message(messages_text(messages, now.duration_since(self.started)));
        }
    }

    /// Changes the number of bytes the bar counts to (work that turns out to
    /// need another pass over the input).
    pub(crate) fn set_total(&mut self, total: u64) {
        if let Some(bar) = &self.bar
            && bar.length() != Some(total)
        {
            bar.set_length(total);
        }
    }

    /// Removes the bar (before the command prints its summary).
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `1234 msgs (567/s)`.
fn messages_text(messages: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        format!("{messages} msgs ({:.0}/s)", messages as f64 / secs)
    } else {
        format!("{messages} msgs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_bar_ignores_updates() {
        let mut p = Progress::with_target(100, false);
        assert!(p.bar.is_none());
        p.update(50, 3);
        p.finish();
    }

    #[test]
    fn shown_bar_tracks_position() {
        let mut p = Progress::with_target(100, true);
        p.update(40, 7);
        assert_eq!(p.bar.as_ref().map(|b| b.position()), Some(40));
        assert_eq!(
            p.bar.as_ref().map(|b| b.message()),
            Some(messages_text(7, p.last_message.unwrap() - p.started))
        );
    }

    #[test]
    fn message_rate_text() {
        assert_eq!(messages_text(10, Duration::from_secs(2)), "10 msgs (5/s)");
        assert_eq!(messages_text(3, Duration::ZERO), "3 msgs");
    }
}
