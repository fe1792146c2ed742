"""Prints, as JSON, rosbags' RIHS01 hash of every message type of its
ROS 2 store named by argv[1] (``ROS2_JAZZY``, ``ROS2_HUMBLE``):
``{"stock": {type: hash}, "char_as_uint8": {type: hash}}``.

``stock`` is ``Typestore.hash_rihs01`` as rosbags 0.11.9 ships it.
``char_as_uint8`` is the same function with the field type id of a
``.msg`` ``char`` set to 3 (uint8), the id ROS 2's own generator gives
it (rosidl turns a ``.msg`` ``char`` into IDL ``uint8``); rosbags gives
13 (IDL ``char``). Only types that use ``char`` somewhere differ.
"""

import json
import sys

from rosbags.typesys import Stores, get_typestore
from rosbags.typesys import store as store_module


def main() -> None:
    ts = get_typestore(getattr(Stores, sys.argv[1]))
    names = sorted(ts.fielddefs)
    stock = {n: ts.hash_rihs01(n) for n in names}
    store_module.TIDMAP['char'] = 3
    fixed = {n: ts.hash_rihs01(n) for n in names}
    json.dump({'stock': stock, 'char_as_uint8': fixed}, sys.stdout)


if __name__ == '__main__':
    main()
