"""`cargo xtask export corpus`: the whole corpus exported as one Parquet
dataset (`robolog export CORPUS -o DIR --parquet`), each table read as one
table by Polars, DuckDB and pyarrow as their users would, with no option
that papers over files of different schemas (no ``union_by_name``, no
``missing_columns``/``extra_columns``).

The manifest's ``entries``: ``{"id", "folder", "rows", "logs"}``, one
per table (``folder``: the table's folder in the dataset, ``rows``: the
rows ``robolog export`` reported writing to it, ``logs``: how many of its
files hold rows, each a value of the hive column ``log``). Each test records ``{"reader", "rows"}``."""
import os

import duckdb
import polars as pl
import pyarrow.dataset as ds


def files_glob(entry):
    return os.path.join(entry["folder"], "*", "*.parquet")


def check(entry, reader, rows, columns, logs, record):
    assert rows == entry["rows"], f"{reader} reads {rows} rows, robolog wrote {entry['rows']}"
    assert "log" in columns, f"{reader}: no hive column log in {columns}"
    assert logs == entry["logs"], f"{reader}: {logs} log values for {entry['logs']} files with rows"
    record(reader=reader, rows=rows)


def test_polars_scan_parquet(entry, record):
    df = pl.scan_parquet(files_glob(entry), hive_partitioning=True).collect()
    check(entry, "polars", df.height, df.columns, df["log"].n_unique(), record)


def test_duckdb_read_parquet(entry, record):
    con = duckdb.connect()
    rel = con.sql(f"SELECT * FROM read_parquet('{files_glob(entry)}', hive_partitioning = true)")
    table = rel.to_arrow_table()
    logs = con.sql(
        f"SELECT count(DISTINCT log) FROM read_parquet('{files_glob(entry)}', hive_partitioning = true)"
    ).fetchone()[0]
    check(entry, "duckdb", table.num_rows, table.column_names, logs, record)


def test_pyarrow_dataset(entry, record):
    table = ds.dataset(entry["folder"], format="parquet", partitioning="hive").to_table()
    logs = len(table.column("log").unique())
    check(entry, "pyarrow", table.num_rows, table.column_names, logs, record)
