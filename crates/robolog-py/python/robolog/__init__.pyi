"""Type stubs of the robolog package (see the module's docstring)."""

import datetime
import os
from dataclasses import dataclass
from types import TracebackType
from typing import (
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    final,
)

__version__: str

__all__ = [
    "Writer",
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
    "FilteredTopic",
    "FilterReport",
    "filter",
    "ExportedTable",
    "ExportReport",
    "check",
    "convert",
    "export",
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
    "__version__",
    "open",
    "read_table",
    "read_pandas",
]

_PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray]

_Time = Union[int, float, str, datetime.datetime, datetime.timedelta]
"""A time: int ns on the log's clock; float s after the first message; str
("2.5", "2.5s", "1500ms", "@SECONDS", or an ISO 8601 UTC instant); a
datetime (UTC; naive taken as UTC); a timedelta after the first message."""

class FormatError(ValueError):
    """The file is not what its format requires (damaged, cut short, unknown)."""

    offset: Optional[int]
    """The byte offset of the problem, or None."""
    path: Optional[str]
    """The file, or None for a log opened from bytes."""

class UnsupportedError(FormatError):
    """A known format in a version or with a feature this build cannot read."""

class QueryError(ValueError):
    """robolog.sql's query does not parse, plan or run, or is not a query."""

