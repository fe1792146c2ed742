"""Dump rosbags' CDR deserialisation of the corpus bags to JSON.

The reference for the `rosbags_values` test: for every message of every
CDR topic of the corpus bags in `../shared/corpus/rosbag2`, the value
rosbags 0.11.9 (`rosbags.typesys`, typestore ROS2_JAZZY) deserialises
from the message's bytes, written to `expected/<bag>.json`.

Rows are read from the storage itself (Python's sqlite3 module for
`.db3`, `rosbags.rosbag2.Reader`'s storage for `.mcap`), ordered by
timestamp then row id, because rosbags' AnyReader yields nothing for
some of these bags (see the corpus README). Type definitions: the
bag's own (the `message_definitions` table, MCAP schemas) when it
stores them, else those of `test_msgs` that `sqlite3/cdr_test` and
`mcap/rewriter_b` store (the bundled interface copies have no
`test_msgs` types but `Builtins`), the same ones the Rust test adds.

Usage (from the repository root):

    target/interop-venv/bin/python crates/rosbag2/tests/rosbags_dump.py \
        ../shared/corpus/rosbag2 crates/rosbag2/tests/expected
"""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
import sys
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import Reader
from ruamel.yaml import YAML
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import normalize_fieldname

BAGS = [
    'sqlite3/cdr_test',
    'sqlite3/rewriter_a',
    'sqlite3/convert_a',
    'sqlite3/rewriter_b',
    'sqlite3/convert_b',
    'sqlite3/test_bag_for_seek',
    'sqlite3/single-file/topics_and_services.db3',
    'mcap/cdr_test',
    'mcap/rewriter_b',
    'mcap/test_bag_for_seek',
]


def full(name: str) -> str:
    parts = name.split('/')
    return f'{parts[0]}/msg/{parts[1]}' if len(parts) == 2 else name


def db3_of(bag: Path) -> Path:
    return bag if bag.suffix == '.db3' else next(bag.glob('*.db3'))


def sqlite_rows(db: Path):
    con = sqlite3.connect(f'file:{db}?immutable=1', uri=True)
    topics = {
        r[0]: (r[1], r[2], r[3])
        for r in con.execute('SELECT id, name, type, serialization_format FROM topics')
    }
    rows = [
        (topics[t][0], topics[t][1], ts, bytes(d))
        for t, ts, d in con.execute(
            'SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp, id'
        )
    ]
    defs = {}
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if 'message_definitions' in tables:
        for ty, enc, text in con.execute(
            'SELECT topic_type, encoding, encoded_message_definition FROM message_definitions'
        ):
            defs[full(ty)] = (enc, text)
    return rows, defs


def mcap_rows(bag: Path):
    rows = []
    defs = {}
    with Reader(bag) as r:
        for c in r.connections:
            if c.msgdef is not None:
                defs[full(c.msgtype)] = ('ros2msg', c.msgdef.data)
        for c, ts, data in r.messages():
            rows.append((c.topic, c.msgtype, ts, bytes(data)))
    rows.sort(key=lambda x: x[2])
    return rows, defs


def msg_name(ty: str) -> str:
    # rosbags names the types it parses under `pkg/srv/` as
    # `pkg/srv/msg/...`: service types are registered as `pkg/msg/...`
    # (the same CDR layout) and read under that name.
    return full(ty).replace('/srv/', '/msg/')


def register(store, name: str, text: str) -> None:
    name = full(name)
    if '/srv/' in name:
        pkg, _, srv = name.split('/')
        req, _, resp = text.partition('\n---')
        types = {}
        types.update(get_types_from_msg(req, f'{pkg}/msg/{srv}_Request'))
        types.update(get_types_from_msg(resp.lstrip('-\n'), f'{pkg}/msg/{srv}_Response'))
        types.update(
            get_types_from_msg(
                'service_msgs/msg/ServiceEventInfo info\n'
                f'{pkg}/msg/{srv}_Request[<=1] request\n'
                f'{pkg}/msg/{srv}_Response[<=1] response\n',
                f'{pkg}/msg/{srv}_Event',
            )
        )
        store.register(types)
    else:
        store.register(get_types_from_msg(text, name))


def to_json(v, store):
    if dataclasses.is_dataclass(v):
        # The wire fields of the type (constants are class variables).
        return {
            name: to_json(getattr(v, normalize_fieldname(name)), store)
            for name, _ in store.fielddefs[v.__msgtype__][1]
        }
    if isinstance(v, np.ndarray):
        return [to_json(x, store) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [to_json(x, store) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v):
            return 'NaN'
        if math.isinf(v):
            return 'Infinity' if v > 0 else '-Infinity'
        return v
    if isinstance(v, bytes):
        return list(v)
    return v


def dump_metadata(corpus: Path, out: Path) -> None:
    """Every metadata.yaml of the corpus (and the metadata the lone .db3
    keeps) as ruamel.yaml's safe loader reads it, for the YAML tests."""
    docs = {}
    for m in sorted(corpus.glob('*/*/metadata.yaml')):
        docs[str(m.relative_to(corpus))] = (m.read_text(encoding='utf-8'), None)
    db = corpus / 'sqlite3/single-file/topics_and_services.db3'
    con = sqlite3.connect(f'file:{db}?immutable=1', uri=True)
    for i, (text,) in enumerate(con.execute('SELECT metadata FROM metadata ORDER BY id')):
        docs[f'sqlite3/single-file/topics_and_services.db3#metadata{i + 1}'] = (text, text)
    result = {}
    for name, (text, inline) in docs.items():
        loaded = YAML(typ='safe').load(text)
        # The QoS profiles are YAML text in a string: parsed too.
        result[name] = {'text': inline, 'yaml': loaded}
    (out / 'metadata.json').write_text(json.dumps(result, indent=1) + '\n', encoding='utf-8')
    print(f'{len(result)} metadata documents -> {out / "metadata.json"}')


def main() -> None:
    corpus = Path(sys.argv[1])
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    dump_metadata(corpus, out)
    # The test_msgs definitions the corpus bags store.
    fallback = {}
    fallback.update(sqlite_rows(db3_of(corpus / 'sqlite3/cdr_test'))[1])
    fallback.update(mcap_rows(corpus / 'mcap/rewriter_b')[1])
    for name in BAGS:
        bag = corpus / name
        rows, defs = sqlite_rows(db3_of(bag)) if name.startswith('sqlite3') else mcap_rows(bag)
        store = get_typestore(Stores.ROS2_JAZZY)
        for ty in sorted({full(r[1]) for r in rows}):
            own = ty[: -len('_Event')] if ty.endswith('_Event') and '/srv/' in ty else ty
            enc, text = defs.get(own) or fallback[own]
            assert enc == 'ros2msg', (name, ty, enc)
            register(store, own, text)
        messages = []
        for topic, ty, ts, data in rows:
            value = store.deserialize_cdr(data, msg_name(ty))
            messages.append(
                {'topic': topic, 'type': ty, 'timestamp': ts, 'value': to_json(value, store)}
            )
        target = out / (name.replace('/', '__').replace('.db3', '') + '.json')
        target.write_text(
            json.dumps({'bag': name, 'messages': messages}, indent=1) + '\n', encoding='utf-8'
        )
        print(f'{name}: {len(messages)} messages -> {target}')


if __name__ == '__main__':
    main()
