import json, math, sys
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

for path in sys.argv[1:]:
    factory = DecoderFactory()
    decoders = {}
    with open(path, "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages(log_time_order=False):
            head = [path, channel.topic, message.log_time]
            key = channel.id
            if key not in decoders:
                try:
                    decoders[key] = factory.decoder_for(channel.message_encoding, schema) or \
                        f"no decoder for message encoding {channel.message_encoding!r}"
                except Exception as e:
                    decoders[key] = f"schema rejected: {e!r}"
            d = decoders[key]
            if isinstance(d, str):
                print(json.dumps(head + ["undecoded", d]))
                continue
            try:
                value = plain(d(message.data))
            except Exception as e:
                print(json.dumps(head + ["undecoded", f"decoding failed: {e!r}"]))
                continue
            print(json.dumps(head + ["ok", value]))
