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
    """The table as a ``pandas.DataFrame`` (needs pandas, and pyarrow for
    tables with nulls, text or nested columns)."""
    pd = _need("pandas", "Table.to_pandas")
    frame = _from_blocks(pd, table)
    if frame is not None:
        return frame
    return to_pyarrow(table).to_pandas()


def _from_blocks(pd, table):
    """The DataFrame pyarrow's ``to_pandas`` makes of a table of numeric,
    boolean and time columns without nulls, built from the table's own
    blocks (one 2-D array per dtype, made in one pass); None for other
    tables, and with pandas before 3.0, which has no public way to take
    blocks."""
    try:
        from pandas.api.internals import create_dataframe_from_blocks
    except ImportError:
        return None
    parts = table._pandas_blocks()
    if parts is None:
        return None
    rows, blocks = parts
    if rows == 0 or not blocks:
        return None
    import numpy as np

    made = [
        (
            np.frombuffer(values, dtype=dtype).reshape(len(columns), rows),
            np.array(columns, dtype=np.intp),
        )
        for dtype, values, columns in blocks
    ]
    return create_dataframe_from_blocks(
        made, index=pd.RangeIndex(rows), columns=pd.Index(table.column_names)
    )


def to_polars(table):
    """The table as a ``polars.DataFrame`` (needs polars)."""
    pl = _need("polars", "Table.to_polars")
    return pl.DataFrame(table)
