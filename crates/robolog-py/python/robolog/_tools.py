"""The command-line tool's jobs as functions: ``check``, ``convert``,
``filter``, ``export`` and ``sql``, with the options and semantics of
``robolog check``, ``robolog convert``, ``robolog filter``, ``robolog
export`` and ``robolog sql``,
returning reports (and answers) instead of exit codes."""

import json
import os
import warnings
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from . import _robolog


@dataclass(frozen=True)
class CheckReport:
    """What ``robolog.check`` found.

    Attributes:
        passed: True when the file has no error (``robolog check`` exits 0).
        errors: one line of text per error.
        report: the report as ``robolog check --json`` prints it (a dict).
    """

    passed: bool
    errors: List[str]
    report: dict

    def __bool__(self):
        return self.passed


@dataclass(frozen=True)
class ConvertReport:
    """What ``robolog.convert`` wrote.

    Attributes:
        messages: messages written.
        channels: channels written.
        skipped: the damaged stretches of the input that were skipped (a
            non-empty list is ``robolog convert``'s exit code 1).
        warnings: what the reader had to work around.
    """

    messages: int
    channels: int
    skipped: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class ExportedTable:
    """One file ``robolog.export`` wrote."""

    name: str
    topic: str
    type: str
    path: str
    rows: int
    columns: int


@dataclass(frozen=True)
class ExportReport:
    """What ``robolog.export`` wrote: its ``tables`` and the ``problems``
    met (damage skipped, messages that did not decode; a non-empty list is
    ``robolog export``'s exit code 1)."""

    tables: List[ExportedTable]
    problems: List[str]


def check(path, *, profile=None, max_per_rule=20, strict_time=False,
          max_chunk_size=None, max_nesting=None, max_bag_expansion=None) -> CheckReport:
    """Checks a log as ``robolog check`` does: an MCAP file against the
    ASAM OSI trace rules (``profile`` ``"osi-3.8"`` or ``"draft"``; an MCAP
    file that is no trace gets the MCAP structural checks), any other log
    (a ROS 2 bag's folder too) by a strict read of every message.

    Returns a ``CheckReport`` (true when the file passed). Raises
    ``FileNotFoundError`` and the like for a file that cannot be read, and
    ``FormatError`` for one of no format robolog knows."""
    passed, errors, report = _robolog.check(
        os.fspath(path), profile=profile, max_per_rule=max_per_rule,
        strict_time=strict_time, max_chunk_size=max_chunk_size,
        max_nesting=max_nesting, max_bag_expansion=max_bag_expansion)
    return CheckReport(passed, errors, json.loads(report))


def convert(src, dst, *, topics: Optional[Sequence[str]] = None, start=None, end=None,
            compression=None, chunk_size=1 << 20, force=False, ros2=False,
            encoding=None, max_chunk_size=None, max_nesting=None,
            max_bag_expansion=None) -> ConvertReport:
    """Converts a log as ``robolog convert`` does: to MCAP when ``dst`` ends
    in ``.mcap`` (ROS bags and ROS 2 bags losslessly, ULog, CARLA and VEL
    logs with Foxglove's views, MCAP re-chunked), to a ROS 1 bag when it
    ends in ``.bag``. ``topics`` selects topics, ``start``/``end`` a time range
    (as ``Log.messages`` takes them: int ns on the log's clock, float
    seconds after the first message, ``"2.5s"``, an ISO 8601 UTC instant,
    a ``datetime`` or a ``timedelta``), ``compression``
    ``"zstd"`` (MCAP default), ``"lz4"`` or ``"none"`` (bag default).
    ``ros2=True`` converts a ROS 1 bag to ROS 2 MCAP (CDR, ROS 2
    definitions) as rosbags-convert maps the types. ``encoding``
    (``"protobuf"``, the default, or ``"json"``) is the message encoding of
    a ULog, CARLA or VEL conversion; other logs keep their own. A ``dst``
    without extension is a ROS 2 bag folder (SQLite storage).

    The output is written to a temporary file and renamed when complete;
    an existing ``dst`` raises ``FileExistsError`` unless ``force``, and
    the input is never written over. A topic the log lacks raises
    ``KeyError``. Ctrl-C raises ``KeyboardInterrupt`` within a fraction of
    a second, and leaves no output."""
    t = list(topics) if topics is not None else None
    messages, channels, skipped, warnings = _robolog.convert(
        os.fspath(src), os.fspath(dst), topics=t, start=start, end=end,
        compression=compression, chunk_size=chunk_size, force=force, ros2=ros2,
        encoding=encoding, max_chunk_size=max_chunk_size, max_nesting=max_nesting,
        max_bag_expansion=max_bag_expansion)
    return ConvertReport(messages, channels, skipped, warnings)


