"""The generator of `cargo xtask osi interop`: synthetic but realistic OSI
3.8.0 messages (GroundTruth, SensorView, HostVehicleData,
SensorViewConfiguration) written as multi-channel traces by
asam-osi-utilities 0.4.0's MultiTraceWriter (compression none, lz4,
zstd), plus per type a `.osi` file (u32 LE length-prefixed messages), a
`.desc` file (the type's FileDescriptorSet with all imports) and
`manifest.json` saying what was written. Usage: osi_generate.py OUTDIR"""
import hashlib
import json
import logging
import struct
import sys
from pathlib import Path


class _Fail(logging.Handler):
    """Turns library warnings (e.g. missing required metadata) into errors."""

    def emit(self, record):
        raise RuntimeError(f"library warning: {record.getMessage()}")


def sha(b):
    return hashlib.sha256(b).hexdigest()


def generate(out):
    import google.protobuf
    from google.protobuf.descriptor_pb2 import FileDescriptorSet
    from osi3.osi_groundtruth_pb2 import GroundTruth
    from osi3.osi_sensorview_pb2 import SensorView
    from osi3.osi_hostvehicledata_pb2 import HostVehicleData
    from osi3.osi_sensorviewconfiguration_pb2 import SensorViewConfiguration
    from osi3.osi_object_pb2 import MovingObject
    from osi_utilities import MultiTraceWriter

    logging.getLogger("osi_utilities").addHandler(_Fail(level=logging.WARNING))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    osi = "3.8.0"
    pb = google.protobuf.__version__
    frames = 25
    creation = "2025-01-02T03:04:05Z"
    stamp = "20250102T030405Z"
    ver = lambda v: "".join(v.split("."))

    def when(i):
        # 1/3 s steps (i = 3 gives 0.999999999 s), then one far timestamp.
        if i == frames - 1:
            return (1_700_000_000, 123_456_789)
        return divmod(i * 333_333_333, 1_000_000_000)

    def set_version(m):
        m.version.version_major, m.version.version_minor, m.version.version_patch = 3, 8, 0

    def ground_truth(i):
        gt = GroundTruth()
        set_version(gt)
        gt.timestamp.seconds, gt.timestamp.nanos = when(i)
        gt.host_vehicle_id.value = 1
        gt.country_code = 276
        gt.proj_string = "+proj=utm +zone=32 +ellps=WGS84"
        t = i / 3.0
        for k, (kind, x0, y0, v) in enumerate([("ego", 0.0, 0.0, 13.9), ("car", 25.0, 3.5, 11.1),
                                               ("truck", 60.0, -3.5, 8.3), ("ped", 40.0, 7.0, 1.4)]):
            o = gt.moving_object.add()
            o.id.value = k + 1
            b = o.base
            if kind == "ped":
                o.type = MovingObject.TYPE_PEDESTRIAN
                b.dimension.length, b.dimension.width, b.dimension.height = 0.5, 0.6, 1.8
                b.position.x, b.position.y, b.position.z = x0, y0 - v * t, 0.9
                b.velocity.y = -v
                b.orientation.yaw = -1.5707963
            else:
                o.type = MovingObject.TYPE_VEHICLE
                o.vehicle_classification.type = (MovingObject.VehicleClassification.TYPE_HEAVY_TRUCK
                                                  if kind == "truck" else
                                                  MovingObject.VehicleClassification.TYPE_MEDIUM_CAR)
                size = (12.0, 2.5, 3.6) if kind == "truck" else (4.6, 1.9, 1.5)
                b.dimension.length, b.dimension.width, b.dimension.height = size
                b.position.x, b.position.y, b.position.z = x0 + v * t, y0, size[2] / 2
                b.velocity.x = v
                b.orientation.yaw = 0.0
                o.vehicle_attributes.bbcenter_to_rear.x = -size[0] * 0.4
        so = gt.stationary_object.add()
        so.id.value = 100
        so.base.position.x, so.base.position.y = 80.0, 9.0
        so.base.dimension.length = so.base.dimension.width = 0.3
        so.base.dimension.height = 2.5
        return gt

    def host_vehicle_data(i):
        h = HostVehicleData()
        set_version(h)  # field 9 in HostVehicleData
        h.timestamp.seconds, h.timestamp.nanos = when(i)  # field 10
        h.host_vehicle_id.value = 1
        h.location.position.x = 13.9 * i / 3.0
        h.location.velocity.x = 13.9
        h.vehicle_basics.curb_weight = 1500.0
        return h

    def sensor_view(i, gt, hvd):
        sv = SensorView()
        set_version(sv)
        sv.timestamp.CopyFrom(gt.timestamp)
        sv.sensor_id.value = 1000
        sv.host_vehicle_id.value = 1
        sv.mounting_position.position.x = 1.5
        sv.mounting_position.position.z = 1.3
        sv.global_ground_truth.CopyFrom(gt)
        sv.host_vehicle_data.CopyFrom(hvd)
        return sv

    def sensor_view_configuration():
        c = SensorViewConfiguration()
        set_version(c)
        c.sensor_id.value = 1000
        c.mounting_position.position.x = 1.5
        c.mounting_position.position.z = 1.3
        c.field_of_view_horizontal = 1.0471976
        c.field_of_view_vertical = 0.5235988
        c.range = 150.0
        c.update_cycle_time.nanos = 333_333_333
        return c

    gts = [ground_truth(i) for i in range(frames)]
    hvds = [host_vehicle_data(i) for i in range(frames)]
    svs = [sensor_view(i, gts[i], hvds[i]) for i in range(frames)]
    svc = sensor_view_configuration()

    # (full name, code, class, topic, messages, has timestamp, description)
    types = [
        ("osi3.SensorViewConfiguration", "svc", SensorViewConfiguration, "FrontCamera.OSMPSensorViewInConfig",
         [svc], False, "configuration of the front camera's sensor view"),
        ("osi3.GroundTruth", "gt", GroundTruth, "GroundTruth", gts, True, "global ground truth"),
        ("osi3.SensorView", "sv", SensorView, "FrontCamera.OSMPSensorViewIn", svs, True,
         "sensor view input of the front camera, embedding ground truth and host vehicle data"),
        ("osi3.HostVehicleData", "hvd", HostVehicleData, "HostVehicle.OSMPHostVehicleData", hvds, True,
         "host vehicle data"),
    ]

    file_meta = {
        "version": osi,
        "min_osi_version": osi,
        "max_osi_version": osi,
        "min_protobuf_version": pb,
        "max_protobuf_version": pb,
        "zero_time": "2024-06-03T14:38:03.535904Z",
        "creation_time": creation,
        "description": "Synthetic OSI 3.8.0 trace for the robolog interop check: four moving objects, "
                       "one sensor view configuration, 25 frames in 1/3 s steps and one far timestamp",
        "authors": "robolog project",
        "data_sources": "synthetic (osi-python 3.8.0), written by asam-osi-utilities 0.4.0",
    }

    def channel_meta(desc):
        return {
            "net.asam.osi.trace.channel.osi_version": osi,
            "net.asam.osi.trace.channel.protobuf_version": pb,
            "net.asam.osi.trace.channel.description": desc,
        }

    manifest = {"osi_version": osi, "protobuf_version": pb, "file_metadata": file_meta,
                "traces": [], "types": []}
    for comp in ["none", "lz4", "zstd"]:
        name = f"{stamp}_multi_{ver(osi)}_{ver(pb)}_{frames}_{comp}.mcap"
        w = MultiTraceWriter()
        if not w.open(out / name, dict(file_meta), compression=comp, chunk_size=1 << 20):
            raise RuntimeError(f"cannot open {name}")
        for full, code, cls, topic, msgs, has_ts, desc in types:
            w.add_channel(topic, cls, channel_meta(desc))
        # The configuration first (publish_time = log_time = 0 as written by
        # the library for a message without a timestamp), then each frame.
        count = 0
        order = [("FrontCamera.OSMPSensorViewInConfig", svc)]
        for i in range(frames):
            order += [("GroundTruth", gts[i]), ("FrontCamera.OSMPSensorViewIn", svs[i]),
                      ("HostVehicle.OSMPHostVehicleData", hvds[i])]
        for topic, m in order:
            if not w.write_message(m, topic):
                raise RuntimeError(f"{name}: writing to {topic} failed")
            count += 1
        w.close()
        manifest["traces"].append({"file": name, "compression": comp, "messages": count})

    for full, code, cls, topic, msgs, has_ts, desc in types:
        base = f"{stamp}_{code}_{ver(osi)}_{ver(pb)}_{len(msgs)}_interop"
        with open(out / f"{base}.osi", "wb") as f:
            for m in msgs:
                data = m.SerializeToString()
                f.write(struct.pack("<I", len(data)))
                f.write(data)
        fds = FileDescriptorSet()
        seen = set()

        def add(fd):
            if fd.name in seen:
                return
            seen.add(fd.name)
            for dep in fd.dependencies:
                add(dep)
            fd.CopyToProto(fds.file.add())

        add(cls.DESCRIPTOR.file)
        (out / f"{base}.desc").write_bytes(fds.SerializeToString())
        manifest["types"].append({
            "full_name": full,
            "osi_file": f"{base}.osi",
            "desc_file": f"{base}.desc",
            "topic": topic,
            "osi_version": osi,
            "protobuf_version": pb,
            "frames": len(msgs),
            "has_timestamp": has_ts,
            "channel_metadata": channel_meta(desc),
            # Expected publish time: the timestamp, or 0 (what the library
            # writes) for a type without one.
            "timestamps": [[m.timestamp.seconds, m.timestamp.nanos] if has_ts else [0, 0]
                           for m in msgs],
            "sha256": [sha(m.SerializeToString()) for m in msgs],
        })
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


if __name__ == "__main__":
    generate(sys.argv[1])
