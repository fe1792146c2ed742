"""python mcap 1.6.0's side of `cargo xtask mcap interop`: files it writes
(every compression, chunked and not) and the messages it reads."""
import json

from mcap.reader import make_reader
from mcap.writer import CompressionType, Writer

# (name, compression, chunk size; 0: unchunked) of the files `write` makes.
WRITTEN = [("none", CompressionType.NONE, 700), ("lz4", CompressionType.LZ4, 700),
           ("zstd", CompressionType.ZSTD, 700), ("unchunked", CompressionType.NONE, 0)]


def written_names():
    return [f"py-{name}.mcap" for name, _, _ in WRITTEN]


def write(out):
    """Writes the files of WRITTEN into the folder `out`: 60 messages on
    three channels, some out of time order, an attachment, a metadata
    record."""
    for name, comp, chunk in WRITTEN:
        with open(f"{out}/py-{name}.mcap", "wb") as f:
            w = Writer(f, chunk_size=chunk or 1 << 30, compression=comp, use_chunking=chunk != 0)
            w.start(profile="", library="python mcap interop")
            s = w.register_schema(name="Sample", encoding="jsonschema", data=b"{}")
            chans = [w.register_channel(topic=t, message_encoding="json", schema_id=s, metadata={"k": "v"})
                     for t in ["/a", "/b", "/c"]]
            for i in range(60):
                t = 1000 * i - (2500 if i % 7 == 3 else 0)
                w.add_message(channel_id=chans[i % 3], log_time=t, publish_time=t + 1, sequence=i,
                              data=json.dumps({"i": i}).encode())
            w.add_attachment(create_time=1, log_time=2, name="a.txt", media_type="text/plain", data=b"hi")
            w.add_metadata(name="run", data={"k": "v"})
            w.finish()


def messages(path):
    """[topic, sequence, log_time, publish_time, bytes] of each message of
    `path`, in file order."""
    with open(path, "rb") as f:
        return [[channel.topic, m.sequence, m.log_time, m.publish_time, list(m.data)]
                for _, channel, m in make_reader(f).iter_messages(log_time_order=False)]
