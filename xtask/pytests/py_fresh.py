"""Run by the interpreter of a fresh venv holding only the robolog wheel
(test_py_fresh.py): what the package does there, as one JSON object.
Usage: py_fresh.py FIXTURE.bag"""
import json
import sys

import robolog


def main(path):
    facts = {"file": robolog.__file__, "prefix": sys.prefix, "version": robolog.__version__}
    with robolog.open(path) as log:
        facts["format"] = log.format
        facts["message_count"] = log.message_count
        facts["iterated"] = sum(1 for _ in log.messages())
        table = log.table("/chatter")
        try:
            table.to_pandas()
        except ImportError as e:
            facts["pandas_error"] = str(e)
        else:
            facts["pandas_error"] = None
        facts["log"] = str(log)
    print(json.dumps(facts))


if __name__ == "__main__":
    main(sys.argv[1])
