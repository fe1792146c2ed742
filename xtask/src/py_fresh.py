import sys, robolog
assert robolog.__file__.startswith(sys.prefix), robolog.__file__
with robolog.open(sys.argv[1]) as log:
    assert log.format == "rosbag" and log.message_count == 75, log
    assert sum(1 for _ in log.messages()) == 75
    table = log.table("/chatter")
    try:
        table.to_pandas()
    except ImportError as e:
        assert "pip install pandas" in str(e), e
    else:
        raise AssertionError("pandas is not installed here")
print(f"robolog {robolog.__version__} from {robolog.__file__}: {log}")
