"""`cargo xtask rerun`: robolog's protobuf conversions of ULog, CARLA and
VEL logs read by Rerun and Foxglove's published classes, and its ROS 2
MCAP conversions of ROS 1 bags read by Rerun's ROS 2 decoders (see
xtask/src/rerun.rs for the rules).

The manifest: ``rerun`` (the `rerun` program) and ``entries``: ``{"id",
"source", "proto", "json", "rrd"}`` for a protobuf conversion (``json``:
the same log converted to JSON, to compare values with), ``{"id", "kind":
"ros2", "source", "mcap", "rrd"}`` for a ROS 2 one. Each file records what
was found: ``{"source", "kind", "channels", "messages", ...}``.

Rerun's conversions (``rerun mcap convert``, a process per file) run two
at a time beside the tests, which check each file's messages meanwhile."""
import base64
import importlib
import json
import math
import re
import struct
import subprocess
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
import rerun.chunk as rrc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from mcap.reader import make_reader

# Messages compared field by field with the json conversion, per channel.
COMPARED = 200


def ident(name):
    s = re.sub(r"[^A-Za-z0-9]", "_", name)
    return s if s[:1].isalpha() else "f_" + s


def read(path):
    """topic -> (schema, [payload]) of an MCAP file, in file order."""
    out = {}
    with open(path, "rb") as fh:
        for schema, channel, message in make_reader(fh).iter_messages(log_time_order=False):
            out.setdefault(channel.topic, (schema, channel, []))[2].append(message.data)
    return out


def same(j, m, where):
    """Differences between the JSON form j and the protobuf message m."""
    fields = {f.name: f for f in m.DESCRIPTOR.fields}
    time = m.DESCRIPTOR.full_name in ("google.protobuf.Timestamp", "google.protobuf.Duration")
    found = []
    for key, jv in j.items():
        name = {"sec": "seconds", "nsec": "nanos"}.get(key, key) if time else key
        if name not in fields:
            name = ident(key)
        f = fields.get(name)
        if f is None:
            return [f"{where}.{key}: no such field in {m.DESCRIPTOR.full_name}"]
        if jv is None:
            continue
        pv = getattr(m, name)
        if f.is_repeated:
            if len(jv) != len(pv):
                return [f"{where}.{key}: {len(jv)} items in json, {len(pv)} in protobuf"]
            for i, (a, b) in enumerate(zip(jv, pv)):
                found += value(a, b, f, f"{where}.{key}[{i}]")
        else:
            found += value(jv, pv, f, f"{where}.{key}")
        if found:
            return found
    return found


def value(a, b, f, where):
    if f.type == f.TYPE_MESSAGE:
        return same(a, b, where)
    if f.type == f.TYPE_BYTES:
        ok = base64.b64decode(a) == b
    elif f.type in (f.TYPE_DOUBLE, f.TYPE_FLOAT):
        if isinstance(a, str):
            a = float(a.replace("Infinity", "inf"))
        # A float32 of the log is its shortest decimal in json, the
        # float32 itself (widened) in a protobuf double.
        ok = (math.isnan(a) and math.isnan(b)) or a == b or (
            math.isfinite(a) and abs(a) < 3.4e38 and struct.unpack("<f", struct.pack("<f", a))[0] == b)
    else:
        ok = a == b
    return [] if ok else [f"{where}: {a!r} in json, {b!r} in protobuf"]


def message_class(schema):
    """The class of a channel's schema: foxglove-schemas-protobuf's for
    foxglove.*, else one built from the channel's file descriptor set."""
    if schema.name.startswith("foxglove."):
        short = schema.name[len("foxglove."):]
        mod = importlib.import_module(f"foxglove_schemas_protobuf.{short}_pb2")
        return getattr(mod, short), True
    fds = descriptor_pb2.FileDescriptorSet.FromString(schema.data)
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(schema.name)), False


