"""The reading side of `cargo xtask osi interop` (test_osi_interop.py):
MCAP files read by asam-osi-utilities 0.4.0 and osi-python 3.8.0, as
JSON-ready objects xtask compares with its own reading."""
import hashlib
from pathlib import Path


def sha(b):
    return hashlib.sha256(b).hexdigest()


def read(path):
    """What asam-osi-utilities' MultiTraceReader (both decoder modes) and
    osi-python's OSITrace read in the MCAP file `path`: a "file" object,
    then a "message" object per message. Any error of the readers raises."""
    from mcap.reader import make_reader
    from osi_utilities import MultiTraceReader, ReadStatus
    from osi3trace.osi_trace import OSITrace

    lines = []
    # Raw records, for the times and the bytes the reader API hides.
    with open(path, "rb") as f:
        raw_reader = make_reader(f)
        header = raw_reader.get_header()
        summary = raw_reader.get_summary()
        raw = [(s, c, m) for s, c, m in raw_reader.iter_messages()]
        records = [{"name": m.name, "data": dict(m.metadata)} for m in raw_reader.iter_metadata()]
    decoded = {}
    for mode in ["precompiled", "mcap-contained"]:
        r = MultiTraceReader(decoder_mode=mode, skip_incompatible_messages=False,
                             log_incompatible_messages=False)
        if not r.open(Path(path)):
            raise RuntimeError(f"{path}: MultiTraceReader.open failed")
        got = []
        while True:
            res = r.read_message()
            if res is None:
                break
            if res.status == ReadStatus.ERROR:
                raise RuntimeError(f"{path}: {mode}: {res.error_message}")
            got.append(res)
        if mode == "precompiled":
            specs = {s.topic: s for s in r.list_channel_specifications()}
            file_meta = r.get_file_metadata()
            channel_meta = {t: r.get_channel_metadata(t) for t in r.get_available_topics()}
        r.close()
        if len(got) != len(raw):
            raise RuntimeError(f"{path}: {mode}: {len(got)} results for {len(raw)} messages")
        decoded[mode] = got
    trace_meta = [e["data"] for e in file_meta if e["name"] == "net.asam.osi.trace"]
    channels = {}
    for c in (summary.channels.values() if summary else []):
        s = summary.schemas.get(c.schema_id)
        info = {"schema": s.name if s else None, "message_encoding": c.message_encoding,
                "metadata": channel_meta.get(c.topic) or {}, "osi": c.topic in specs,
                "osi3trace_messages": None}
        if c.topic in specs:
            # osi-python's reader, as a second opinion on the count.
            t = OSITrace(path, type_name=s.name[len("osi3."):], topic=c.topic)
            info["osi3trace_messages"] = sum(1 for _ in t)
            t.close()
        channels[c.topic] = info
    lines.append({"kind": "file", "path": path, "library": header.library, "profile": header.profile,
                  "metadata_records": records,
                  "file_metadata": trace_meta[0] if len(trace_meta) == 1 else None,
                  "channels": channels})
    for (schema, channel, m), pre, con in zip(raw, decoded["precompiled"], decoded["mcap-contained"]):
        line = {"kind": "message", "path": path, "topic": channel.topic,
                "schema": schema.name if schema else None, "log_time": m.log_time,
                "publish_time": m.publish_time, "sequence": m.sequence, "raw_sha256": sha(m.data),
                "osi": pre.status == ReadStatus.OK, "data_sha256": None, "contained_sha256": None,
                "seconds": None, "nanos": None}
        if pre.status == ReadStatus.OK:
            if pre.channel_name != channel.topic:
                raise RuntimeError(f"{path}: reader order differs from the raw order")
            msg = pre.message
            line["data_sha256"] = sha(msg.SerializeToString())
            if con.status == ReadStatus.OK:
                line["contained_sha256"] = sha(con.message.SerializeToString())
            if "timestamp" in msg.DESCRIPTOR.fields_by_name and msg.HasField("timestamp"):
                line["seconds"], line["nanos"] = msg.timestamp.seconds, msg.timestamp.nanos
        lines.append(line)
    return lines
