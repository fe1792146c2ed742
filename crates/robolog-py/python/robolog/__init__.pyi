"""Type stubs of the robolog package (see the module's docstring)."""

import datetime
import os
from types import TracebackType
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Type, Union

__version__: str

__all__ = [
    "Channel",
    "CheckReport",
    "ConvertReport",
    "ExportedTable",
    "ExportReport",
    "check",
    "convert",
    "export",
    "FormatError",
    "Log",
    "Message",
    "Messages",
    "Table",
    "UnsupportedError",
    "__version__",
    "open",
    "read_table",
    "read_pandas",
]

PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray]

class FormatError(ValueError):
    """The file is not what its format requires (damaged, cut short, unknown)."""

    offset: Optional[int]
    """The byte offset of the problem, or None."""
    path: Optional[str]
    """The file, or None for a log opened from bytes."""

class UnsupportedError(FormatError):
    """A known format in a version or with a feature this build cannot read."""

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
    def start(self) -> Optional[int]: ...
    @property
    def end(self) -> Optional[int]: ...
    @property
    def metadata(self) -> Dict[str, str]: ...
    @property
    def schema(self) -> Optional[str]: ...
    @property
    def schema_name(self) -> Optional[str]: ...
    @property
    def schema_encoding(self) -> Optional[str]: ...

class Message:
    """One message: topic, log_time (int ns), publish_time, sequence, data."""

    @property
    def topic(self) -> str: ...
    @property
    def log_time(self) -> int: ...
    @property
    def publish_time(self) -> Optional[int]: ...
    @property
    def sequence(self) -> Optional[int]: ...
    @property
    def data(self) -> Any:
        """The decoded message (dict, list, bytes, int, float, str, bool, None),
        or the payload bytes with raw=True."""

class Messages(Iterator[Message]):
    """An iterator over a log's messages in log-time order."""

    def __iter__(self) -> "Messages": ...
    def __next__(self) -> Message: ...

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
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    def to_pyarrow(self) -> Any:
        """A pyarrow.Table (needs pyarrow)."""
    def to_pandas(self) -> Any:
        """A pandas.DataFrame (needs pandas and pyarrow)."""
    def to_polars(self) -> Any:
        """A polars.DataFrame (needs polars)."""
    def __len__(self) -> int: ...

class Log:
    """An opened log (see robolog.open); a context manager."""

    @property
    def format(self) -> str:
        """"rosbag", "ulog", "mcap", "carla-recorder" or "vellog"."""
    @property
    def path(self) -> Optional[str]: ...
    @property
    def closed(self) -> bool: ...
    @property
    def start(self) -> Optional[int]: ...
    @property
    def end(self) -> Optional[int]: ...
    @property
    def duration(self) -> int: ...
    @property
    def message_count(self) -> int: ...
    @property
    def clock(self) -> str: ...
    @property
    def start_datetime(self) -> Optional[datetime.datetime]: ...
    @property
    def end_datetime(self) -> Optional[datetime.datetime]: ...
    @property
    def metadata(self) -> Dict[str, str]: ...
    @property
    def topics(self) -> List[Channel]: ...
    @property
    def problems(self) -> List[str]: ...
    def summary(self) -> Dict[str, Any]: ...
    def messages(
        self,
        topics: Union[None, str, Iterable[str]] = None,
        start: Optional[int] = None,
        end: Optional[int] = None,
        *,
        raw: bool = False,
    ) -> Messages: ...
    def table(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[int] = None,
        end: Optional[int] = None,
    ) -> Table: ...
    def to_pandas(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[int] = None,
        end: Optional[int] = None,
    ) -> Any: ...
    def to_polars(
        self,
        topic: str,
        columns: Optional[Sequence[str]] = None,
        start: Optional[int] = None,
        end: Optional[int] = None,
    ) -> Any: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Log": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

def open(
    path_or_bytes: PathOrBytes,
    *,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
) -> Log:
    """Opens a log of any format robolog reads."""

def read_table(
    path_or_bytes: PathOrBytes,
    topic: str,
    columns: Optional[Sequence[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
) -> Table: ...
def read_pandas(
    path_or_bytes: PathOrBytes,
    topic: str,
    columns: Optional[Sequence[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
) -> Any: ...

PathLike = Union[str, "os.PathLike[str]"]

class CheckReport:
    """What check found: passed, errors (one line each), report (the JSON dict)."""

    passed: bool
    errors: List[str]
    report: Dict[str, Any]
    def __bool__(self) -> bool: ...

class ConvertReport:
    """What convert wrote: messages, channels, skipped stretches, warnings."""

    messages: int
    channels: int
    skipped: List[str]
    warnings: List[str]

class ExportedTable:
    """One CSV file export wrote."""

    name: str
    topic: str
    type: str
    path: str
    rows: int
    columns: int

class ExportReport:
    """What export wrote: its tables and the problems met."""

    tables: List[ExportedTable]
    problems: List[str]

def check(
    path: PathLike,
    *,
    profile: Optional[str] = None,
    max_per_rule: int = 20,
    strict_time: bool = False,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
) -> CheckReport:
    """Checks a log as `robolog check` does."""

def convert(
    src: PathLike,
    dst: PathLike,
    *,
    topics: Optional[Sequence[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
    compression: Optional[str] = None,
    chunk_size: int = 1 << 20,
    force: bool = False,
    ros2: bool = False,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
) -> ConvertReport:
    """Converts a log to MCAP (.mcap) or a ROS 1 bag (.bag) as `robolog convert` does."""

def export(
    src: PathLike,
    dst: PathLike,
    *,
    topics: Optional[Sequence[str]] = None,
    force: bool = False,
    max_array_columns: Optional[int] = None,
    max_chunk_size: Optional[int] = None,
    max_nesting: Optional[int] = None,
) -> ExportReport:
    """Writes one CSV file per topic into a folder as `robolog export` does."""
