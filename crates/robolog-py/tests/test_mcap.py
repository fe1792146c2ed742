"""MCAP files against python mcap 1.6.0 and its decoders
(mcap-ros1-support 0.9.0, mcap-ros2-support 0.6.0, mcap-protobuf-support
0.6.0):

- every message of Log.messages equals python's decoding of it (ROS 2
  CDR, protobuf, JSON; ROS 1 in MCAP files robolog.convert writes from
  the testdata and corpus bags), or its payload bytes where python has no
  decoder for the channel either;
- Log.mcap (header, schemas, channels, attachments, metadata records)
  equals the records python's StreamReader reads, for every MCAP file of
  testdata and the corpus (the conformance suite's included).

Messages are matched by (topic, log time, occurrence among the messages
of that topic and time): python's log-time order may break ties
differently.
"""

import json
from collections import defaultdict

import pytest

import robolog
from _corpus import BAGS, STATS, TESTDATA, corpus_files, file_id
from _values import differs

mcap_reader = pytest.importorskip("mcap.reader")
stream_reader = pytest.importorskip("mcap.stream_reader")
mcap_records = pytest.importorskip("mcap.records")
ros1 = pytest.importorskip("mcap_ros1.decoder")
ros2 = pytest.importorskip("mcap_ros2.decoder")
protobuf = pytest.importorskip("mcap_protobuf.decoder")

DECODED = (
    sorted((TESTDATA / "mcap").glob("*.mcap"))
    + sorted((TESTDATA / "osi").glob("*.mcap"))
    + corpus_files("ros2-mcap", "*.mcap")
    + corpus_files("rosbag2", "*.mcap")
    + corpus_files("osi-mcap", "*.mcap")
)
CONFORMANCE = corpus_files("mcap-conformance", "*.mcap")


def plain_ros(v):
    """A genpy (ROS 1) or mcap-ros2 value as dicts, lists and numbers;
    times and durations (ROS 1's, ROS 2's builtin_interfaces) as int
    nanoseconds, as Log.messages gives them."""
    if hasattr(v, "secs") and hasattr(v, "nsecs"):
        return v.secs * 1_000_000_000 + v.nsecs
    if type(v).__name__ in ("Time", "Duration") and list(getattr(v, "__slots__", ())) == [
        "sec",
        "nanosec",
    ]:
        return v.sec * 1_000_000_000 + v.nanosec
    if hasattr(v, "__slots__") and not isinstance(v, (bytes, str)):
        return {k: plain_ros(getattr(v, k)) for k in v.__slots__}
    if isinstance(v, (list, tuple)):
        return [plain_ros(x) for x in v]
    return v


def plain_protobuf(m):
    """A protobuf message as a dict of its set fields (enums by name)."""
    out = {}
    for fd, v in m.ListFields():
        repeated = fd.is_repeated if hasattr(fd, "is_repeated") else fd.label == fd.LABEL_REPEATED
        entry = fd.message_type is not None and fd.message_type.GetOptions().map_entry
        if entry:
            value_fd = fd.message_type.fields_by_name["value"]
            out[fd.name] = {
                str(k).lower() if isinstance(k, bool) else str(k): _pb_single(value_fd, v[k])
                for k in sorted(v)
            }
        elif repeated:
            out[fd.name] = [_pb_single(fd, x) for x in v]
        else:
            out[fd.name] = _pb_single(fd, v)
    return out


def _pb_single(fd, v):
    if fd.type == fd.TYPE_MESSAGE:
        return plain_protobuf(v)
    if fd.type == fd.TYPE_ENUM:
        named = fd.enum_type.values_by_number.get(v)
        return named.name if named is not None else v
    return v


# Messages compared per file at most (every message up to the log time of
# the last of them): python's protobuf decoding of a large OSI trace takes
# a minute for values the first messages already exercise.
LIMIT = 400


def python_messages(path):
    """python mcap's messages of `path` up to LIMIT (and every other one at
    the same log time): ({(topic, log_time): [(kind, value)]}, the last log
    time read or None for the whole file); kind "ros1", "ros2", "protobuf",
    "json", "raw" (no decoder: the payload), or "undecoded" (python's
    decoder refused it: why)."""
    factories = {
        "ros1": ros1.DecoderFactory(),
        "cdr": ros2.DecoderFactory(),
        "protobuf": protobuf.DecoderFactory(),
    }
    decoders = {}
    out = defaultdict(list)
    with open(path, "rb") as f:
        reader = mcap_reader.make_reader(f)
        read, last = 0, None
        for schema, channel, message in reader.iter_messages(log_time_order=True):
            if last is not None and message.log_time != last:
                break
            read += 1
            if read == LIMIT:
                last = message.log_time
            if channel.id not in decoders:
                enc = channel.message_encoding
                if enc == "json":
                    decoders[channel.id] = ("json", lambda b: json.loads(b))
                elif enc in factories:
                    try:
                        d = factories[enc].decoder_for(enc, schema)
                        decoders[channel.id] = (enc, d) if d else ("raw", None)
                    except Exception as e:  # a schema python's parser rejects
                        decoders[channel.id] = ("undecoded", repr(e))
                else:
                    decoders[channel.id] = ("raw", None)
            kind, d = decoders[channel.id]
            if kind == "raw":
                value = bytes(message.data)
            elif kind == "undecoded":
                value = d
            else:
                try:
                    value = d(message.data)
                except Exception as e:
                    kind, value = "undecoded", repr(e)
            if kind in ("ros1", "cdr"):
                value = plain_ros(value)
            elif kind == "protobuf":
                value = plain_protobuf(value)
            out[(channel.topic, message.log_time)].append((kind, value))
    return out, last