@dataclass(frozen=True)
class FilteredTopic:
    """One topic of a filter: what was (or would be) written of it.

    Attributes:
        topic: the topic in the inputs.
        written_as: its name in the output (after ``rename``).
        kept: messages written; kept_bytes: their payload bytes.
        dropped: messages left out; dropped_bytes: their payload bytes.
    """

    topic: str
    written_as: str
    kept: int
    kept_bytes: int
    dropped: int
    dropped_bytes: int


@dataclass(frozen=True)
class FilterReport:
    """What ``robolog.filter`` wrote (or, with ``dry_run``, would write).

    Attributes:
        messages: messages written (kept, for a dry run).
        channels: channels written (0 for a dry run).
        topics: a ``FilteredTopic`` per topic of the inputs.
        skipped: the damaged stretches of the inputs that were skipped.
        warnings: what the readers had to work around.
        parts: for a split output (``split_every``, ``split_size``), the
            files (or ROS 2 bag folders) written, in order; empty otherwise.
        anonymised: what ``anonymise``, ``gps_offset`` or ``drop_text``
            changed, a line per kind of change (topics and counts; never
            the offset); empty otherwise.
    """

    messages: int
    channels: int
    topics: List[FilteredTopic] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    parts: List[str] = field(default_factory=list)
    anonymised: List[str] = field(default_factory=list)


def _configured(config, topics, exclude, where, around, before, after, start, end, shift, rename,
                split_every, split_size, restamp, frame_id, anonymise, gps_offset, drop_text):
    """``filter``'s arguments with those of the config file ``config``
    added, as ``robolog filter --config`` adds its flags."""
    c = _robolog.filter_config(os.fspath(config))
    topics = c["topics"] + list(topics or []) if (c["topics"] or topics is not None) else None
    exclude = c["exclude"] + list(exclude or []) if (c["exclude"] or exclude is not None) else None
    where = {**c["where"], **dict(where or {})}
    both = dict(c["around"])
    for topic, expr in dict(around or {}).items():
        both[topic] = f"({both[topic]}) OR ({expr})" if topic in both else expr
    rename = {**c["rename"], **dict(rename or {})}
    frame_id = {**c["frame_id"], **dict(frame_id or {})}

    def pick(given, key):
        return c[key] if given is None else given

    return (topics, exclude, where or None, both or None, pick(before, "before"), pick(after, "after"),
            pick(start, "start"), pick(end, "end"), pick(shift, "shift"), rename or None,
            pick(split_every, "split_every"), pick(split_size, "split_size"), pick(restamp, "restamp"),
            frame_id or None, bool(anonymise or c["anonymise"]), pick(gps_offset, "gps_offset"),
            bool(drop_text or c["drop_text"]))


