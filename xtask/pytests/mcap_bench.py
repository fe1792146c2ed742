"""The inputs of `cargo xtask bench mcap`, written by the peer's writer
(python mcap 1.6.0): 1M messages on 10 channels, payloads of 16-1024
bytes (log-uniform, sensor-like bytes: compressible, not trivially), 1 MiB
chunks. Usage: mcap_bench.py OUT.mcap none|zstd|lz4"""
import random
import sys

from mcap.writer import CompressionType, Writer


def write(path, comp):
    kind = {"none": CompressionType.NONE, "zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4}[comp]
    rng = random.Random(17)
    base = bytes(rng.getrandbits(4) * 17 ^ (i & 0xF) for i in range(1 << 16))
    with open(path, "wb") as f:
        w = Writer(f, chunk_size=1 << 20, compression=kind)
        w.start(profile="", library="python mcap 1.6.0")
        schema = w.register_schema(name="Sample", encoding="jsonschema", data=b"{}")
        channels = [w.register_channel(topic=f"/ch{i}", message_encoding="json", schema_id=schema)
                    for i in range(10)]
        for i in range(1_000_000):
            n = int(16 * 64 ** rng.random())
            at = rng.randrange(0, len(base) - n)
            t = 1_700_000_000_000_000_000 + i * 100_000
            w.add_message(channel_id=channels[i % 10], log_time=t, publish_time=t, sequence=i,
                          data=base[at:at + n])
        w.finish()


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2])
