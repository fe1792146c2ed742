"""`cargo xtask sql values`: each table of `robolog export --parquet` of a
corpus file compared with robolog info/cat, pyulog 1.3.0 (ULog) and
rosbags 0.11.9 (bags).

The manifest's ``entries``: ``{"id", "kind", "name", "path", "out",
"export_code", "export_stderr"}``, one per exported file (``out``: the
export's folder); ``--robolog``: the executable. Each file records what
was compared as ``{"kind", "stats": [[what, count], ...]}``."""
import json
import math
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

# The state of the file being checked (one test at a time).
EXE = None
FAILURES = []
STATS = defaultdict(lambda: defaultdict(int))
PER_FILE = defaultdict(int)


def fail(entry, text):
    PER_FILE[entry['name']] += 1
    if PER_FILE[entry['name']] <= 20:
        FAILURES.append(f"{entry['name']}: {text}"[:2000].replace('\n', ' | '))
    elif PER_FILE[entry['name']] == 21:
        FAILURES.append(f"{entry['name']}: (further differences of this file left out)")


def run_robolog(*args):
    return subprocess.run([EXE, *args], capture_output=True, text=True)


def hive_escape(s):
    out = []
    for ch in s:
        if ch in '/=%:#' or ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append(''.join(f'%{b:02X}' for b in ch.encode()))
        else:
            out.append(ch)
    return ''.join(out)


def table_name(fmt, chan):
    if fmt == 'ulog':
        return chan['type']
    t = chan['topic']
    if t.startswith('/'):
        t = t[1:]
    # Letters and digits of any script are kept, as robolog_arrow::base_name keeps them.
    return ''.join(c if (c.isalnum() or c == '_') else '_' for c in t) or '_'


def reserved(fmt):
    r = ['log_time', 'log_time_utc']
    if fmt == 'mcap':
        r += ['publish_time', 'sequence']
    if fmt == 'ulog':
        r.append('multi_id')
    return r


def intify(t):
    """The type with Timestamp and Duration replaced by Int64 (nanoseconds)."""
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return pa.int64()
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, intify(f.type), f.nullable) for f in t])
    if pa.types.is_fixed_size_list(t):
        f = t.value_field
        return pa.list_(pa.field(f.name, intify(f.type), f.nullable), t.list_size)
    if pa.types.is_large_list(t):
        f = t.value_field
        return pa.large_list(pa.field(f.name, intify(f.type), f.nullable))
    if pa.types.is_list(t):
        f = t.value_field
        return pa.list_(pa.field(f.name, intify(f.type), f.nullable))
    return t


def columns(table):
    """Each column as (name, arrow type, python values with times as ns)."""
    out = []
    for f, col in zip(table.schema, table.columns):
        out.append((f.name, f.type, col.cast(intify(f.type)).to_pylist()))
    return out


def non_finite_name(v):
    return 'NaN' if math.isnan(v) else ('Infinity' if v > 0 else '-Infinity')


class Counter:
    values = 0


def plain(c):
    """A value of the other side as python numbers, lists and dicts."""
    if isinstance(c, np.ndarray):
        return c.tolist()
    if isinstance(c, np.generic):
        return c.item()
    return c


def eq(p, c, t):
    """Whether parquet value `p` (type `t`, times as ns) equals `c`, a value
    of `robolog cat --json` or of a peer tool."""
    c = plain(c)
    if p is None:
        return c is None
    if c is None:
        return False
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        Counter.values += 1
        if isinstance(c, dict):
            return set(c) == {'sec', 'nsec'} and p == c['sec'] * 1_000_000_000 + c['nsec']
        return isinstance(c, int) and p == c
    if pa.types.is_floating(t):
        Counter.values += 1
        if isinstance(c, str):
            return not math.isfinite(p) and non_finite_name(p) == c
        if isinstance(c, bool) or not isinstance(c, (int, float)):
            return False
        if math.isnan(p) or (isinstance(c, float) and math.isnan(c)):
            return math.isnan(p) and isinstance(c, float) and math.isnan(c)
        if pa.types.is_float32(t):
            return np.float32(p) == np.float32(c)
        return float(p) == float(c)
    if pa.types.is_boolean(t):
        Counter.values += 1
        if c == {}:
            # A message without fields (std_msgs/Empty): true where present.
            return p is True
        return isinstance(c, (bool, int)) and bool(p) == bool(c) and c in (0, 1)
    if pa.types.is_integer(t):
        Counter.values += 1
        return isinstance(c, int) and not isinstance(c, bool) and p == c
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        Counter.values += 1
        if isinstance(c, (bytes, bytearray)):
            c = list(c)
        return isinstance(c, list) and list(p) == c
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        Counter.values += 1
        if isinstance(c, str):
            return p == c
        # Any: the value's JSON as robolog cat --json prints it.
        try:
            return json_eq(json.loads(p), c)
        except ValueError:
            return False
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        if isinstance(c, (bytes, bytearray)):
            c = list(c)
        if isinstance(c, str) and pa.types.is_integer(t.value_type):
            c = list(c.encode())
        if not isinstance(c, (list, tuple)) or len(c) != len(p):
            return False
        return all(eq(x, y, t.value_type) for x, y in zip(p, c))
    if pa.types.is_struct(t):
        if not isinstance(c, dict):
            return False
        names = {f.name for f in t}
        if not set(c) <= names:
            return False
        return all(eq(p.get(f.name), c.get(f.name), f.type) for f in t)
    Counter.values += 1
    return p == c


