"""Every ULog of the corpus: each field of each dataset (message name and
multi_id) of Log.table equals pyulog 1.3.0's ULog(path).data_list arrays,
value for value, with the field's integer width kept in the Arrow type."""

import os
import re
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import robolog
from _corpus import STATS, ULOGS, corpus_dir, file_id

pyulog = pytest.importorskip("pyulog")


def test_corpus_is_there():
    """Under CI the corpus must be there, or its tests would only skip."""
    if os.environ.get("CI") == "true":
        assert corpus_dir() is not None, "the corpus is missing (set ROBOLOG_CORPUS)"
    if corpus_dir() is not None:
        assert ULOGS, "the corpus has no ULog files"


def leaves(name, arr, out):
    """The Arrow column `arr` as pyulog's flat fields: nested formats as
    `a.b`, fixed arrays as `a[i]`; each leaf as (arrow type, array)."""
    t = arr.type
    if pa.types.is_struct(t):
        for i, f in enumerate(t):
            leaves(f"{name}.{f.name}", arr.field(i), out)
    elif pa.types.is_fixed_size_list(t):
        k = t.list_size
        flat = arr.flatten()
        assert len(flat) == k * len(arr), f"{name}: null arrays"
        rows = np.arange(len(arr)) * k
        for i in range(k):
            leaves(f"{name}[{i}]", pc.take(flat, pa.array(rows + i)), out)
    else:
        out[name] = (t, arr)


def char_column(arr, i):
    """Byte `i` of each text of a char[N] column, as pyulog's int8 field
    `name[i]` (0 past the text's end)."""
    out = np.zeros(len(arr), dtype=np.int8)
    for row, s in enumerate(arr.to_pylist()):
        b = (s or "").encode("utf-8")
        if i < len(b):
            out[row] = np.int8(np.uint8(b[i]).view(np.int8))
    return out


def check_field(where, key, type_str, ref, arrow_type, ours):
    """One pyulog field against our column: width, then every value."""
    if type_str == "bool":
        assert pa.types.is_boolean(arrow_type), f"{where}.{key}: bool is {arrow_type}"
        got = ours.to_numpy(zero_copy_only=False)
        assert not any(v is None for v in got), f"{where}.{key}: nulls"
        np.testing.assert_array_equal(ref != 0, got.astype(bool), err_msg=f"{where}.{key}")
        return
    want = np.dtype(arrow_type.to_pandas_dtype())
    assert want == ref.dtype, f"{where}.{key}: pyulog {ref.dtype}, the table {arrow_type}"
    assert ours.null_count == 0, f"{where}.{key}: nulls"
    got = ours.to_numpy(zero_copy_only=False)
    assert got.dtype == ref.dtype
    if ref.dtype.kind == "f":
        same = np.array_equal(ref, got, equal_nan=True)
    else:
        same = np.array_equal(ref, got)
    if not same:
        bad = next(i for i, (a, b) in enumerate(zip(ref, got)) if not (a == b or (a != a and b != b)))
        pytest.fail(f"{where}.{key}: row {bad}: pyulog {ref[bad]!r}, the table {got[bad]!r}")


@pytest.mark.parametrize("path", ULOGS, ids=file_id)
def test_tables_equal_pyulog(path):
    values = compare_with_pyulog(path)
    STATS["ULog files compared with pyulog"] += 1
    STATS["ULog values compared with pyulog"] += values


def compare_with_pyulog(path):
    """Asserts every table of the ULog at `path` equals pyulog's datasets;
    returns the number of values compared."""
    ref = pyulog.ULog(str(path))
    by_name = defaultdict(list)
    for d in ref.data_list:
        by_name[d.name].append(d)
    values = 0
    with robolog.open(path) as log:
        assert log.format == "ulog"
        for name, datasets in by_name.items():
            table = log.table(name).to_pyarrow()
            multi = table.column("multi_id").to_numpy()
            for d in datasets:
                where = f"{file_id(path)}: {name}[{d.multi_id}]"
                mine = table.filter(pa.array(multi == d.multi_id))
                n = len(d.data["timestamp"])
                assert mine.num_rows == n, f"{where}: {mine.num_rows} rows, pyulog {n}"
                flat = {}
                for col in mine.column_names:
                    if col not in ("log_time", "log_time_utc", "multi_id"):
                        leaves(col, mine.column(col).combine_chunks(), flat)
                types = {f.field_name: f.type_str for f in d.field_data}
                for key, arr in d.data.items():
                    # pyulog keeps the padding of nested formats; the
                    # tables leave padding out.
                    if any(p.startswith("_padding") for p in key.split(".")):
                        continue
                    text = re.fullmatch(r"(.*)\[(\d+)\]", key)
                    if key in flat:
                        arrow_type, ours = flat[key]
                        check_field(where, key, types.get(key, ""), arr, arrow_type, ours)
                    elif text and text.group(1) in flat and pa.types.is_string(flat[text.group(1)][0]):
                        # char[N]: one text in the table, N int8 fields in pyulog.
                        assert arr.dtype == np.int8, f"{where}.{key}: {arr.dtype}"
                        got = char_column(flat[text.group(1)][1], int(text.group(2)))
                        np.testing.assert_array_equal(arr, got, err_msg=f"{where}.{key}")
                    else:
                        pytest.fail(f"{where}: pyulog has {key}, the table has {sorted(flat)}")
                    values += n
                STATS["ULog datasets compared with pyulog"] += 1
        # One instance's topic (`name[1]`) is that instance's rows only.
        for c in log.channels:
            if c.topic != c.type:
                one = log.table(c.topic).to_pyarrow()
                assert one.num_rows == c.message_count, c
                assert set(one.column("multi_id").to_pylist()) <= {int(c.metadata["multi_id"])}
        topics = {(c.type, c.metadata.get("multi_id", "0")) for c in log.channels if c.message_count}
        assert topics == {(d.name, str(d.multi_id)) for d in ref.data_list if len(d.data["timestamp"])}
    return values
