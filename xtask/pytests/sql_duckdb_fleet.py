"""DuckDB over the Parquet export of `cargo xtask sql check`: the
contract's SQL on a view of the hive-partitioned table; prints the answer
as CSV. Usage: sql_duckdb_fleet.py PARQUET_DIR SQL"""
import csv
import sys

import duckdb


def main(parquet, sql):
    glob = (parquet.rstrip('/') + '/vehicle_global_position/*/*.parquet').replace("'", "''")
    con = duckdb.connect()
    con.execute(f"CREATE VIEW vehicle_global_position AS "
                f"SELECT * FROM read_parquet('{glob}', hive_partitioning=true)")
    out = csv.writer(sys.stdout, lineterminator='\n')
    out.writerow(['log', 'max_alt', 'flight_s'])
    for log, max_alt, flight_s in con.execute(sql).fetchall():
        out.writerow([log, repr(float(max_alt)), repr(float(flight_s))])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
