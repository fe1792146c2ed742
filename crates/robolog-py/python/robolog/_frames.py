"""Conversions of robolog tables to pyarrow, pandas and polars.

Each package is imported when its conversion is first used: none of them is
a dependency of robolog. A table implements the Arrow PyCapsule interface
(``__arrow_c_stream__``), so each takes it without a copy.
"""

import importlib


def _need(module, what):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"{what} needs the {module} package (pip install {module})"
        ) from e


def to_pyarrow(table):
    """The table as a ``pyarrow.Table`` (needs pyarrow 14 or later)."""
    pa = _need("pyarrow", "Table.to_pyarrow")
    return pa.table(table)


def to_pandas(table):
    """The table as a ``pandas.DataFrame`` (needs pandas and pyarrow)."""
    _need("pandas", "Table.to_pandas")
    return to_pyarrow(table).to_pandas()


def to_polars(table):
    """The table as a ``polars.DataFrame`` (needs polars)."""
    pl = _need("polars", "Table.to_polars")
    return pl.DataFrame(table)
