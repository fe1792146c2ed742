"""Every ULog of testdata and the corpus against pyulog 1.3.0:

- Log.ulog (info and multiple info messages, parameters, defaults,
  changed parameters, logged and tagged messages, dropouts, timestamps,
  flags) equals what pyulog's ULog holds under the same names;
- Log.table(name, flatten=True) has pyulog's columns: after log_time and
  multi_id, the keys of each dataset's `.data` dict in pyulog's order,
  each of pyulog's numpy dtype, value for value.
"""

import numpy as np
import pyarrow as pa
import pytest

import robolog
from _corpus import STATS, TESTDATA, ULOGS, file_id

pyulog = pytest.importorskip("pyulog")

FILES = sorted((TESTDATA / "ulog").glob("*.ulg")) + ULOGS


def logged(messages):
    return [(m.log_level, m.timestamp, m.message, m.log_level_str()) for m in messages]


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_ulog_view_equals_pyulog(path):
    ref = pyulog.ULog(str(path))
    with robolog.open(path) as log:
        u = log.ulog
        assert u is not None and log.bag is None and log.mcap is None and log.carla is None
        assert u.start_timestamp == ref.start_timestamp
        assert u.last_timestamp == ref.last_timestamp
        assert u.file_corruption == ref.file_corruption
        assert u.has_data_appended == bool(ref.has_data_appended)
        assert u.has_default_parameters == bool(ref.has_default_parameters)
        assert u.msg_info_dict == ref.msg_info_dict
        assert u.msg_info_dict_types == ref._msg_info_dict_types
        assert u.msg_info_multiple_dict == ref.msg_info_multiple_dict
        assert u.msg_info_multiple_dict_types == ref._msg_info_multiple_dict_types
        assert u.initial_parameters == ref.initial_parameters
        assert u.changed_parameters == [tuple(c) for c in ref.changed_parameters]
        for t in (0, 1):
            assert u.get_default_parameters(t) == ref.get_default_parameters(t)
        assert u.default_parameters == ref._default_parameters
        assert logged(u.logged_messages) == logged(ref.logged_messages)
        assert {t: logged(ms) for t, ms in u.logged_messages_tagged.items()} == {
            t: logged(ms) for t, ms in ref.logged_messages_tagged.items()
        }
        assert all(m.tag == t for t, ms in u.logged_messages_tagged.items() for m in ms)
        assert all(m.tag is None for m in u.logged_messages)
        assert [(d.timestamp, d.duration) for d in u.dropouts] == [
            (d.timestamp, d.duration) for d in ref.dropouts
        ]
        assert u.compat_flags == list(ref._compat_flags)
        assert u.incompat_flags == list(ref._incompat_flags)
    STATS["ULog views compared with pyulog"] += 1
    STATS["ULog parameters, info and logged messages compared with pyulog"] += (
        len(ref.initial_parameters)
        + len(ref.changed_parameters)
        + len(ref.msg_info_dict)
        + len(ref.logged_messages)
    )


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_flatten_gives_pyulog_columns(path):
    ref = pyulog.ULog(str(path))
    values = 0
    with robolog.open(path) as log:
        # Every topic's DataFrame at once, read straight from the samples.
        frames = log.dataframes(flatten=True)
        assert sorted(frames) == sorted({d.name for d in ref.data_list})
        for name in sorted({d.name for d in ref.data_list}):
            table = log.table(name, flatten=True).to_pyarrow()
            multi = table.column("multi_id").to_numpy()
            frame = frames[name]
            # The rows come in the order of Log.table's.
            plain = log.table(name, columns=["log_time", "multi_id"]).to_pyarrow()
            assert plain.column("multi_id").to_pylist() == multi.tolist(), name
            assert plain.column("log_time").equals(table.column("log_time")), name
            for d in [d for d in ref.data_list if d.name == name]:
                where = f"{file_id(path)}: {name}[{d.multi_id}]"
                mine = table.filter(pa.array(multi == d.multi_id))
                assert mine.column_names[:3] == ["log_time", "log_time_utc", "multi_id"]
                assert mine.column_names[3:] == list(d.data), where
                ts = d.data["timestamp"].astype(np.int64) * 1000
                np.testing.assert_array_equal(mine.column("log_time").to_numpy().astype(np.int64), ts)
                for key, want in d.data.items():
                    got = mine.column(key).to_numpy()
                    assert got.dtype == want.dtype, f"{where}.{key}: {got.dtype}, pyulog {want.dtype}"
                    if want.dtype.kind == "f":
                        same = np.array_equal(got, want, equal_nan=True)
                    else:
                        same = np.array_equal(got, want)
                    assert same, f"{where}.{key} differs from pyulog"
                    values += len(want)
                    # The DataFrame, read straight from the samples.
                    col = frame[key].to_numpy()[multi == d.multi_id]
                    assert col.dtype == want.dtype, f"{where}.{key}: frame {col.dtype}"
                    nan = want.dtype.kind == "f"
                    assert np.array_equal(col, want, equal_nan=nan), f"{where}.{key}: frame"
                # The instance's own topic is the same rows.
                topic = name if d.multi_id == 0 else f"{name}[{d.multi_id}]"
                if d.multi_id:
                    one = log.table(topic, flatten=True).to_pyarrow()
                    assert one.column_names == mine.column_names
                    for key in one.column_names:
                        a = one.column(key).to_numpy()
                        b = mine.column(key).to_numpy()
                        nan = a.dtype.kind in "fmM"
                        assert np.array_equal(a, b, equal_nan=nan), f"{where}: {topic}.{key}"
    STATS["ULog flattened values compared with pyulog"] += values


def test_flatten_columns_and_times(tmp_path):
    path = TESTDATA / "ulog" / "example.ulg"
    with robolog.open(path) as log:
        name = log.topics[0].type
        full = log.table(name, flatten=True).to_pyarrow()
        some = log.table(name, columns=["timestamp"], flatten=True).to_pyarrow()
        assert some.column_names == ["timestamp"]
        assert some.column(0).equals(full.column("timestamp"))
        t = full.column("log_time").to_numpy().astype(np.int64)
        if len(t) > 1:
            mid = int(t[len(t) // 2])
            part = log.table(name, start=mid, flatten=True).to_pyarrow()
            assert part.num_rows == int((t >= mid).sum())
        with pytest.raises(KeyError):
            log.table(name, columns=["no_such_column"], flatten=True)
        with pytest.raises(KeyError):
            log.table("no_such_topic", flatten=True)
        df = log.to_pandas(name, flatten=True)
        assert list(df.columns) == full.column_names
        # A column pick and a time range read straight into pandas' blocks
        # give the table's frame.
        if len(t) > 1:
            pd = pytest.importorskip("pandas")
            pick = ["timestamp", "log_time", full.column_names[-1]]
            df = log.to_pandas(name, columns=pick, start=mid, flatten=True)
            want = log.table(name, columns=pick, start=mid, flatten=True).to_pyarrow()
            pd.testing.assert_frame_equal(df, want.to_pandas(), check_exact=True)
            assert list(df.columns) == pick and len(df) == int((t >= mid).sum())