def filter(src, dst=None, *, topics: Optional[Sequence[str]] = None,
           exclude: Optional[Sequence[str]] = None, where=None, around=None,
           before=None, after=None, start=None, end=None, shift=None,
           rename=None, force=False, dry_run=False, split_every=None,
           split_size=None, config=None, restamp=None, frame_id=None,
           anonymise=False, gps_offset=None, drop_text=False) -> FilterReport:
    """Cuts, cleans and rewrites logs as ``robolog filter`` does, with the
    same engine: messages are copied byte for byte into ``dst`` (``.mcap``,
    ``.bag``, or a folder name without extension for a ROS 2 bag).

    ``src`` is a path or a list of paths (merged by log time, as
    ``convert`` merges them). ``topics`` and ``exclude`` take topic
    patterns: names, globs (``*`` within one level, ``**`` across
    levels, ``?``, ``[abc]``) or regular expressions after ``re:``.
    ``where`` is a dict of topic to a SQL boolean expression over its
    table's columns (as ``robolog.sql`` names them:
    ``{"/imu": "linear_acceleration.z > 12"}``): that topic's messages are
    kept where it holds. ``around`` (a dict of the same form) keeps every
    topic only within ``before``/``after`` (durations: int ns, float s,
    ``"5s"``, ``timedelta``) of the messages where it holds.
    ``start``/``end`` take the package's times; ``shift`` moves every
    time; ``rename`` is a dict of old to new topic names (``"/cam/*"`` to
    ``"/camera/*"`` for a prefix). Latched topics keep their last message
    before the cut. ``dry_run=True`` writes nothing and says what would be
    kept.

    ``restamp="header"`` writes each message whose type starts with a
    ``std_msgs/Header`` (ROS 1 or CDR) at its ``header.stamp`` (read from
    its bytes), the others at their log time, the output sorted by those
    times (with bounded memory: sorted runs in temporary files beside
    ``dst`` past 64 MiB); ``shift`` then moves every time. ``frame_id``, a
    dict of old to new frame ids, renames them in the ``header.frame_id``
    of every message whose type starts with a header and in the transforms
    of ``tf2_msgs/TFMessage`` (``header.frame_id``, ``child_frame_id``);
    only the messages it changes are encoded again.

    ``split_every`` (a duration) or ``split_size`` (bytes, or ``"500MB"``,
    ``"1GB"``, ``"64MiB"``) writes the output as parts ``dst_000.mcap``,
    ``dst_001.mcap``, ... (``.bag`` likewise, ROS 2 bag folders
    ``dst_000``, ...) listed in ``FilterReport.parts``: one per interval of
    log time, or a part ending at the first log time after it reached the
    size. Each part is a complete log, and repeats at its start the last
    message of every latched (transient-local) topic before it. Every part
    name is checked before the first is written; with ``force``, the
    parts of an earlier output beyond the last written are removed.

    ``anonymise=True`` prepares a log for sharing: every GPS position
    (``sensor_msgs/NavSatFix``, Foxglove ``LocationFix``, JSON ``lat``/``lon``
    pairs, PX4's GPS, global position, home position and local position
    reference) moves by one random offset per output, written nowhere and
    not reported (``gps_offset=(lat, lon)`` in degrees chooses it; alone it
    moves positions only); a position (0, 0) stays. Vehicle and hardware
    identifiers are left out: ULog ``sys_uuid`` and other ``*_id``/serial
    information (their text replaced by ``*`` wherever else it appears),
    bag ``callerid``s, identifying channel and MCAP metadata and MCAP
    attachments; PX4 hardware parameters (``CAL_*_ID`` device ids,
    ``COM_FLIGHT_UUID``) are zeroed. ``drop_text=True`` leaves out logged text (ULog logged strings,
    ``/rosout`` and other log topics). Only the messages that change are
    encoded again; ``FilterReport.anonymised`` says what changed.

    A ULog file, CARLA recording or VEL log (one ``src``) is filtered into
    its own format, ``dst`` ending in ``.ulg``, ``.log``/``.rec`` or
    ``.vel``: a ULog file keeps its header, formats, information and
    parameters whatever is cut (a message name in ``topics`` selects all
    its instances); a CARLA recording is cut by time only, its first kept
    frame adding the actors alive then. ``shift`` moves ULog times (whole
    microseconds) and VEL times, ``rename`` renames ULog message names,
    and ``split_every``/``split_size`` write parts of all three formats
    (``FilterReport.parts``), each a cut from its start.

    A pattern or topic that names nothing raises ``KeyError`` listing the
    topics; an expression that does not hold raises ``ValueError`` listing
    the columns; an existing ``dst`` raises ``FileExistsError`` unless
    ``force``. The output is written to a temporary file and renamed when
    complete; Ctrl-C leaves no output.

    ``config`` is a TOML file of these options, the one ``robolog filter
    --config`` reads (its schema is in the robolog-cli README): its lists
    and dicts are added to the arguments' (an argument's ``where`` replaces
    the file's for its topic, an argument's ``rename`` of a topic wins, an
    ``around`` of a topic in both holds where either holds), and an
    argument that is not ``None`` replaces the file's single value. A key
    outside the schema or a value of the wrong type raises ``ValueError``
    naming its line; so do the command's output options (``compression``,
    ``chunk_size``, ``storage``), which this function does not take."""
    if config is not None:
        (topics, exclude, where, around, before, after, start, end, shift, rename, split_every,
         split_size, restamp, frame_id, anonymise, gps_offset, drop_text) = _configured(
            config, topics, exclude, where, around, before, after, start, end, shift, rename,
            split_every, split_size, restamp, frame_id, anonymise, gps_offset, drop_text)
    paths = [os.fspath(src)] if isinstance(src, (str, bytes, os.PathLike)) else [os.fspath(p) for p in src]
    messages, channels, skipped, warned, counts, parts, anonymised = _robolog.filter(
        paths, None if dst is None else os.fspath(dst),
        topics=None if topics is None else list(topics),
        exclude=None if exclude is None else list(exclude),
        where=None if where is None else dict(where),
        around=None if around is None else dict(around),
        before=before, after=after, start=start, end=end, shift=shift,
        rename=None if rename is None else dict(rename),
        force=force, dry_run=dry_run, split_every=split_every, split_size=split_size,
        restamp=restamp, frame_id=None if frame_id is None else dict(frame_id),
        anonymise=anonymise, gps_offset=None if gps_offset is None else tuple(gps_offset),
        drop_text=drop_text)
    return FilterReport(messages, channels, [FilteredTopic(*c) for c in counts], skipped, warned,
                        [p for p, _ in parts], anonymised)