@final
class Channel:
    """A channel of a log: topic, type, encoding, message count, metadata, schema."""

    @property
    def id(self) -> int: ...
    @property
    def topic(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def encoding(self) -> str: ...
    @property
    def message_count(self) -> int: ...
    @property
    def start(self) -> Optional[int]:
        """The time of its first message (int ns on the log's clock), or None."""
    @property
    def end(self) -> Optional[int]:
        """The time of its last message (int ns on the log's clock), or None."""
    @property
    def metadata(self) -> Dict[str, str]: ...
    @property
    def schema(self) -> Optional[str]: ...
    @property
    def schema_name(self) -> Optional[str]: ...
    @property
    def schema_encoding(self) -> Optional[str]: ...

@final
class Topic:
    """A topic of a log, once: its types, message count and time range over all its channels."""

    @property
    def topic(self) -> str: ...
    @property
    def type(self) -> str:
        """Its type; the types joined by ", " where its channels differ."""
    @property
    def types(self) -> List[str]: ...
    @property
    def message_count(self) -> int: ...
    @property
    def start(self) -> Optional[int]:
        """The time of its first message (int ns on the log's clock), or None."""
    @property
    def end(self) -> Optional[int]:
        """The time of its last message (int ns on the log's clock), or None."""
    @property
    def channels(self) -> List[Channel]: ...

@final
class Message:
    """One message: topic, log_time (int ns), publish_time, sequence, data."""

    @property
    def topic(self) -> str: ...
    @property
    def log_time(self) -> int:
        """When it was logged (int ns on the log's clock)."""
    @property
    def publish_time(self) -> Optional[int]:
        """When it was published (int ns; MCAP), or None."""
    @property
    def sequence(self) -> Optional[int]: ...
    @property
    def data(self) -> Any:
        """The decoded message (dict, list, bytes, int, float, str, bool, None),
        or the payload bytes with raw=True."""

@final
class Messages(Iterator[Message]):
    """An iterator over a log's messages in log-time order."""

    def __iter__(self) -> "Messages": ...
    def __next__(self) -> Message: ...

@final
class Table:
    """A topic's messages as a typed Arrow table (the Arrow PyCapsule interface)."""

    @property
    def name(self) -> str: ...
    @property
    def topic(self) -> str: ...
    @property
    def num_rows(self) -> int: ...
    @property
    def num_columns(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    @property
    def problems(self) -> List[str]:
        """What was met building the table: undecoded messages, damage skipped."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    def to_pyarrow(self) -> Any:
        """A pyarrow.Table (needs pyarrow)."""
    def to_pandas(self) -> Any:
        """A pandas.DataFrame (needs pandas and pyarrow)."""
    def to_polars(self) -> Any:
        """A polars.DataFrame (needs polars)."""
    def __len__(self) -> int: ...

@final
class SensorStream:
    """A topic's frames or clouds as (log_time, numpy array) pairs, read as they are consumed (Log.images, Log.points)."""

    @property
    def topic(self) -> str: ...
    @property
    def problems(self) -> List[str]:
        """The messages skipped ("TOPIC at TIME: what did not fit"), once every message was read."""
    def __iter__(self) -> Iterator[Tuple[int, Any]]: ...
    def __next__(self) -> Tuple[int, Any]:
        """The next message's log time (ns on the log's clock) and its numpy array."""

@final
class Scan:
    """A topic's table as a stream of record batches, read as they are consumed (Log.scan)."""

    @property
    def name(self) -> str: ...
    @property
    def topic(self) -> str: ...
    @property
    def column_names(self) -> List[str]: ...
    @property
    def problems(self) -> List[str]:
        """What was met reading the rows, once every batch was read."""
    def __iter__(self) -> Iterator[Table]: ...
    def __next__(self) -> Table: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...

_InfoValue = Union[str, int, float, bool, bytes]

@final
class LoggedMessage:
    """A ULog logged string ('L', or 'C' with a tag), as pyulog's MessageLogging."""

    @property
    def log_level(self) -> int:
        """The level byte: ord('0') emergency to ord('7') debug."""
    @property
    def timestamp(self) -> int:
        """When it was logged (int µs since boot, as pyulog gives it)."""
    @property
    def message(self) -> str: ...
    @property
    def tag(self) -> Optional[int]:
        """The tag of a tagged message ('C'), None for 'L'."""
    def log_level_str(self) -> str:
        """"EMERGENCY" ... "DEBUG", or "UNKNOWN"."""

@final
class Dropout:
    """Data a ULog's logger lost: duration ms after timestamp (µs), as pyulog gives them."""

    @property
    def timestamp(self) -> int:
        """When the dropout started (int µs since boot)."""
    @property
    def duration(self) -> int:
        """How long it lasted (int ms)."""

@final
class ULogView:
    """A ULog's info, parameters, logged messages and dropouts, named as pyulog names them."""

    @property
    def file_version(self) -> int: ...
    @property
    def start_timestamp(self) -> int:
        """The header's start time (int µs since boot, as pyulog gives it)."""
    @property
    def last_timestamp(self) -> int:
        """The last timestamp of the log (int µs since boot, as pyulog gives it)."""
    @property
    def msg_info_dict(self) -> Dict[str, _InfoValue]: ...
    @property
    def msg_info_dict_types(self) -> Dict[str, str]: ...
    @property
    def msg_info_multiple_dict(self) -> Dict[str, List[List[_InfoValue]]]: ...
    @property
    def msg_info_multiple_dict_types(self) -> Dict[str, str]: ...
    @property
    def initial_parameters(self) -> Dict[str, Union[int, float]]: ...
    @property
    def changed_parameters(self) -> List[Tuple[int, str, Union[int, float]]]: ...
    @property
    def has_default_parameters(self) -> bool: ...
    @property
    def default_parameters(self) -> Dict[int, Dict[str, Union[int, float]]]: ...
    def get_default_parameters(self, default_type: int) -> Dict[str, Union[int, float]]:
        """0: the system's defaults, 1: the current setup's."""
    @property
    def logged_messages(self) -> List[LoggedMessage]: ...
    @property
    def logged_messages_tagged(self) -> Dict[int, List[LoggedMessage]]: ...
    @property
    def dropouts(self) -> List[Dropout]: ...
    @property
    def file_corruption(self) -> bool: ...
    @property
    def has_data_appended(self) -> bool: ...
    @property
    def compat_flags(self) -> List[int]: ...
    @property
    def incompat_flags(self) -> List[int]: ...
    @property
    def sync_count(self) -> int: ...

@final
class BagConnection:
    """A ROS 1 bag connection with its full header."""

    @property
    def id(self) -> int: ...
    @property
    def topic(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def md5sum(self) -> str: ...
    @property
    def message_definition(self) -> str: ...
    @property
    def callerid(self) -> Optional[str]: ...
    @property
    def latching(self) -> bool: ...
    @property
    def header(self) -> Dict[str, bytes]:
        """Every field of the connection header, unknown ones included."""
    @property
    def offset(self) -> int: ...
    @property
    def message_count(self) -> int: ...

@final
class BagView:
    """A ROS 1 bag's version, index and connections."""

    @property
    def version(self) -> str: ...
    @property
    def indexed(self) -> bool: ...
    @property
    def chunk_count(self) -> int: ...
    @property
    def connections(self) -> List[BagConnection]: ...

@final
class McapSchema:
    """An MCAP schema record."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def encoding(self) -> str: ...
    @property
    def data(self) -> bytes: ...

@final
class McapChannel:
    """An MCAP channel record."""

    @property
    def id(self) -> int: ...
    @property
    def schema_id(self) -> int: ...
    @property
    def topic(self) -> str: ...
    @property
    def message_encoding(self) -> str: ...
    @property
    def metadata(self) -> Dict[str, str]: ...

@final
class McapAttachment:
    """An MCAP attachment (times int ns)."""

    @property
    def name(self) -> str: ...
    @property
    def media_type(self) -> str: ...
    @property
    def log_time(self) -> int:
        """When it was logged (int ns; 0 when unknown)."""
    @property
    def create_time(self) -> int:
        """When it was made (int ns; 0 when unknown)."""
    @property
    def data(self) -> bytes: ...

@final
class McapMetadata:
    """An MCAP metadata record."""

    @property
    def name(self) -> str: ...
    @property
    def metadata(self) -> Dict[str, str]: ...

@final
class McapView:
    """An MCAP file's header, schemas, channels, attachments and metadata records."""

    @property
    def profile(self) -> str: ...
    @property
    def library(self) -> str: ...
    @property
    def indexed(self) -> bool: ...
    @property
    def schemas(self) -> List[McapSchema]: ...
    @property
    def channels(self) -> List[McapChannel]: ...
    @property
    def attachments(self) -> List[McapAttachment]: ...
    @property
    def metadata(self) -> List[McapMetadata]: ...

@final
class CarlaFrame:
    """A frame of a CARLA recording (times int ns)."""

    @property
    def id(self) -> int: ...
    @property
    def elapsed(self) -> int:
        """Time since the recording started (int ns: the log_time of its messages)."""
    @property
    def duration(self) -> int:
        """The frame's stored duration (int ns)."""
    @property
    def offset(self) -> int: ...

@final
class CarlaActor:
    """An actor of a CARLA recording and its lifetime."""

    @property
    def id(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def attributes(self) -> Dict[str, str]: ...
    @property
    def location(self) -> Tuple[float, float, float]: ...
    @property
    def rotation(self) -> Tuple[float, float, float]: ...
    @property
    def added_frame(self) -> int: ...
    @property
    def added_time(self) -> int:
        """When it was added (int ns since the recording started)."""
    @property
    def removed_frame(self) -> Optional[int]: ...
    @property
    def removed_time(self) -> Optional[int]:
        """When it was destroyed (int ns since the recording started), or None."""
    @property
    def parent(self) -> Optional[int]: ...

@final
class CarlaView:
    """A CARLA recording's header, frames, actors and CARLA's recorder reports."""

    @property
    def version(self) -> int: ...
    @property
    def map(self) -> str: ...
    @property
    def date(self) -> int:
        """The header's date (int s since 1970 UTC, as CARLA stores it)."""
    @property
    def frames(self) -> List[CarlaFrame]: ...
    @property
    def frame_count(self) -> int: ...
    @property
    def start_time(self) -> Optional[int]:
        """The elapsed time of the first frame (int ns), or None."""
    @property
    def end_time(self) -> Optional[int]:
        """The elapsed time of the last frame (int ns), or None."""
    @property
    def actors(self) -> List[CarlaActor]: ...
    def info(self, show_all: bool = False, *, fixed: bool = False, utc_offset: int = 0) -> str:
        """What `robolog carla info` prints."""
    def collisions(
        self, type1: str = "a", type2: str = "a", *, fixed: bool = False, utc_offset: int = 0
    ) -> str:
        """What `robolog carla collisions` prints."""
    def actors_blocked(
        self,
        min_time: float = 30.0,
        min_distance: float = 10.0,
        *,
        fixed: bool = False,
        utc_offset: int = 0,
    ) -> str:
        """What `robolog carla blocked` prints (min_time in float s and min_distance in cm, as CARLA's client takes them)."""

@final
class Rosbag2Topic:
    """A topic of a ROS 2 bag as its metadata and storage files describe it."""

    @property
    def id(self) -> int:
        """The channel id (as Channel.id)."""
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def serialization_format(self) -> str: ...
    @property
    def offered_qos_profiles(self) -> str:
        """The offered QoS profiles as the bag stores them (YAML text)."""
    @property
    def qos_profiles(self) -> List[Dict[str, Any]]:
        """The offered QoS profiles parsed: history, depth, reliability,
        durability, deadline, lifespan, liveliness,
        liveliness_lease_duration (times as (sec, nsec)) and
        avoid_ros_namespace_conventions."""
    @property
    def type_description_hash(self) -> Optional[str]: ...
    @property
    def metadata_message_count(self) -> Optional[int]:
        """The message count metadata.yaml states, None without one."""

@final
class Rosbag2View:
    """A ROS 2 bag's storage, metadata version, distribution, compression, files and topics."""

    @property
    def storage(self) -> str:
        """"sqlite3" or "mcap" (the metadata's storage_identifier)."""
    @property
    def version(self) -> Optional[int]:
        """The version of metadata.yaml, None for a lone storage file."""
    @property
    def ros_distro(self) -> Optional[str]: ...
    @property
    def compression_format(self) -> Optional[str]: ...
    @property
    def compression_mode(self) -> Optional[str]: ...
    @property
    def files(self) -> List[str]: ...
    @property
    def metadata_path(self) -> Optional[str]: ...
    @property
    def topics(self) -> List[Rosbag2Topic]: ...

@final
class Log:
    """An opened log (see robolog.open); a context manager."""

    @property
    def format(
        self,
    ) -> Literal["rosbag", "ulog", "mcap", "carla-recorder", "vellog", "rosbag2"]:
        """"rosbag", "ulog", "mcap", "carla-recorder", "vellog" or "rosbag2"."""
    @property
    def path(self) -> Optional[str]: ...
    @property
    def closed(self) -> bool: ...
    @property
    def start(self) -> Optional[int]:
        """The time of the first message (int ns on the log's clock), or None."""
    @property
    def end(self) -> Optional[int]:
        """The time of the last message (int ns on the log's clock), or None."""
    @property
    def duration(self) -> int:
        """end - start (int ns; 0 without messages)."""
    @property
    def duration_timedelta(self) -> datetime.timedelta:
        """end - start as a timedelta."""
    @property
    def message_count(self) -> int: ...
    @property
    def clock(self) -> Literal["utc", "boot", "simulation", "recording_start", "unknown"]:
        """What the log's times count from."""
    @property
    def start_utc(self) -> Optional[int]:
        """The time of the first message (int ns since 1970 UTC), or None without a UTC anchor."""
    @property
    def end_utc(self) -> Optional[int]:
        """The time of the last message (int ns since 1970 UTC), or None without a UTC anchor."""
    @property
    def start_datetime(self) -> Optional[datetime.datetime]:
        """The time of the first message as a UTC datetime, or None without a UTC anchor."""
    @property
    def end_datetime(self) -> Optional[datetime.datetime]:
        """The time of the last message as a UTC datetime, or None without a UTC anchor."""
    @property
    def metadata(self) -> Dict[str, str]: ...
    @property
    def topics(self) -> List[Topic]:
        """Each topic once, with the totals of its channels."""
    @property
    def channels(self) -> List[Channel]:
        """Every channel (a bag's connections, MCAP channels), in id order."""
    @property
    def problems(self) -> List[str]: ...
    @property
    def ulog(self) -> Optional[ULogView]: ...
    @property
    def bag(self) -> Optional[BagView]: ...
    @property
    def mcap(self) -> Optional[McapView]: ...
    @property
    def carla(self) -> Optional[CarlaView]: ...
    @property
    def rosbag2(self) -> Optional[Rosbag2View]: ...
    def summary(self) -> Dict[str, Any]: ...
    def messages(
        self,
        topics: Union[None, str, Iterable[str]] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        raw: bool = False,
    ) -> Messages: ...
    def table(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        flatten: bool = False,
    ) -> Table: ...
    def scan(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        flatten: bool = False,
    ) -> Scan: ...
    def images(
        self,
        topic: str,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        every: int = 1,
        rgb: bool = True,
        debayer: bool = False,
    ) -> SensorStream:
        """An image topic's frames: (log_time, array of shape (height, width[, channels]) in the image's dtype)."""
    def points(
        self,
        topic: str,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        every: int = 1,
        drop_nan: bool = False,
    ) -> SensorStream:
        """A cloud or scan topic's clouds: (log_time, structured array of the cloud's own fields).

        A ROS 1 or ROS 2 PointCloud2 of little-endian points with rows back to back
        (drop_nan=False) is a view of the log's bytes, read-only (itemsize point_step,
        fields at their stored offsets): .copy() for a writable array. Other clouds
        come as packed records of their own."""
    def points_table(
        self,
        topic: str,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        every: int = 1,
        drop_nan: bool = False,
    ) -> Table:
        """Every point of a cloud or scan topic: log_time, message (index from 0), then the fields."""
    def track(
        self,
        topic: str,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
    ) -> Table:
        """A position topic's fixes: log_time, latitude, longitude (degrees), altitude (m), status."""
    def to_pandas(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        flatten: bool = True,
    ) -> Any: ...
    def dataframes(
        self,
        topics: Optional[Sequence[str]] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        flatten: bool = True,
    ) -> Dict[str, Any]: ...
    def to_polars(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
        *,
        flatten: bool = True,
    ) -> Any: ...
    def align(
        self,
        topics: Union[str, Sequence[str], Dict[str, str]],
        *,
        on: Optional[str] = None,
        rate: Union[None, int, float, str] = None,
        method: Union[None, str, Dict[str, str]] = None,
        tolerance: Union[None, int, float, str, datetime.timedelta] = None,
        start: Optional[_Time] = None,
        end: Optional[_Time] = None,
    ) -> Table:
        """Topics on one time base as one flat Table: `log_time` (ns) rows of `on`'s times or a `rate` grid, columns `name.column`; tolerance in ns (int), s (float), str or timedelta."""
    def close(self) -> None: ...
    def __enter__(self) -> "Log": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]] = None,
        exc: Optional[BaseException] = None,
        traceback: Optional[TracebackType] = None,
        /,
    ) -> Literal[False]:
        """Closes the log; exceptions go on."""

def open(
    path_or_bytes: _PathOrBytes,
    *,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
    max_bag_expansion: Optional[int] = None,
) -> Log:
    """Opens a log of any format robolog reads."""

def read_table(
    path_or_bytes: _PathOrBytes,
    topic: str,
    columns: Optional[Sequence[str]] = None,
    start: Optional[_Time] = None,
    end: Optional[_Time] = None,
    *,
    flatten: bool = False,
) -> Table: ...
def read_pandas(
    path_or_bytes: _PathOrBytes,
    topic: str,
    columns: Optional[Sequence[str]] = None,
    start: Optional[_Time] = None,
    end: Optional[_Time] = None,
    *,
    flatten: bool = True,
) -> Any: ...

_PathLike = Union[str, "os.PathLike[str]"]

_Duration = Union[int, float, str, datetime.timedelta]
"""A duration: int ns, float s, str ("5s", "-1.5s", "20ms") or a timedelta."""

@dataclass(frozen=True)
class CheckReport:
    """What check found: passed, errors (one line each), report (the JSON dict)."""

    passed: bool
    errors: List[str]
    report: Dict[str, Any]
    def __bool__(self) -> bool: ...

@dataclass(frozen=True)
class ConvertReport:
    """What convert wrote: messages, channels, skipped stretches, warnings."""

    messages: int
    channels: int
    skipped: List[str] = ...
    warnings: List[str] = ...

@dataclass(frozen=True)
class FilteredTopic:
    """One topic of a filter: what was (or would be) written of it."""

    topic: str
    written_as: str
    kept: int
    kept_bytes: int
    dropped: int
    dropped_bytes: int

@dataclass(frozen=True)
class FilterReport:
    """What filter wrote (or would write): messages, channels, topics, skipped stretches, warnings."""

    messages: int
    channels: int
    topics: List[FilteredTopic] = ...
    skipped: List[str] = ...
    warnings: List[str] = ...
    parts: List[str] = ...
    anonymised: List[str] = ...

@dataclass(frozen=True)
class ExportedTable:
    """One CSV file export wrote."""

    name: str
    topic: str
    type: str
    path: str
    rows: int
    columns: int

@dataclass(frozen=True)
class ExportReport:
    """What export wrote: its tables and the problems met."""

    tables: List[ExportedTable]
    problems: List[str]

def check(
    path: _PathLike,
    *,
    profile: Optional[str] = None,
    max_per_rule: int = 20,
    strict_time: bool = False,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
    max_bag_expansion: Optional[int] = None,
) -> CheckReport:
    """Checks a log as `robolog check` does."""

def convert(
    src: _PathLike,
    dst: _PathLike,
    *,
    topics: Optional[Sequence[str]] = None,
    start: Optional[_Time] = None,
    end: Optional[_Time] = None,
    compression: Optional[str] = None,
    chunk_size: int = 1 << 20,
    force: bool = False,
    ros2: bool = False,
    encoding: Optional[str] = None,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
    max_bag_expansion: Optional[int] = None,
) -> ConvertReport:
    """Converts a log to MCAP (.mcap), a ROS 1 bag (.bag) or a ROS 2 bag folder (no extension) as `robolog convert` does."""

def filter(
    src: Union[_PathLike, Sequence[_PathLike]],
    dst: Optional[_PathLike] = None,
    *,
    topics: Optional[Sequence[str]] = None,
    exclude: Optional[Sequence[str]] = None,
    where: Optional[Mapping[str, str]] = None,
    around: Optional[Mapping[str, str]] = None,
    before: Optional[_Duration] = None,
    after: Optional[_Duration] = None,
    start: Optional[_Time] = None,
    end: Optional[_Time] = None,
    shift: Optional[_Duration] = None,
    rename: Optional[Mapping[str, str]] = None,
    force: bool = False,
    dry_run: bool = False,
    split_every: Optional[_Duration] = None,
    split_size: Optional[Union[int, str]] = None,
    config: Optional[_PathLike] = None,
    restamp: Optional[Literal["header"]] = None,
    frame_id: Optional[Mapping[str, str]] = None,
    anonymise: bool = False,
    gps_offset: Optional[Tuple[float, float]] = None,
    drop_text: bool = False,
) -> FilterReport:
    """Cuts, cleans and rewrites logs as `robolog filter` does (messages copied byte for byte)."""

def export(
    src: _PathLike,
    dst: _PathLike,
    *,
    topics: Optional[Sequence[str]] = None,
    force: bool = False,
    max_array_columns: Optional[int] = None,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
    max_bag_expansion: Optional[int] = None,
) -> ExportReport:
    """Writes one CSV file per topic into a folder as `robolog export` does."""

def align(
    logs: Iterable[Union["Log", _PathLike]],
    topics: Union[str, Sequence[str], Dict[str, str]],
    *,
    on: Optional[str] = None,
    rate: Union[None, int, float, str] = None,
    method: Union[None, str, Dict[str, str]] = None,
    tolerance: Union[None, int, float, str, datetime.timedelta] = None,
    start: Optional[_Time] = None,
    end: Optional[_Time] = None,
) -> Table:
    """Log.align of each log, as one Table with a first `log` column; tolerance in ns (int), s (float), str or timedelta."""

def sql(
    query: str,
    paths: Union[_PathLike, Sequence[_PathLike]],
    *,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
    max_bag_expansion: Optional[int] = None,
) -> Table:
    """Answers a read-only SQL query over a set of logs as `robolog sql` does (one table per topic)."""


@final
class Writer:
    """Writes a log message by message: MCAP (``.mcap``), a ROS 1 bag
    (``.bag``) or a ROS 2 bag folder (``format="rosbag2"``). The output
    is renamed into place by ``close()`` or a clean end of a ``with``
    block; an exception leaves nothing. ``compression``: of the chunks,
    ``"zstd"`` (the default), ``"lz4"`` or ``"none"`` for MCAP, ``"lz4"``,
    ``"bz2"`` or ``"none"`` (the default) for a ROS 1 bag; ``chunk_size``:
    the uncompressed bytes of a chunk."""

    def __new__(
        cls,
        path: Union[str, "os.PathLike[str]"],
        format: Optional[str] = None,
        profile: Optional[str] = None,
        compression: Optional[str] = None,
        chunk_size: Optional[int] = None,
        *,
        force: bool = False,
    ) -> "Writer": ...
    def add_channel(
        self,
        topic: str,
        type: str,
        definition: Union[str, bytes, None] = None,
        encoding: Optional[str] = None,
    ) -> int:
        """Declares a topic; its channel id."""
    def write(
        self, topic: str, data: Any, log_time: int, publish_time: Optional[int] = None
    ) -> None:
        """Writes a message: a dict of its fields, or bytes as encoded."""
    def close(self) -> None:
        """Completes the log and renames it into place."""
    def abort(self) -> None:
        """Drops what was written."""
    def __enter__(self) -> "Writer": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]] = None,
        _exc: Optional[BaseException] = None,
        _tb: Optional[TracebackType] = None,
    ) -> bool: ...
    @property
    def path(self) -> str:
        """The output's path."""
    @property
    def closed(self) -> bool:
        """Whether the writer is closed."""
