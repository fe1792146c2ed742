//! `Log.rosbag2`: what a ROS 2 bag's `metadata.yaml` and storage files
//! say beside its messages (storage, metadata version, ROS distribution,
//! compression, files, and each topic's type, serialization format,
//! offered QoS profiles, type hash and stated message count).
//!
//! The view keeps the opened log alive and reads the bag's typed reader
//! (`robolog::Log::as_rosbag2`) when an attribute is asked for; the
//! metadata was parsed when the bag was opened, so no attribute reads a
//! file.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::source::Shared;

/// What a ROS 2 bag holds beside its messages: storage ("sqlite3" or
/// "mcap"), version (of metadata.yaml; None for a lone storage file),
/// ros_distro, compression_format and compression_mode, files (the
/// storage files in reading order), metadata_path and topics (a list of
/// Rosbag2Topic). Log.rosbag2; None for a log of another format.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Rosbag2View {
    /// The opened log (a ROS 2 bag).
    shared: Arc<Shared>,
}

impl Rosbag2View {
    /// The view of `shared`, when it is a ROS 2 bag.
    pub(crate) fn of(shared: &Arc<Shared>) -> Option<Rosbag2View> {
        shared.log().as_rosbag2()?;
        Some(Rosbag2View {
            shared: Arc::clone(shared),
        })
    }

    /// The typed bag.
    fn bag(&self) -> PyResult<&::rosbag2::Bag2> {
        self.shared
            .log()
            .as_rosbag2()
            .ok_or_else(|| PyValueError::new_err("the log is no ROS 2 bag"))
    }
}

/// `text`, or None when it is empty (a key the metadata leaves out).
fn given(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

#[pymethods]
impl Rosbag2View {
    /// The storage plugin: the metadata's storage_identifier ("sqlite3",
    /// "mcap"), or for a lone storage file the one its extension names.
    #[getter]
    fn storage(&self) -> PyResult<String> {
        let bag = self.bag()?;
        if let Some(m) = bag.metadata() {
            return Ok(m.storage_identifier.clone());
        }
        let ext = bag
            .files()
            .first()
            .and_then(|f| f.extension())
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        Ok(match ext.as_deref() {
            Some("mcap") => "mcap".to_owned(),
            _ => "sqlite3".to_owned(),
        })
    }

    /// The version of metadata.yaml (1 to 9), or None for a bag read from
    /// a lone storage file.
    #[getter]
    fn version(&self) -> PyResult<Option<u32>> {
        Ok(self.bag()?.metadata().map(|m| m.version))
    }

    /// The ROS distribution that wrote the bag ("humble", "jazzy", ...),
    /// or None when the metadata does not say (before version 8).
    #[getter]
    fn ros_distro(&self) -> PyResult<Option<String>> {
        Ok(self.bag()?.metadata().and_then(|m| given(&m.ros_distro)))
    }

    /// The compression format ("zstd"), or None for an uncompressed bag.
    #[getter]
    fn compression_format(&self) -> PyResult<Option<String>> {
        Ok(self
            .bag()?
            .metadata()
            .and_then(|m| given(&m.compression_format)))
    }

    /// The compression mode ("FILE" or "MESSAGE"), or None for an
    /// uncompressed bag.
    #[getter]
    fn compression_mode(&self) -> PyResult<Option<String>> {
        Ok(self
            .bag()?
            .metadata()
            .and_then(|m| given(&m.compression_mode)))
    }

    /// The storage files, in the order they are read.
    #[getter]
    fn files(&self) -> PyResult<Vec<String>> {
        Ok(self
            .bag()?
            .files()
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect())
    }

    /// The bag's metadata.yaml, or None for a lone storage file.
    #[getter]
    fn metadata_path(&self) -> PyResult<Option<String>> {
        Ok(self
            .bag()?
            .metadata_path()
            .map(|p| p.to_string_lossy().into_owned()))
    }

    /// The topics in the order of their channel ids, as a list of
    /// Rosbag2Topic.
    #[getter]
    fn topics<'py>(&self, py: Python<'py>) -> PyResult<Vec<Rosbag2Topic>> {
        self.bag()?
            .topics()
            .iter()
            .map(|t| {
                let qos = t
                    .qos_profiles
                    .iter()
                    .map(|q| {
                        let d = PyDict::new(py);
                        d.set_item("history", &q.history)?;
                        d.set_item("depth", q.depth)?;
                        d.set_item("reliability", &q.reliability)?;
                        d.set_item("durability", &q.durability)?;
                        d.set_item("deadline", (q.deadline.sec, q.deadline.nsec))?;
                        d.set_item("lifespan", (q.lifespan.sec, q.lifespan.nsec))?;
                        d.set_item("liveliness", &q.liveliness)?;
                        let lease = &q.liveliness_lease_duration;
                        d.set_item("liveliness_lease_duration", (lease.sec, lease.nsec))?;
                        d.set_item(
                            "avoid_ros_namespace_conventions",
                            q.avoid_ros_namespace_conventions,
                        )?;
                        Ok(d.unbind())
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(Rosbag2Topic {
                    id: t.id.0,
                    name: t.name.clone(),
                    type_name: t.type_name.clone(),
                    serialization_format: t.serialization_format.clone(),
                    offered_qos_profiles: t.offered_qos_profiles.clone(),
                    qos_profiles: qos,
                    type_description_hash: given(&t.type_description_hash),
                    metadata_message_count: t.metadata_message_count,
                })
            })
            .collect()
    }

    fn __repr__(&self) -> PyResult<String> {
        let bag = self.bag()?;
        Ok(format!(
            "<robolog.Rosbag2View {}: {} topics, {} files>",
            self.storage()?,
            bag.topics().len(),
            bag.files().len()
        ))
    }
}

/// A topic of a ROS 2 bag: id (its channel id), name, type,
/// serialization_format ("cdr"), offered_qos_profiles (the YAML text the
/// bag stores), qos_profiles (parsed: a dict per profile, times as (sec,
/// nsec)), type_description_hash ("RIHS01_...", or None) and
/// metadata_message_count (what metadata.yaml states, or None).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Rosbag2Topic {
    /// The channel id (as Channel.id).
    #[pyo3(get)]
    id: u32,
    /// The topic name.
    #[pyo3(get)]
    name: String,
    /// The message type.
    #[pyo3(get, name = "type")]
    type_name: String,
    /// The serialization format.
    #[pyo3(get)]
    serialization_format: String,
    /// The offered QoS profiles as stored.
    #[pyo3(get)]
    offered_qos_profiles: String,
    /// The offered QoS profiles, parsed.
    #[pyo3(get)]
    qos_profiles: Vec<Py<PyDict>>,
    /// The type description hash, when the bag has one.
    #[pyo3(get)]
    type_description_hash: Option<String>,
    /// The message count metadata.yaml states, when there is one.
    #[pyo3(get)]
    metadata_message_count: Option<u64>,
}

#[pymethods]
impl Rosbag2Topic {
    fn __repr__(&self) -> String {
        format!(
            "Rosbag2Topic(id={}, name={:?}, type={:?}, serialization_format={:?})",
            self.id, self.name, self.type_name, self.serialization_format
        )
    }
}