def descriptor_differences(schema, cls):
    """Where our file descriptor set's messages differ from the published classes'."""
    fds = descriptor_pb2.FileDescriptorSet.FromString(schema.data)
    ours = {}
    for f in fds.file:
        def walk(prefix, msgs):
            for m in msgs:
                ours[prefix + m.name] = m
                walk(prefix + m.name + ".", m.nested_type)
        walk(f.package + "." if f.package else "", f.message_type)
    out = []
    seen = set()

    def check(desc):
        if desc.full_name in seen:
            return
        seen.add(desc.full_name)
        mine = ours.get(desc.full_name)
        if mine is None:
            out.append(f"{schema.name}: no {desc.full_name} in the schema")
            return
        theirs = {f.name: f for f in desc.fields}
        for f in mine.field:
            t = theirs.pop(f.name, None)
            if t is None:
                out.append(f"{desc.full_name}.{f.name}: not in the published schema")
                continue
            mine_f = (f.number, f.type, f.label == f.LABEL_REPEATED)
            theirs_f = (t.number, t.type, t.is_repeated)
            if mine_f != theirs_f:
                out.append(f"{desc.full_name}.{f.name}: number/type/repeated {mine_f} vs published {theirs_f}")
            if t.message_type is not None:
                if f.type_name != "." + t.message_type.full_name:
                    out.append(f"{desc.full_name}.{f.name}: type {f.type_name} vs {t.message_type.full_name}")
                check(t.message_type)
            if t.enum_type is not None and f.type_name != "." + t.enum_type.full_name:
                out.append(f"{desc.full_name}.{f.name}: enum {f.type_name} vs {t.enum_type.full_name}")
        for name in theirs:
            out.append(f"{desc.full_name}.{name}: published, missing from the schema")

    check(cls.DESCRIPTOR)
    return out


def rrd_rows(path):
    """entity path -> rows of temporal data in the .rrd."""
    rows = defaultdict(int)
    store = rrc.RrdReader(path).store()
    for chunk in store.stream().to_chunks():
        if not chunk.is_static:
            rows[chunk.entity_path] += chunk.num_rows
    return rows


def rrd_messages(path):
    """entity path -> (rows, how) of the temporal data in the .rrd: rows is
    the most rows any one component of the entity holds (a decoder may
    spread one message over several chunks and archetypes), how is
    "ros2msg" when an archetype of Rerun's own holds it (a type Rerun's
    ROS 2 decoders know), else "ros2_reflection" (the message as a struct
    of the type named by the schema)."""
    per = defaultdict(lambda: defaultdict(int))
    how = {}
    try:
        store = rrc.RrdReader(path).store()
    except ValueError:
        # Nothing was logged (a bag without messages, or no channel Rerun
        # could read): no recording at all.
        return {}
    for chunk in store.stream().to_chunks():
        if chunk.is_static:
            continue
        batch = chunk.to_record_batch()
        for i, field in enumerate(batch.schema):
            if ":" not in field.name:
                continue
            column = batch.column(i)
            per[chunk.entity_path][field.name] += len(column) - column.null_count
            archetype = dict(field.metadata or {}).get(b"rerun:archetype", b"").decode()
            if archetype.startswith("rerun.archetypes."):
                how[chunk.entity_path] = "ros2msg"
            else:
                how.setdefault(chunk.entity_path, "ros2_reflection")
    return {e: (max(c.values()), how[e]) for e, c in per.items()}


def rerun_args(entry):
    """The arguments of `rerun` converting the entry's MCAP file to its .rrd."""
    if entry.get("kind") == "ros2":
        return ["mcap", "convert", "-d", "ros2msg", "-d", "ros2_reflection",
                "--disable-raw-fallback", entry["mcap"], "-o", entry["rrd"]]
    return ["mcap", "convert", "-d", "foxglove", "-d", "protobuf",
            "--disable-raw-fallback", entry["proto"], "-o", entry["rrd"]]


