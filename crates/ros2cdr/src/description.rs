//! The REP 2011 type description and hash of a compiled type: `rosmsg`'s
//! [`hash`](rosmsg::ros2::hash) over its definitions, with the interface
//! kind (`msg` or `srv`) it was parsed under.

use rosmsg::ros2::hash;

use crate::decode::MessageType;

impl MessageType {
    /// The canonical JSON text whose SHA-256 is the type's
    /// [`type_description_hash`](Self::type_description_hash) (see the
    /// rules in the [module docs](crate::hash)): the top-level type and
    /// every type it uses, by their full names (`pkg/msg/Type`; the
    /// top-level type, and for a service its request, response and event,
    /// as `pkg/srv/Type` when it was parsed under such a name).
    ///
    /// ```
    /// let t = ros2cdr::MessageType::parse("demo/srv/Add_Event", "int64 a\n---\nint64 sum\n")?;
    /// assert!(t.type_description_json().starts_with(
    ///     "{\"type_description\": {\"type_name\": \"demo/srv/Add_Event\""
    /// ));
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn type_description_json(&self) -> String {
        hash::type_description_json(self.defs(), self.interface)
    }

    /// Whether the top-level type, or a type it uses, has a `char` field
    /// (see [`hash::uses_char`]): ROS 2 hashes it as `uint8`, rosbags
    /// 0.11.9 as an IDL `char`, so a writer may prefer to leave the hash
    /// of such a type unrecorded.
    ///
    /// ```
    /// let t = ros2cdr::MessageType::parse("std_msgs/msg/Char", "char data\n")?;
    /// assert!(t.uses_char());
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn uses_char(&self) -> bool {
        hash::uses_char(self.defs())
    }

    /// The ROS 2 type description hash of the top-level type,
    /// `RIHS01_` and the SHA-256 of
    /// [`type_description_json`](Self::type_description_json) in 64
    /// lower-case hex digits: what rosbag2 records as a topic's
    /// `type_description_hash` (REP 2011; see the [module
    /// docs](crate::hash)).
    ///
    /// ```
    /// let t = ros2cdr::MessageType::parse(
    ///     "rosbag2_interfaces/msg/WriteSplitEvent",
    ///     "string closed_file\nstring opened_file\n",
    /// )?;
    /// // The hash rosbag2 itself recorded for this type.
    /// assert_eq!(
    ///     t.type_description_hash(),
    ///     "RIHS01_5ef58f7106a5cff8f5a794028c18117ee21015850ddcc567df449f41932960f8",
    /// );
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn type_description_hash(&self) -> String {
        hash::type_description_hash(self.defs(), self.interface)
    }
}