def compare_messages(path):
    """Asserts Log.messages of `path` equals python's values; returns
    (messages compared, messages python could not decode)."""
    theirs, last = python_messages(path)
    seen = defaultdict(int)
    compared = undecoded = 0
    with robolog.open(path) as log:
        assert log.format == "mcap"
        for m in log.messages():
            if last is not None and m.log_time > last:
                break
            key = (m.topic, m.log_time)
            i = seen[key]
            seen[key] += 1
            where = f"{file_id(path)}: {m.topic} at {m.log_time} #{i}"
            assert i < len(theirs.get(key, [])), f"{where}: not read by python mcap"
            kind, value = theirs[key][i]
            if kind == "undecoded":
                undecoded += 1
                continue
            if kind == "raw":
                assert isinstance(m.data, bytes), f"{where}: python has no decoder, we decode it"
                assert m.data == value, f"{where}: payload bytes differ"
            else:
                assert not isinstance(m.data, bytes), (
                    f"{where}: python decodes it ({kind}), we give its bytes: {log.problems}"
                )
                d = differs(m.data, value, where, ordered=kind != "protobuf")
                assert d is None, d
            compared += 1
        total = sum(len(v) for v in theirs.values())
        assert sum(seen.values()) == total, f"{sum(seen.values())} messages, python mcap {total}"
    return compared, undecoded


@pytest.mark.parametrize("path", DECODED, ids=file_id)
def test_messages_equal_python_mcap(path):
    compared, undecoded = compare_messages(path)
    STATS["MCAP messages compared with python mcap"] += compared
    STATS["MCAP messages python mcap could not decode (not compared)"] += undecoded


ROS1_SOURCES = sorted((TESTDATA / "rosbag").glob("sample*.bag")) + BAGS


@pytest.mark.parametrize("bag", ROS1_SOURCES, ids=file_id)
def test_ros1_mcap_messages_equal_mcap_ros1(bag, tmp_path):
    out = tmp_path / "converted.mcap"
    robolog.convert(bag, out)
    compared, undecoded = compare_messages(out)
    assert undecoded == 0
    STATS["ROS 1 MCAP messages compared with mcap-ros1-support"] += compared


def stream_records(path):
    """Header, schemas and channels (first of each id), attachments and
    metadata records as python's StreamReader reads them."""
    header = None
    schemas, channels, attachments, metadata = {}, {}, [], []
    with open(path, "rb") as f:
        for r in stream_reader.StreamReader(f).records:
            if isinstance(r, mcap_records.Header):
                header = r
            elif isinstance(r, mcap_records.Schema):
                schemas.setdefault(r.id, r)
            elif isinstance(r, mcap_records.Channel):
                channels.setdefault(r.id, r)
            elif isinstance(r, mcap_records.Attachment):
                attachments.append(r)
            elif isinstance(r, mcap_records.Metadata):
                metadata.append(r)
    return header, schemas, channels, attachments, metadata


@pytest.mark.parametrize("path", DECODED + CONFORMANCE, ids=file_id)
def test_mcap_view_equals_python_records(path):
    try:
        header, schemas, channels, attachments, metadata = stream_records(path)
    except Exception as e:
        pytest.skip(f"python mcap cannot read it: {e!r}")
    with robolog.open(path) as log:
        view = log.mcap
        assert view is not None and log.ulog is None and log.bag is None and log.carla is None
        assert (view.profile, view.library) == (header.profile, header.library)
        got = [(s.id, s.name, s.encoding, s.data) for s in view.schemas]
        want = [(s.id, s.name, s.encoding, bytes(s.data)) for _, s in sorted(schemas.items())]
        assert got == want
        got = [(c.id, c.schema_id, c.topic, c.message_encoding, c.metadata) for c in view.channels]
        want = [
            (c.id, c.schema_id, c.topic, c.message_encoding, dict(c.metadata))
            for _, c in sorted(channels.items())
        ]
        assert got == want
        got = [(a.name, a.media_type, a.log_time, a.create_time, a.data) for a in view.attachments]
        want = [(a.name, a.media_type, a.log_time, a.create_time, bytes(a.data)) for a in attachments]
        assert got == want
        got = [(m.name, m.metadata) for m in view.metadata]
        assert got == [(m.name, dict(m.metadata)) for m in metadata]
    STATS["MCAP files whose view equals python mcap's records"] += 1
    STATS["MCAP attachments and metadata records compared"] += len(attachments) + len(metadata)


def test_the_mcap_files_are_there():
    assert DECODED