@pytest.fixture(scope="module")
def rerun(manifest):
    """entry id -> the future of its `rerun mcap convert` run, two running
    at a time, in the order of the entries."""
    def convert(entry):
        return subprocess.run([manifest["rerun"], *rerun_args(entry)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {e["id"]: pool.submit(convert, e) for e in manifest["entries"]}


def check_ros2(entry, run):
    """The result of one ROS 2 conversion: every topic an entity holding a
    row for every message, and the decoder Rerun used per type."""
    errors = []
    topics = {}
    with open(entry["mcap"], "rb") as fh:
        summary = make_reader(fh).get_summary()
        counts = summary.statistics.channel_message_counts
        for cid, ch in summary.channels.items():
            name = summary.schemas[ch.schema_id].name
            t = topics.setdefault(ch.topic, [name, 0])
            t[1] += counts.get(cid, 0)
    run = run.result()
    if run.returncode != 0:
        errors.append(f"rerun mcap convert failed: {run.stderr[-2000:]}")
        return {"channels": len(topics), "messages": 0, "decoders": {}, "errors": errors}
    # Rerun says when a schema does not resolve (the channel is then left
    # out, there being no raw fallback) or a message does not decode.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", run.stderr)
    errors += [f"rerun: {line}" for line in plain.splitlines()
               if re.search(r"\b(ERROR|WARN)\b", line) and "Application ID" not in line]
    got = rrd_messages(entry["rrd"])
    decoders = {}
    found = 0
    for topic, (schema, want) in sorted(topics.items()):
        rows, how = got.get("/" + topic.lstrip("/"), (0, None))
        if want and rows != want:
            errors.append(f"{topic} ({schema}): {rows} rows in Rerun, {want} messages")
        if want:
            decoders[schema] = how or "nothing"
        found += rows
    return {"channels": len(topics), "messages": found, "decoders": decoders, "errors": errors}


def check(entry, run):
    """The result of one converted file."""
    if entry.get("kind") == "ros2":
        return check_ros2(entry, run)
    errors = []
    proto, js = read(entry["proto"]), read(entry["json"])
    if sorted(proto) != sorted(js):
        errors.append(f"topics differ: {sorted(set(proto) ^ set(js))}")
    foxglove = compared = 0
    checked_schemas = set()
    for topic, (schema, channel, payloads) in proto.items():
        if schema.encoding != "protobuf" or channel.message_encoding != "protobuf":
            errors.append(f"{topic}: schema {schema.encoding}, messages {channel.message_encoding}")
            continue
        try:
            cls, published = message_class(schema)
        except Exception as e:
            errors.append(f"{topic}: schema {schema.name} does not load: {e}")
            continue
        if published and schema.name not in checked_schemas:
            checked_schemas.add(schema.name)
            errors += descriptor_differences(schema, cls)
        jsons = js.get(topic, (None, None, []))[2]
        if len(jsons) != len(payloads):
            errors.append(f"{topic}: {len(payloads)} protobuf messages, {len(jsons)} json ones")
        for i, data in enumerate(payloads):
            try:
                m = cls.FromString(data)
            except Exception as e:
                errors.append(f"{topic} message {i}: does not decode as {schema.name}: {e}")
                break
            if published:
                foxglove += 1
            if i < COMPARED and i < len(jsons):
                compared += 1
                diff = same(json.loads(jsons[i]), m, f"{topic}[{i}]")
                if diff:
                    errors += diff[:3]
                    break
    run = run.result()
    if run.returncode != 0:
        errors.append(f"rerun mcap convert failed: {run.stderr[-2000:]}")
        return {"channels": len(proto), "messages": 0, "foxglove": foxglove,
                "compared": compared, "errors": errors}
    # Rerun logs a channel it cannot decode as an error and goes on.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", run.stderr)
    errors += [f"rerun: {line}" for line in plain.splitlines() if re.search(r"\bERROR\b", line)]
    rows = rrd_rows(entry["rrd"])
    for topic, (schema, _, payloads) in proto.items():
        got = rows.get("/" + topic.lstrip("/"), 0)
        want = len(payloads)
        if schema.name == "foxglove.FrameTransforms":
            # Rerun's Foxglove decoder makes a row of each transform.
            want = sum(len(json.loads(j)["transforms"]) for j in js.get(topic, (None, None, []))[2])
        if got != want:
            errors.append(f"{topic}: {got} rows in Rerun, {want} wanted ({len(payloads)} messages)")
    return {
        "channels": len(proto),
        "messages": sum(len(p) for _, _, p in proto.values()),
        "foxglove": foxglove,
        "compared": compared,
        "errors": errors,
    }



def test_converted_file(entry, rerun, record):
    result = check(entry, rerun[entry["id"]])
    errors = result.pop("errors")
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)
    record(source=entry["source"], kind=entry.get("kind", "protobuf"), **result)
