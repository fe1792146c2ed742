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
    if not takes_blocks():
        return None
    parts = table._pandas_blocks()
    if parts is None:
        return None
    rows, blocks = parts
    return frame_of_blocks(table.column_names, rows, blocks)


_TAKES_BLOCKS = None


def takes_blocks():
    """Whether pandas (3.0 and later) takes a frame's blocks as they are."""
    global _TAKES_BLOCKS
    if _TAKES_BLOCKS is None:
        try:
            from pandas.api.internals import create_dataframe_from_blocks  # noqa: F401

            _TAKES_BLOCKS = True
        except ImportError:
            _TAKES_BLOCKS = False
    return _TAKES_BLOCKS


def frame_of_blocks(names, rows, blocks):
    """The DataFrame of columns ``names`` and ``rows`` rows held in pandas'
    ``blocks``: (dtype, 2-D numpy array of shape (columns, rows), the
    columns' positions) each, log times given as int64."""
    return frames_of_blocks([(names, rows, blocks)])[0]


def frames_of_blocks(parts):
    """The DataFrames of ``parts``, each (names, rows, blocks) as
    ``frame_of_blocks`` takes them. Their column labels are slices of one
    Index (making an Index of strings costs pandas more than slicing
    one)."""
    import numpy as np
    import pandas as pd
    from pandas.api.internals import create_dataframe_from_blocks

    every = pd.Index([n for names, _, _ in parts for n in names])
    frames = []
    at = 0
    for names, rows, blocks in parts:
        made = []
        for dtype, values, columns in blocks:
            if values.dtype != dtype:
                values = _times(values.view(dtype))
            made.append((values, np.array(columns, dtype=np.intp)))
        columns = every[at : at + len(names)]
        at += len(names)
        frames.append(create_dataframe_from_blocks(made, index=pd.RangeIndex(rows), columns=columns))
    return frames


def _times(values):
    """A block of datetime64[ns] values as the DatetimeArray pandas keeps
    them in, made without the checks pandas runs on a sequence of
    datetimes (about 15 µs a block; these values are datetime64[ns]
    already). Where pandas has no such constructor, the values as they are:
    pandas then makes the array itself."""
    if values.dtype.kind != "M":
        return values
    try:
        from pandas.arrays import DatetimeArray

        return DatetimeArray._simple_new(values, dtype=values.dtype)
    except (ImportError, AttributeError, TypeError, ValueError):
        return values


def to_polars(table):
    """The table as a ``polars.DataFrame`` (needs polars)."""
    pl = _need("polars", "Table.to_polars")
    return pl.DataFrame(table)
