"""`cargo xtask foxglove`: the ULog, CARLA and VEL files of testdata/ and
the corpus, converted to MCAP (JSON) by robolog, read with python mcap
and validated with jsonschema (see xtask/src/foxglove.rs for the rules).

The manifest: ``vendored`` (the folder of the vendored @foxglove/schemas
JSON Schemas) and ``entries``: ``{"id", "mcap", "source", "kind",
"expected"}``, ``expected`` mapping each output topic to the message
count, first and last log time robolog info gives its input channel. Each
file records ``{"input_channels", "derived_channels"}``."""
import json
import math
from pathlib import Path

import jsonschema
import pytest
from jsonschema import validators
from mcap.reader import make_reader

def number_or_non_finite(checker, v):
    if v in ("NaN", "Infinity", "-Infinity"):
        return True
    return jsonschema.Draft202012Validator.TYPE_CHECKER.is_type(v, "number")

Generated = validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("number", number_or_non_finite),
)

SIMPLE = ("boolean", "string", "number", "integer")

def foxglove_readable(schema, path):
    """What Foxglove's JSON Schema parser refuses in a generated schema: a
    property without one simple type, an array of arrays, an encoded string
    in an array."""
    if schema.get("type") != "object":
        return [f"{path}: not an object"]
    found = []
    for name, prop in schema.get("properties", {}).items():
        where = f"{path}.{name}"
        kind = prop.get("type")
        if kind == "object":
            found += foxglove_readable(prop, where)
        elif kind == "array":
            items = prop.get("items", {})
            if items.get("type") == "object":
                found += foxglove_readable(items, where + "[]")
            elif items.get("type") not in SIMPLE:
                found.append(f"{where}: array of {items.get('type')}")
            elif "contentEncoding" in items:
                found.append(f"{where}: array of encoded strings")
        elif kind not in SIMPLE:
            found.append(f"{where}: type {kind}")
    return found

def pyulog_fixes(source, name, multi):
    from pyulog import ULog
    u = ULog(source)
    for d in u.data_list:
        if d.name == name and d.multi_id == multi:
            f = d.data
            out = []
            for i in range(len(f["timestamp"])):
                if "latitude_deg" in f and "longitude_deg" in f:
                    lat, lon = float(f["latitude_deg"][i]), float(f["longitude_deg"][i])
                    alt = float(f["altitude_msl_m"][i]) if "altitude_msl_m" in f else 0.0
                elif "lat" in f and "lon" in f:
                    lat = float(f["lat"][i]) * 1e-7
                    lon = float(f["lon"][i]) * 1e-7
                    alt = float(f["alt"][i]) * 1e-3 if "alt" in f else 0.0
                else:
                    continue
                if all(math.isfinite(x) for x in (lat, lon, alt)):
                    out.append((int(f["timestamp"][i]), lat, lon, alt))
            return out
    return []

def test_converted_file(entry, manifest, record):
    vendored_dir = Path(manifest["vendored"])
    channels, errors, invalid = {}, [], 0
    validators_by_schema = {}
    fixes = {}
    with open(entry["mcap"], "rb") as fh:
        reader = make_reader(fh)
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            c = channels.setdefault(channel.topic, {"schema": schema.name if schema else "", "count": 0,
                                                    "start": None, "end": None})
            c["count"] += 1
            t = message.log_time
            c["start"] = t if c["start"] is None else min(c["start"], t)
            c["end"] = t if c["end"] is None else max(c["end"], t)
            if schema.id not in validators_by_schema:
                own = json.loads(schema.data)
                if schema.name.startswith("foxglove."):
                    path = vendored_dir / (schema.name[len("foxglove."):] + ".json")
                    vendored = json.loads(path.read_text())
                    if own != vendored:
                        errors.append(f"{channel.topic}: schema {schema.name} is not the vendored text")
                    validators_by_schema[schema.id] = jsonschema.Draft202012Validator(vendored)
                else:
                    Generated.check_schema(own)
                    errors.extend(f"{channel.topic}: Foxglove cannot read {e}"
                                  for e in foxglove_readable(own, schema.name))
                    validators_by_schema[schema.id] = Generated(own)
            value = json.loads(message.data)
            v = validators_by_schema[schema.id]
            if not v.is_valid(value):
                invalid += 1
                if invalid <= 5:
                    e = jsonschema.exceptions.best_match(v.iter_errors(value))
                    errors.append(f"{channel.topic} at {t}: {e.message} at {list(e.absolute_path)}")
            if entry["kind"] == "ulog" and channel.topic.startswith("location_fix/"):
                fixes.setdefault(channel.topic, []).append(
                    (value["timestamp"]["sec"] * 1000000 + value["timestamp"]["nsec"] // 1000,
                     value["latitude"], value["longitude"], value["altitude"]))
    if invalid:
        errors.append(f"{invalid} messages do not match their schema")
    for topic, got in fixes.items():
        _, name, multi = topic.split("/")
        want = pyulog_fixes(entry["source"], name, int(multi))
        if got != want:
            errors.append(f"{topic}: {len(got)} fixes differ from pyulog's {len(want)} scaled samples"
                          f" (first: {got[:1]} vs {want[:1]})")
    # Each input channel's count and time range, as robolog info gives them.
    for topic, (count, start, end) in entry["expected"].items():
        c = channels.get(topic, {"count": 0, "start": None, "end": None})
        if c["count"] != count:
            errors.append(f"{topic}: {c['count']} messages written, robolog info counts {count}")
        elif count > 0 and (c["start"], c["end"]) != (start, end):
            errors.append(f"{topic}: time range {c['start']}..{c['end']} written, "
                          f"robolog info gives {start}..{end}")
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)
    record(source=entry["source"], input_channels=len(entry["expected"]),
           derived_channels=len(set(channels) - set(entry["expected"])))
