# rosbags' reading of a bag: per message (topic, time, latitude,
# longitude, altitude, frame id, raw bytes), and every connection's
# callerid.
import sys, json
from pathlib import Path
from rosbags.highlevel import AnyReader
from rosbags.rosbag1 import Reader
out = {"messages": [], "callerids": []}
with Reader(Path(sys.argv[1])) as r:
    out["callerids"] = [c.ext.callerid for c in r.connections]
with AnyReader([Path(sys.argv[1])]) as r:
    for c, t, raw in r.messages():
        m = r.deserialize(raw, c.msgtype)
        fix = [m.latitude, m.longitude, m.altitude, m.header.frame_id] if c.topic == "/fix" else None
        out["messages"].append([c.topic, t, fix, bytes(raw).hex()])
print(json.dumps(out))
