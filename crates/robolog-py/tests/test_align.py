"""Log.align and robolog.align: topics on one time base.

- previous and nearest, with and without a tolerance, equal
  pandas.merge_asof (direction "backward" / "nearest") over the same
  topics, read by pyulog for a ULog and by Log.to_pandas for a ROS bag;
- linear equals numpy.interp(t, times, values, left=nan, right=nan);
- a rate grid equals merge_asof onto numpy.arange over the span;
- robolog.align of several logs is each log's table with a log column;
- what cannot be aligned is a KeyError or ValueError naming why.
"""

import datetime

import pytest

import robolog

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

IMU, ODOM, FIX = "/imu/data", "/husky_velocity_controller/odom", "/fix"


def bag(corpus):
    return corpus / "sensors" / "robot_localization-test1.bag"


def ulog(corpus):
    return corpus / "ulog" / "pyulog" / "sample.ulg"


def asof(left, right, prefix, direction="backward", tolerance=None):
    """merge_asof of right (prefixed) onto left's log_time."""
    r = right.add_prefix(prefix + ".")
    r = r.rename(columns={prefix + ".log_time": "_t"})
    r[prefix + ".log_time"] = r["_t"]
    kw = {}
    if tolerance is not None:
        kw["tolerance"] = pd.Timedelta(tolerance, unit="ns")
    return pd.merge_asof(
        left[["log_time"]],
        r,
        left_on="log_time",
        right_on="_t",
        direction=direction,
        allow_exact_matches=True,
        **kw,
    ).drop(columns="_t")


def assert_same(got, want, columns):
    assert len(got) == len(want)
    for c in columns:
        g, w = got[c].to_numpy(), want[c].to_numpy()
        if g.dtype.kind == "f" or w.dtype.kind == "f":
            np.testing.assert_array_equal(
                pd.to_numeric(got[c]).to_numpy(dtype=float),
                pd.to_numeric(want[c]).to_numpy(dtype=float),
                err_msg=c,
            )
        else:
            assert got[c].isna().tolist() == want[c].isna().tolist(), c
            assert got[c].dropna().tolist() == want[c].dropna().tolist(), c


@pytest.mark.parametrize("direction", ["backward", "nearest"])
@pytest.mark.parametrize("tolerance", [None, 5_000_000])
def test_bag_previous_and_nearest_equal_merge_asof(corpus, direction, tolerance):
    with robolog.open(bag(corpus)) as log:
        imu = log.to_pandas(IMU)
        odom = log.to_pandas(ODOM)
        method = "previous" if direction == "backward" else "nearest"
        got = log.align(
            {"imu": IMU, "odom": ODOM}, on="imu", method=method, tolerance=tolerance
        ).to_pandas()
    want = asof(imu, odom, "odom", direction, tolerance)
    numeric = [
        c
        for c in want.columns
        if c.startswith("odom.") and want[c].dtype.kind in "iufM" and c != "odom.log_time_utc"
    ]
    assert len(numeric) > 40
    assert_same(got, want, numeric + ["odom.header.frame_id"])
    # The imu columns are the imu table's, unchanged.
    assert got["imu.linear_acceleration.x"].tolist() == imu["linear_acceleration.x"].tolist()
    assert got["log_time"].tolist() == imu["log_time"].tolist()
    # One log_time_utc for the row: a bag's clock is UTC.
    assert got["log_time_utc"].tolist() == imu["log_time_utc"].tolist()
    assert "odom.log_time_utc" not in got.columns
    if tolerance is not None:
        # Some rows are beyond 5 ms of any odom message at 10 Hz.
        assert got["odom.pose.pose.position.x"].isna().sum() > 1000


def test_ulog_previous_equals_merge_asof_over_pyulog(corpus):
    pyulog = pytest.importorskip("pyulog")
    u = pyulog.ULog(str(ulog(corpus)), ["vehicle_attitude", "vehicle_local_position"])
    att = pd.DataFrame(u.get_dataset("vehicle_attitude").data)
    pos = pd.DataFrame(u.get_dataset("vehicle_local_position").data)
    want = pd.merge_asof(
        att[["timestamp"]],
        pos.add_prefix("pos."),
        left_on="timestamp",
        right_on="pos.timestamp",
        direction="backward",
    )
    with robolog.open(ulog(corpus)) as log:
        got = log.align(
            {"att": "vehicle_attitude", "pos": "vehicle_local_position"}, on="att"
        ).to_pandas()
    assert got["att.timestamp"].tolist() == att["timestamp"].tolist()
    cols = [c for c in want.columns if c.startswith("pos.")]
    assert len(cols) > 20
    for c in cols:
        np.testing.assert_array_equal(
            got[c].to_numpy(dtype=float), want[c].to_numpy(dtype=float), err_msg=c
        )


