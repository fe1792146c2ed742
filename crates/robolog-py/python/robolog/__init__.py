"""Robotics logs in Python: ROS 1 bags, PX4 ULog, MCAP, CARLA recorder files
and VEL logs through one API, read by a Rust library without the GIL.

    import robolog

    with robolog.open("flight.ulg") as log:          # any format, by its bytes
        print(log.format, log.duration / 1e9, log.start_datetime)
        print([c.topic for c in log.topics])
        df = log.to_pandas("vehicle_attitude")      # needs pandas and pyarrow
        for m in log.messages("battery_status"):    # decoded to dicts
            print(m.log_time, m.data["voltage_v"])

- ``robolog.open(path_or_bytes)`` gives a ``Log``: ``format``, ``path``,
  ``start``/``end``/``duration`` (int nanoseconds), ``clock``,
  ``start_utc``, ``start_datetime``, ``metadata``, ``topics`` (``Topic``,
  each topic once), ``channels`` (``Channel``), ``problems``,
  ``summary()``.
- ``Log.messages(topics, start, end, raw=False)`` yields ``Message`` objects
  in log-time order.
- ``Log.table(topic)`` gives a typed Arrow ``Table`` (the Arrow PyCapsule
  interface: ``pyarrow.table(t)``, ``polars.DataFrame(t)``, DuckDB), with
  ``to_pyarrow()``, ``to_pandas()`` and ``to_polars()``.
- ``Log.ulog``, ``Log.bag``, ``Log.mcap``, ``Log.carla`` and ``Log.rosbag2``:
  the formats' own views (ULog info, parameters, logged messages and dropouts
  as pyulog names them; bag connections with their headers; MCAP schemas,
  attachments and metadata records; CARLA frames, actors and recorder
  reports; a ROS 2 bag's storage, distribution, files and topics with their
  QoS profiles), None for a log of another format. ``Log.table(topic, flatten=True)`` gives columns
  of scalars: a ULog topic with pyulog's column names and dtypes, other
  formats' structs and fixed-size arrays spread out (``header.stamp``,
  ``orientation_covariance[0]``).
- ``robolog.check(path)``, ``robolog.convert(src, dst)`` and
  ``robolog.export(src, folder)`` do what the ``robolog`` command does and
  return reports (``CheckReport``, ``ConvertReport``, ``ExportReport``).
- ``robolog.Writer(path)`` writes MCAP files, ROS 1 bags and ROS 2 bags
  message by message (dicts encoded by the channel's definition).
- ``robolog.sql(query, paths)`` answers SQL over a fleet of logs (one table
  per topic, a ``log`` column first) as a ``Table``; it only reads.
- Errors: ``FormatError`` (a ``ValueError``, with ``offset`` and ``path``),
  ``UnsupportedError``, ``QueryError`` (robolog.sql), and ``FileNotFoundError``/``PermissionError``/``OSError``.

See ``help(robolog.Log)`` for everything a log offers.
"""

from ._robolog import (
    BagConnection,
    BagView,
    CarlaActor,
    CarlaFrame,
    CarlaView,
    Channel,
    Dropout,
    FormatError,
    Log,
    LoggedMessage,
    McapAttachment,
    McapChannel,
    McapMetadata,
    McapSchema,
    McapView,
    Message,
    Messages,
    QueryError,
    Rosbag2Topic,
    Rosbag2View,
    Scan,
    SensorStream,
    Table,
    Topic,
    ULogView,
    UnsupportedError,
    Writer,
    __version__,
    align,
    open,
)
from ._tools import (
    CheckReport,
    ConvertReport,
    ExportedTable,
    ExportReport,
    FilteredTopic,
    FilterReport,
    check,
    convert,
    export,
    filter,
    sql,
)

__all__ = [
    "align",
    "BagConnection",
    "BagView",
    "CarlaActor",
    "CarlaFrame",
    "CarlaView",
    "Channel",
    "Dropout",
    "LoggedMessage",
    "McapAttachment",
    "McapChannel",
    "McapMetadata",
    "McapSchema",
    "McapView",
    "Rosbag2Topic",
    "Rosbag2View",
    "ULogView",
    "CheckReport",
    "ConvertReport",
    "ExportedTable",
    "ExportReport",
    "FilteredTopic",
    "FilterReport",
    "check",
    "convert",
    "export",
    "filter",
    "sql",
    "FormatError",
    "QueryError",
    "Log",
    "Message",
    "Messages",
    "Scan",
    "SensorStream",
    "Table",
    "Topic",
    "UnsupportedError",
    "Writer",
    "__version__",
    "open",
    "read_table",
    "read_pandas",
]


def read_table(path_or_bytes, topic, columns=None, start=None, end=None, *, flatten=False):
    """Opens a log, builds one topic's Arrow ``Table`` and closes the log.

    The same as ``robolog.open(path_or_bytes).table(topic, columns, start,
    end, flatten=flatten)``; see ``Log.table``.
    """
    with open(path_or_bytes) as log:
        return log.table(topic, columns, start, end, flatten=flatten)


def read_pandas(path_or_bytes, topic, columns=None, start=None, end=None, *, flatten=True):
    """Opens a log and returns one topic as a ``pandas.DataFrame``.

    The same as ``read_table(..., flatten=flatten).to_pandas()``: flat by
    default, as ``Log.to_pandas``; needs pandas and pyarrow.
    """
    return read_table(path_or_bytes, topic, columns, start, end, flatten=flatten).to_pandas()
