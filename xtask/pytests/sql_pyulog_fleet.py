"""The pyulog loop of `cargo xtask sql check`: per log of the fleet folder,
the largest altitude and the flight time of vehicle_global_position, as
CSV. Usage: sql_pyulog_fleet.py FLEET_DIR"""
import csv
import os
import sys

from pyulog import ULog


def main(fleet):
    out = csv.writer(sys.stdout, lineterminator='\n')
    out.writerow(['log', 'max_alt', 'flight_s'])
    for name in sorted(os.listdir(fleet)):
        if not name.endswith('.ulg'):
            continue
        log = ULog(os.path.join(fleet, name), ['vehicle_global_position'])
        alt, first, last = None, None, None
        for d in log.data_list:
            if d.name != 'vehicle_global_position' or len(d.data['timestamp']) == 0:
                continue
            a = float(d.data['alt'].max())
            t0, t1 = int(d.data['timestamp'].min()), int(d.data['timestamp'].max())
            alt = a if alt is None else max(alt, a)
            first = t0 if first is None else min(first, t0)
            last = t1 if last is None else max(last, t1)
        if alt is not None:
            out.writerow([name, repr(alt), repr((last - first) / 1e6)])


if __name__ == "__main__":
    main(sys.argv[1])
