"""Prints, as JSON, every message type of rosbags' ROS 2 humble and jazzy
stores: its fields and constants as rosbags' type store has them, and a
message of the type that rosbags 0.11.9 serialises to CDR, with the
values rosbags gives it.

Output: ``{"humble": {type: entry}, "jazzy": {type: entry}}``, where
``entry`` is

- ``fields``: ``[[name, type], ...]`` in wire order, ``type`` written as
  in a ``.msg`` file with the canonical ``pkg/Type`` name of a message
  type: ``float64[9]``, ``string<=8[]``, ``pkg/Type[<=1]``;
- ``constants``: ``[[name, type, value], ...]``;
- ``cdr``: the little-endian CDR bytes (with their encapsulation
  header) of one message, in hexadecimal;
- ``value``: that message as JSON (nested messages as objects in field
  order, arrays as lists).

Every field gets a value that is not its default, from one counter that
walks the message: numbers with their sign or high bits set, strings
within their bounds, fixed arrays at their length, unbounded sequences
of 2 elements (bounded ones of at most their bound), nested messages
filled the same way. The values depend only on the type, so the output
is the same on every run.

rosbags' stores hold no services: the request and response of every
service of the bundled store texts (``argv[1]``: the crate's
``interfaces`` folder, ``humble.txt`` and ``jazzy.txt``) are added as
``pkg/srv/Srv_Request`` and ``pkg/srv/Srv_Response``, parsed by rosbags'
``get_types_from_msg`` against the distro's store.

Used by the ``rosbags_types`` test (``rosbags_types.rs``), run once for
both stores:

    target/interop-venv/bin/python crates/rosbag2/tests/rosbags_types.py \
        crates/rosbag2/interfaces
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from rosbags.interfaces import Nodetype
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import normalize_fieldname

DTYPES = {
    'bool': np.bool_,
    'byte': np.uint8,
    'char': np.uint8,
    'int8': np.int8,
    'uint8': np.uint8,
    'int16': np.int16,
    'uint16': np.uint16,
    'int32': np.int32,
    'uint32': np.uint32,
    'int64': np.int64,
    'uint64': np.uint64,
    'float32': np.float32,
    'float64': np.float64,
}


def canonical(name: str) -> str:
    parts = name.split('/')
    if len(parts) == 3:
        return f'{parts[0]}/{parts[2]}'
    return name


def type_text(desc) -> str:
    kind, rest = desc
    if kind == Nodetype.BASE:
        base, bound = rest
        return f'{base}<={bound}' if bound else base
    if kind == Nodetype.NAME:
        return canonical(rest)
    inner, n = rest
    if kind == Nodetype.ARRAY:
        return f'{type_text(inner)}[{n}]'
    if kind == Nodetype.SEQUENCE:
        return f'{type_text(inner)}[<={n}]' if n else f'{type_text(inner)}[]'
    raise ValueError(f'unknown node type {kind}')


class Filler:
    """Makes the values of one message from a running counter."""

    def __init__(self, store):
        self.store = store
        self.n = 0

    def base(self, name: str, bound: int):
        self.n += 1
        n = self.n
        if name == 'bool':
            return n % 3 != 0
        if name in ('byte', 'char'):
            return 64 + n % 60
        if name == 'int8':
            return -(n % 120) - 1
        if name == 'uint8':
            return 130 + n % 120
        if name == 'int16':
            return -1000 - n
        if name == 'uint16':
            return 40000 + n
        if name == 'int32':
            return -100000 - n
        if name == 'uint32':
            return 3000000000 + n
        if name == 'int64':
            return -(1 << 40) - n
        if name == 'uint64':
            return (1 << 63) + n
        if name in ('float32', 'float64'):
            return n + 0.25 if n % 2 else -n - 0.5
        if name in ('string', 'wstring'):
            text = f'v{n}-é'
            return text[:bound] if bound else text
        raise ValueError(f'unknown base type {name}')

    def value(self, desc):
        kind, rest = desc
        if kind == Nodetype.BASE:
            return self.base(*rest)
        if kind == Nodetype.NAME:
            return self.message(rest)
        inner, n = rest
        count = n if kind == Nodetype.ARRAY else min(2, n) if n else 2
        items = [self.value(inner) for _ in range(count)]
        if inner[0] == Nodetype.BASE and inner[1][0] in DTYPES:
            return np.array(items, dtype=DTYPES[inner[1][0]])
        return items

    def message(self, name: str):
        cls = self.store.types[name]
        fields = self.store.fielddefs[name][1]
        return cls(**{normalize_fieldname(f): self.value(d) for f, d in fields})


def to_json(v, store):
    if hasattr(v, '__msgtype__'):
        return {
            name: to_json(getattr(v, normalize_fieldname(name)), store)
            for name, _ in store.fielddefs[v.__msgtype__][1]
        }
    if isinstance(v, np.ndarray):
        return [to_json(x, store) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [to_json(x, store) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def entry(store, name: str) -> dict:
    consts, fields = store.fielddefs[name]
    msg = Filler(store).message(name)
    return {
        'fields': [[f, type_text(d)] for f, d in fields],
        'constants': [[c, t, v] for c, t, v in consts],
        'cdr': bytes(store.serialize_cdr(msg, name)).hex(),
        'value': to_json(msg, store),
    }


def add_services(store, text: str) -> list[str]:
    """Registers the request and response of every ``SRV:`` section of a
    bundled store text (rosbags' stores hold no services); their names,
    ``pkg/srv/Srv_Request`` with the name rosbags knows them by."""
    names = []
    for section in text.split('=' * 80 + '\n'):
        head, _, body = section.partition('\n')
        if not head.startswith('SRV: '):
            continue
        name = head[len('SRV: ') :].strip()
        lines = body.splitlines(keepends=True)
        cut = next(i for i, line in enumerate(lines) if line.strip() == '---')
        pkg, _, srv = name.split('/')
        for suffix, part in (('_Request', lines[:cut]), ('_Response', lines[cut + 1 :])):
            # rosbags names a type `pkg/msg/Type`; the canonical name
            # `pkg/Srv_Request` is the same either way.
            msg_name = f'{pkg}/msg/{srv}{suffix}'
            store.register(get_types_from_msg(''.join(part), msg_name))
            names.append((name + suffix, msg_name))
    return names


def main() -> None:
    interfaces = Path(sys.argv[1])
    out = {}
    for distro, which in (('humble', Stores.ROS2_HUMBLE), ('jazzy', Stores.ROS2_JAZZY)):
        store = get_typestore(which)
        names = [(name, name) for name in sorted(store.fielddefs)]
        names += add_services(store, (interfaces / f'{distro}.txt').read_text())
        out[distro] = {name: entry(store, msg_name) for name, msg_name in names}
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
