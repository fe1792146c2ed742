//! Mcap to MCAP.

use std::io::Write;

use logcore::{Error, Format};

use super::Context;
use crate::Log;

/// Converts the Mcap `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let _ = (log, cx);
    drop(out);
    Err(super::not_yet(Format::Mcap))
}
