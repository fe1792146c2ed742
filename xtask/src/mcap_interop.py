import json, sys
from mcap.writer import Writer, CompressionType
from mcap.reader import make_reader
mode = sys.argv[1]
if mode == "write":
    out = sys.argv[2]
    for name, comp, chunk in [("none", CompressionType.NONE, 700), ("lz4", CompressionType.LZ4, 700),
                              ("zstd", CompressionType.ZSTD, 700), ("unchunked", CompressionType.NONE, 0)]:
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
else:
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            r = make_reader(f)
            for schema, channel, m in r.iter_messages(log_time_order=False):
                print(json.dumps([path, channel.topic, m.sequence, m.log_time, m.publish_time, list(m.data)]))
