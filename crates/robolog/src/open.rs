//! Opening a file and picking the reader for its format.

use std::path::Path;

use logcore::{Error, FileBytes, Format, LogReader};

use crate::Failure;

/// A file's bytes and its detected format.
pub(crate) struct Opened {
    pub(crate) bytes: FileBytes,
    pub(crate) format: Format,
}

/// Maps `path` and recognises its format by its magic bytes.
pub(crate) fn open_file(path: &Path) -> Result<Opened, Failure> {
    let bytes = FileBytes::open(path).map_err(|e| Failure::new(path, e))?;
    let head = &bytes[..bytes.len().min(Format::PROBE_LEN)];
    let format = logcore::probe(head).ok_or_else(|| {
        Failure::new(
            path,
            Error::UnknownFormat {
                found: logcore::error::hex_preview(head),
            },
        )
    })?;
    Ok(Opened { bytes, format })
}

/// The reader for `format` over `bytes`; formats whose crate is not part of
/// this build report that they are not supported yet.
pub(crate) fn reader<'a>(
    format: Format,
    bytes: &'a [u8],
) -> Result<Box<dyn LogReader + 'a>, Error> {
    match format {
        Format::VelLog => Ok(Box::new(vellog::VelLog::new(bytes)?)),
        Format::ULog => Ok(Box::new(ulogfile::ULog::parse(bytes)?)),
        Format::RosBag => Ok(Box::new(rosbag12::Bag::new(bytes)?)),
        Format::Mcap => Ok(Box::new(osi_mcap::mcap::Mcap::new(bytes)?)),
        Format::CarlaRecorder => Ok(Box::new(carla_recorder::Recording::new(bytes)?)),
        other => Err(Error::unsupported(
            0,
            format!("{other} files"),
            "this build has no reader for them",
        )),
    }
}
