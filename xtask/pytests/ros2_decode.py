"""python mcap 1.6.0 + mcap-ros2-support 0.6.0's side of `cargo xtask ros2
interop`: every message of a rosbag2 MCAP file decoded, or why not.
test_ros2_interop.py runs it; xtask compares the values with ours."""
import math

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

def plain(v):
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "__slots__"):
        return {k: plain(getattr(v, k)) for k in v.__slots__}
    raise TypeError(f"unexpected value {v!r}")

def decode(path):
    """[topic, log_time, "ok", value] for each message of `path` in file
    order, or [topic, log_time, "undecoded", why] where python cannot
    decode it."""
    rows = []
    factory = DecoderFactory()
    decoders = {}
    with open(path, "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages(log_time_order=False):
            head = [channel.topic, message.log_time]
            key = channel.id
            if key not in decoders:
                try:
                    decoders[key] = factory.decoder_for(channel.message_encoding, schema) or \
                        f"no decoder for message encoding {channel.message_encoding!r}"
                except Exception as e:
                    decoders[key] = f"schema rejected: {e!r}"
            d = decoders[key]
            if isinstance(d, str):
                rows.append(head + ["undecoded", d])
                continue
            try:
                value = plain(d(message.data))
            except Exception as e:
                rows.append(head + ["undecoded", f"decoding failed: {e!r}"])
                continue
            rows.append(head + ["ok", value])
    return rows