def json_eq(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_eq(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_eq(x, y) for x, y in zip(a, b))
    return a == b and type(a) == type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def short(v):
    s = json.dumps(v, default=str)
    return s if len(s) < 400 else s[:400] + '...'


def rows_of(table, fmt):
    """The rows of a table as (log_time ns, {column: value}, types, multi_id)."""
    cols = columns(table)
    res = reserved(fmt)
    names = [n for n, _, _ in cols]
    if 'log_time' not in names:
        raise ValueError(f'no log_time column; columns {names}')
    fields = [(n, t, v) for n, t, v in cols if n not in res]
    lt = next(v for n, _, v in cols if n == 'log_time')
    mid = next((v for n, _, v in cols if n == 'multi_id'), None)
    rows = []
    for i in range(table.num_rows):
        rows.append((lt[i], {n: v[i] for n, _, v in fields}, mid[i] if mid else None))
    types = {n: t for n, t, _ in fields}
    return rows, types


def unrename(name, fmt):
    if name.endswith('_') and name[:-1] in reserved(fmt):
        return name[:-1]
    return name


def row_eq(prow, types, data, fmt):
    """Parquet row fields against a message value (struct or not)."""
    if isinstance(data, dict):
        names = {unrename(n, fmt): n for n in types}
        if not set(data) <= set(names):
            return False
        return all(eq(prow[col], data.get(name), types[col]) for name, col in names.items())
    if list(types) != ['data']:
        return False
    return eq(prow['data'], data, types['data'])


def match(entry, table, what, rows, types, theirs, fmt):
    """Every message of `theirs` [(log_time ns, value)] has its own equal
    row of `rows` at the same log_time; returns the number matched."""
    by_time = defaultdict(list)
    for r in rows:
        by_time[r[0]].append(r)
    if len(theirs) != len(rows):
        fail(entry, f'table {table}: {len(rows)} rows, {what} has {len(theirs)} messages')
        return 0
    for n, (t, data) in enumerate(theirs):
        group = by_time.get(t, [])
        for k, r in enumerate(group):
            if row_eq(r[1], types, data, fmt):
                del group[k]
                break
        else:
            near = group[0][1] if group else None
            fail(entry, f'table {table}: {what} message {n} at log_time {t} has no equal row; '
                        f'{what}: {short(data)}; a row at that time: {short(near)}')
            return 0
    return len(theirs)


def pyulog_check(entry, tables):
    """(c) every column equals pyulog's arrays for its message name/multi_id."""
    from pyulog import ULog
    log = ULog(entry['path'])
    seen = 0
    for d in log.data_list:
        if d.name not in tables:
            fail(entry, f'pyulog has {d.name} (multi_id {d.multi_id}), the export has no table')
            continue
        rows, types = tables[d.name]
        mine = [r for r in rows if r[2] == d.multi_id]
        flat = defaultdict(list)
        for _, fields, _ in mine:
            one = {}
            for name, v in fields.items():
                flatten(one, name, v, types[name])
            for k, v in one.items():
                flat[k].append(v)
        for key, arr in d.data.items():
            # pyulog keeps the padding of nested formats.
            if any(part.startswith('_padding') for part in key.split('.')):
                continue
            got = flat.get(key)
            text = re.match(r'(.*)\[(\d+)\]$', key)
            if got is None and text and all(isinstance(x, tuple) for x in flat.get(text.group(1), [0])):
                i = int(text.group(2))
                got = [b[i] if i < len(b) else 0 for _, b in flat[text.group(1)]]
                if np.asarray(arr).dtype == np.int8:
                    got = [x - 256 if x > 127 else x for x in got]
            if got is None or len(got) != len(arr):
                fail(entry, f'{d.name}[{d.multi_id}].{key}: pyulog has {len(arr)} values, '
                            f'the table {None if got is None else len(got)}')
                continue
            arr = np.asarray(arr)
            try:
                mine_arr = np.asarray(got, dtype=np.float64 if arr.dtype.kind == 'f' else object)
                if arr.dtype.kind == 'f':
                    ok = np.array_equal(arr.astype(np.float64), mine_arr, equal_nan=True)
                else:
                    ok = all(int(a) == int(b) for a, b in zip(arr.tolist(), got))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                bad = next((i for i, (a, b) in enumerate(zip(arr.tolist(), got))
                            if not (a == b or (a != a and b != b))), None)
                fail(entry, f'{d.name}[{d.multi_id}].{key}: differs from pyulog first at row {bad}: '
                            f'pyulog {arr.tolist()[bad] if bad is not None else "?"}, '
                            f'table {got[bad] if bad is not None else "?"}')
                continue
            seen += len(arr)
    return seen


def flatten(out, name, v, t):
    """pyulog's names: arrays as f[0], nested formats as a.b; text as bytes."""
    if pa.types.is_struct(t):
        for f in t:
            flatten(out, f'{name}.{f.name}', None if v is None else v.get(f.name), f.type)
    elif pa.types.is_list(t) or pa.types.is_fixed_size_list(t) or pa.types.is_large_list(t):
        for i, x in enumerate(v or []):
            flatten(out, f'{name}[{i}]', x, t.value_type)
    elif pa.types.is_string(t) and v is not None:
        # char[N]: pyulog has one field per byte (the text may end early).
        out[name] = ('text', v.encode())
    elif pa.types.is_boolean(t):
        out[name] = None if v is None else int(v)
    else:
        out[name] = v


def rosbags_check(entry, tables):
    """(d) values equal rosbags 0.11.9's deserialised messages."""
    from rosbags.highlevel import AnyReader

    def to_json(v):
        if hasattr(v, '__dataclass_fields__'):
            kind = getattr(v, '__msgtype__', '')
            if kind in ('builtin_interfaces/msg/Time', 'builtin_interfaces/msg/Duration'):
                return {'sec': int(v.sec), 'nsec': int(v.nanosec)}
            # The message's fields, without its constants nor the member
            # rosbags gives messages without fields.
            names = [n for n, _ in FIELDDEFS[kind][1]
                     if n != 'structure_needs_at_least_one_member']
            return {n: to_json(getattr(v, n)) for n in names}
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (bytes, bytearray)):
            return list(v)
        if isinstance(v, list):
            return [to_json(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        return v

    msgs = defaultdict(list)
    FIELDDEFS = {}
    try:
        with AnyReader([Path(entry['path'])]) as reader:
            FIELDDEFS = reader.typestore.fielddefs
            for conn, t, raw in reader.messages():
                msgs[table_name('rosbag', {'topic': conn.topic})].append(
                    (t, to_json(reader.deserialize(raw, conn.msgtype))))
    except Exception as e:  # the peer's limits are not ours
        STATS[entry['kind']]['skipped by rosbags (' + type(e).__name__ + ')'] += 1
        return 0
    seen = 0
    for table, theirs in sorted(msgs.items()):
        if table not in tables:
            fail(entry, f'rosbags reads {table}, the export has no table')
            continue
        rows, types = tables[table]
        seen += match(entry, table, 'rosbags', rows, types, theirs, 'rosbag')
    return seen


def schema_check(entry, name, schema, kv_meta, info, fmt):
    """The columns the contract puts first, the clock of log_time, the
    file's key-value metadata. log_time is a timestamp on a Unix clock, a
    duration (time since boot or since the recording's start) on the
    others."""
    want = [('log_time', pa.timestamp('ns') if info['clock'] == 'unix' else pa.duration('ns')),
            ('log_time_utc', pa.timestamp('ns', tz='UTC'))]
    if fmt == 'mcap':
        want += [('publish_time', pa.timestamp('ns')), ('sequence', pa.uint32())]
    if fmt == 'ulog':
        want.append(('multi_id', pa.uint8()))
    got = [(f.name, f.type) for f in schema][:len(want)]
    if got != want:
        fail(entry, f'table {name}: first columns {got}, the contract says {want}')
        return
    clock = (schema.field('log_time').metadata or {}).get(b'robolog.clock', b'').decode()
    if clock != info['clock']:
        fail(entry, f'table {name}: log_time robolog.clock {clock!r}, robolog info {info["clock"]!r}')
    kv = {k.decode(): v.decode() for k, v in (kv_meta or {}).items()}
    expect = {'robolog.log': Path(entry['path']).name, 'robolog.path': entry['path'],
              'robolog.clock': info['clock']}
    for key, value in expect.items():
        if kv.get(key) != value:
            fail(entry, f'table {name}: key-value {key} = {kv.get(key)!r}, expected {value!r}')
    if kv.get('robolog.format') != fmt:
        fail(entry, f"table {name}: robolog.format {kv.get('robolog.format')!r}, robolog info {fmt!r}")
    for key in ('robolog.start_ns', 'robolog.end_ns', 'robolog.metadata'):
        if key not in kv:
            fail(entry, f'table {name}: no key-value {key}')


def check(entry):
    kind = entry['kind']
    st = STATS[kind]
    info = run_robolog('info', '--json', entry['path'])
    if info.returncode != 0:
        st['skipped (robolog info fails)'] += 1
        return
    info = json.loads(info.stdout)
    fmt = info['format']
    if entry['export_code'] not in (0, 1):
        fail(entry, f"robolog export --parquet exited with {entry['export_code']}: {entry['export_stderr']}")
        return
    if info['warnings'] or entry['export_code'] == 1:
        st['skipped (damaged)'] += 1
        return
    out = Path(entry['out'])
    log = hive_escape(Path(entry['path']).name)
    want = defaultdict(int)
    topics = defaultdict(list)
    for c in info['channels']:
        name = table_name(fmt, c)
        want[name] += c['count']
        topics[name].append(c['topic'])
    # (a) rows per table.
    got = {}
    for d in sorted(out.iterdir()):
        if not d.is_dir() or d.name == 'logs':
            continue
        f = d / f'log={log}' / 'data.parquet'
        if not f.is_file():
            fail(entry, f'{d} holds no log={log}/data.parquet')
            continue
        got[d.name] = f
    for name in sorted(set(got) | {n for n, k in want.items() if k > 0}):
        if name not in got:
            fail(entry, f'table {name}: {want[name]} messages, no table')
        elif name not in want:
            fail(entry, f'table {name}: not a table of the channels of robolog info')
        elif pq.read_metadata(got[name]).num_rows != want[name]:
            fail(entry, f'table {name}: {pq.read_metadata(got[name]).num_rows} rows, '
                        f'robolog info counts {want[name]} messages')
    logs = out / 'logs' / f'log={log}' / 'data.parquet'
    if not logs.is_file():
        fail(entry, f'no {logs}')
    else:
        row = pq.read_table(logs)
        row = row.cast(pa.schema([pa.field(f.name, intify(f.type), f.nullable) for f in row.schema])).to_pylist()
        # The format as logcore::Format::name (and robolog info) names it.
        names = {fmt}
        if len(row) != 1 or row[0].get('format') not in names or row[0].get('message_count') != info['message_count']:
            fail(entry, f'logs table {short(row)}; robolog info: format {fmt}, {info["message_count"]} messages')
        elif set(json.loads(row[0].get('tables') or '{}')) != set(got):
            fail(entry, f'logs table names tables {row[0].get("tables")}; the dataset has {sorted(got)}')
    # (b) values against robolog cat --json.
    tables = {}
    for name, f in sorted(got.items()):
        if name not in want:
            continue
        table = pq.read_table(f)
        schema_check(entry, name, table.schema, pq.read_metadata(f).metadata, info, fmt)
        try:
            rows, types = rows_of(table, fmt)
        except ValueError as e:
            fail(entry, f'table {name}: {e}')
            continue
        tables[name] = (rows, types)
        args = ['cat', '--json', entry['path']]
        for t in topics[name]:
            args += ['--topic', t]
        cat = run_robolog(*args)
        if cat.returncode != 0:
            fail(entry, f'robolog cat exited with {cat.returncode}: {cat.stderr.strip()[:300]}')
            continue
        theirs = []
        for line in cat.stdout.splitlines():
            j = json.loads(line)
            theirs.append((j['log_time_ns'], j['data']))
        before = Counter.values
        n = match(entry, name, 'robolog cat', rows, types, theirs, fmt)
        st['tables'] += 1
        st['rows'] += n
        st['values (cat)'] += Counter.values - before
    st['files'] += 1
    if fmt == 'ulog':
        st['values (pyulog)'] += pyulog_check(entry, tables)
    if fmt == 'rosbag':
        before = Counter.values
        st['messages (rosbags)'] += rosbags_check(entry, tables)
        st['values (rosbags)'] += Counter.values - before


def test_export_equals_the_readers(entry, robolog, record):
    global EXE
    EXE = robolog
    FAILURES.clear()
    PER_FILE.clear()
    STATS.clear()
    check(entry)
    for kind, st in STATS.items():
        record(kind=kind, stats=list(st.items()))
    if FAILURES:
        pytest.fail("\n".join(FAILURES), pytrace=False)
