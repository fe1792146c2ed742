"""Read a bag with rosbags 0.11.9 and dump its deserialised messages.

The reference for the `rosbags_reads_written` test: rosbags'
`rosbags.rosbag2.Reader` opens the bag (its `metadata.yaml`, SQLite or
MCAP storage, zstd file or message compression), the message types are
registered from the definitions the bag stores (the `message_definitions`
table, MCAP schemas), and each message is deserialised by rosbags'
typestore (ROS2_JAZZY plus those definitions). Output: the JSON form of
`rosbags_dump.py` (`{"messages": [{topic, type, timestamp, value}]}`)
plus the metadata rosbags reports: per topic also the type description
hash rosbags reads (`digest`) and rosbags' own RIHS01 hash of the type it
registered from the bag's definition (`rihs01`, `Typestore.hash_rihs01`
with a `.msg` `char` given uint8's field type id 3, as ROS 2 gives it,
and whether rosbags 0.11.9, which gives it 13, hashes the type otherwise;
null for types not registered, service events and topics without
messages).

Usage: python rosbags_read.py OUT.json BAG... (OUT.json: one entry per bag,
by the argument given; a bag rosbags refuses gets `{"error": ...}`; an
argument `meta:BAG` gives only what rosbags reads of the bag's metadata
and topics, without messages, for the source bags).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rosbags.interfaces import MessageDefinitionFormat  # noqa: E402
from rosbags.rosbag2 import Reader  # noqa: E402
from rosbags.typesys import Stores, get_typestore  # noqa: E402
from rosbags.typesys import store as store_module  # noqa: E402
from rosbags_dump import full, msg_name, register, to_json  # noqa: E402


def rihs01(store, ty: str, registered: set) -> list | None:
    """rosbags' hash of a registered message type with `char` as uint8,
    and whether rosbags as shipped (`char` as 13) gives another."""
    if ty not in registered:
        return None
    store_module.TIDMAP['char'] = 13
    stock = store.hash_rihs01(ty)
    store_module.TIDMAP['char'] = 3
    fixed = store.hash_rihs01(ty)
    return [fixed, stock != fixed]


def read(bag: Path, with_messages: bool) -> dict:
    store = get_typestore(Stores.ROS2_JAZZY)
    messages = []
    with Reader(bag) as reader:
        registered = set()
        for c in reader.connections:
            ty = full(c.msgtype)
            own = ty[: -len('_Event')] if ty.endswith('_Event') and '/srv/' in ty else ty
            # Only the types of topics with messages, as rosbags_dump.py
            # does (a stored definition may differ from the typestore's
            # own, e.g. an older rosbag2_interfaces/msg/WriteSplitEvent).
            if own in registered or c.msgcount == 0 or not with_messages:
                continue
            assert c.msgdef.format == MessageDefinitionFormat.MSG, (c.topic, c.msgdef)
            register(store, own, c.msgdef.data)
            registered.add(own)
        for c, ts, data in reader.messages() if with_messages else []:
            value = store.deserialize_cdr(bytes(data), msg_name(c.msgtype))
            messages.append(
                {'topic': c.topic, 'type': c.msgtype, 'timestamp': ts, 'value': to_json(value, store)}
            )
        info = {
            'message_count': reader.message_count,
            'start_time': reader.start_time,
            'end_time': reader.end_time,
            'compression_mode': reader.compression_mode,
            'compression_format': reader.compression_format,
            'ros_distro': reader.ros_distro,
            'custom_data': reader.storage.metadata.custom if hasattr(reader, 'storage') else None,
            'topics': {
                c.topic: {
                    'type': c.msgtype,
                    'count': c.msgcount,
                    'digest': c.digest,
                    'rihs01': rihs01(store, full(c.msgtype), registered),
                    'qos': [
                        {
                            'history': q.history.name,
                            'depth': q.depth,
                            'reliability': q.reliability.name,
                            'durability': q.durability.name,
                            'deadline': [q.deadline.sec, q.deadline.nsec],
                            'lifespan': [q.lifespan.sec, q.lifespan.nsec],
                            'liveliness': q.liveliness.name,
                            'liveliness_lease_duration': [
                                q.liveliness_lease_duration.sec,
                                q.liveliness_lease_duration.nsec,
                            ],
                            'avoid_ros_namespace_conventions': q.avoid_ros_namespace_conventions,
                        }
                        for q in c.ext.offered_qos_profiles
                    ],
                }
                for c in reader.connections
            },
        }
    return {'info': info, 'messages': messages}


def main() -> None:
    out = Path(sys.argv[1])
    result = {}
    for bag in sys.argv[2:]:
        try:
            if bag.startswith('meta:'):
                result[bag] = read(Path(bag[len('meta:') :]), with_messages=False)
            else:
                result[bag] = read(Path(bag), with_messages=True)
        except Exception as e:  # noqa: BLE001 - reported to the test
            result[bag] = {'error': f'{type(e).__name__}: {e}'}
    out.write_text(json.dumps(result, indent=1) + '\n', encoding='utf-8')


if __name__ == '__main__':
    main()