def test_linear_equals_numpy_interp(corpus):
    with robolog.open(ulog(corpus)) as log:
        att = log.to_pandas("vehicle_attitude")
        pos = log.to_pandas("vehicle_local_position")
        got = log.align(
            {"att": "vehicle_attitude", "pos": "vehicle_local_position"},
            on="att",
            method="linear",
        ).to_pandas()
    # Relative µs as floats: exact, where ns since 1970 would round.
    t0 = int(att["timestamp"].iloc[0])
    x = (att["timestamp"].astype("int64") - t0).to_numpy(dtype=float)
    xp = (pos["timestamp"].astype("int64") - t0).to_numpy(dtype=float)
    for c in ["x", "y", "z", "vx", "ref_lat"]:
        want = np.interp(x, xp, pos[c].to_numpy(dtype=float), left=np.nan, right=np.nan)
        np.testing.assert_allclose(got["pos." + c].to_numpy(dtype=float), want, rtol=1e-12, atol=1e-9, err_msg=c)
    # Strings and times take previous: pos.log_time is the sample before.
    assert (got["pos.log_time"].dropna() <= got["log_time"][got["pos.log_time"].notna()]).all()


def test_per_column_method_and_rate_grid(corpus):
    with robolog.open(bag(corpus)) as log:
        imu = log.to_pandas(IMU)
        fix = log.to_pandas(FIX)
        got = log.align(
            [IMU, FIX],
            rate="20hz",
            method={"imu/data": "nearest", "fix.latitude": "linear"},
            tolerance=datetime.timedelta(milliseconds=100),
        ).to_pandas()
    first = min(imu["log_time"].iloc[0], fix["log_time"].iloc[0])
    last = max(imu["log_time"].iloc[-1], fix["log_time"].iloc[-1])
    grid = pd.DataFrame(
        {"log_time": pd.to_datetime(np.arange(first.value, last.value + 1, 50_000_000))}
    )
    assert got["log_time"].tolist() == grid["log_time"].tolist()
    want = asof(grid, imu, "imu/data", "nearest", 100_000_000)
    assert_same(got, want, ["imu/data.angular_velocity.z", "imu/data.header.seq"])
    want = asof(grid, fix, "fix", "backward", 100_000_000)
    assert_same(got, want, ["fix.longitude", "fix.status.status"])
    assert got["fix.latitude"].dtype == np.float64


def test_align_of_several_logs_has_a_log_column(corpus):
    paths = [ulog(corpus), corpus / "ulog" / "pyulog" / "sample_log_small.ulg"]
    one = []
    for p in paths:
        with robolog.open(p) as log:
            one.append(log.align(["vehicle_attitude", "vehicle_status"], rate=5).to_pandas())
    table = robolog.align(paths, ["vehicle_attitude", "vehicle_status"], rate=5)
    both = table.to_pandas()
    assert both.columns[0] == "log"
    assert both["log"].tolist() == [str(paths[0])] * len(one[0]) + [str(paths[1])] * len(one[1])
    for i, frame in enumerate(one):
        mine = both[both["log"] == str(paths[i])].reset_index(drop=True)
        for c in ["vehicle_attitude.q[0]", "vehicle_status.nav_state"]:
            np.testing.assert_array_equal(
                mine[c].to_numpy(dtype=float), frame[c].to_numpy(dtype=float), err_msg=c
            )
    # vehicle_status.system_id is uint32 in one log and uint8 in the
    # other: one column of the wider type.
    pa = pytest.importorskip("pyarrow")
    assert table.to_pyarrow().schema.field("vehicle_status.system_id").type == pa.uint32()


def test_what_cannot_be_aligned_says_why(corpus):
    with robolog.open(bag(corpus)) as log:
        with pytest.raises(KeyError, match="/nope"):
            log.align([IMU, "/nope"])
        with pytest.raises(ValueError, match="cubic"):
            log.align([IMU, FIX], method="cubic")
        with pytest.raises(ValueError, match="not one of the topics"):
            log.align([IMU, FIX], on="/odom")
        with pytest.raises(ValueError, match="fix.nope"):
            log.align([IMU, FIX], method={"fix.nope": "linear"})
        with pytest.raises(ValueError, match="rate"):
            log.align([IMU, FIX], rate="fast")
        with pytest.raises(ValueError, match="more than"):
            log.align([IMU, FIX], rate="1ns")