def export(src, dst, *, topics: Optional[Sequence[str]] = None, force=False,
           max_array_columns=None, max_chunk_size=None, max_nesting=None,
           max_bag_expansion=None) -> ExportReport:
    """Writes one CSV file per topic of a log into the folder ``dst``, as
    ``robolog export`` does (a ULog file exactly as pyulog's ``ulog2csv``
    writes it). Existing files raise ``FileExistsError`` unless ``force``;
    a topic the log lacks raises ``KeyError``. Ctrl-C raises
    ``KeyboardInterrupt`` within a fraction of a second, and leaves no new
    file (nor the folder, when the export made it); so does an input
    changed while it is read (``OSError``)."""
    t = list(topics) if topics is not None else None
    folder = os.fspath(dst)
    before = _entries(folder)
    try:
        tables, problems = _robolog.export(
            os.fspath(src), folder, topics=t, force=force,
            max_array_columns=max_array_columns, max_chunk_size=max_chunk_size,
            max_nesting=max_nesting, max_bag_expansion=max_bag_expansion)
    except KeyboardInterrupt:
        _remove_new(folder, before)
        raise
    except OSError as e:
        # The input truncated or overwritten while it was read: what was
        # written is not the file's.
        if "changed while being read" in str(e):
            _remove_new(folder, before)
        raise
    return ExportReport([ExportedTable(*row) for row in tables], problems)


def _entries(folder):
    """The names in ``folder``, or None when there is no such folder."""
    try:
        return set(os.listdir(folder))
    except OSError:
        return None


def _remove_new(folder, before):
    """After an interrupted export: removes the files of ``folder`` that
    were not there before (files a ULog export had completed), and the
    folder when the export made it and it is empty now. Unfinished files
    are removed by the export itself."""
    now = _entries(folder)
    if now is None:
        return
    for name in now - (before or set()):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            try:
                os.remove(path)
            except OSError:
                pass
    if before is None:
        try:
            os.rmdir(folder)
        except OSError:
            pass


def sql(query: str, paths, *, max_chunk_size=None, max_nesting=None,
        max_bag_expansion=None):
    """Answers a SQL query over a set of logs as ``robolog sql`` does, and
    returns the answer as a ``robolog.Table`` (the Arrow PyCapsule
    interface: ``pyarrow.table(t)``, ``t.to_pandas()``, ``t.to_polars()``).

    ``paths`` is a log or a folder, or a list of them; folders are searched
    recursively for logs of every format. Each topic (ULog: each message)
    is a table named after it (``/imu/data`` is ``imu_data``) with the rows
    of every log, a ``log`` column first naming the log; the table ``logs``
    has one row per log. A table's logs are opened only when the query
    reads it, and time filters on ``log_time`` are pushed into the scans.
    ``robolog sql --schema PATH`` (or ``SELECT * FROM
    information_schema.columns``) lists the tables and columns.

    SQL over logs only reads: any statement other than a query raises
    ``QueryError`` before a log is opened, as does a query that does not
    parse or plan. A log that cannot be opened raises ``FormatError`` or
    ``OSError`` naming it. Messages that did not decode are rows with null
    message columns; they and what the readers worked around are listed in
    the table's ``problems`` and issued as ``RuntimeWarning``s (the
    command's exit code 1)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    table = _robolog.sql(query, [os.fspath(p) for p in paths],
                         max_chunk_size=max_chunk_size, max_nesting=max_nesting,
                         max_bag_expansion=max_bag_expansion)
    for problem in table.problems:
        warnings.warn(f"robolog.sql: {problem}", RuntimeWarning, stacklevel=2)
    return table
