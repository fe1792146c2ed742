"""Packs the robolog-py wheel from an extension module cargo already built.

    python wheel.py EXTENSION CRATE_DIR WORKSPACE_CARGO_TOML OUT_DIR

The wheel holds what maturin puts in one for crates/robolog-py (its
pyproject.toml: `python-source = "python"`, `module-name =
"robolog._robolog"`): the package's Python files, the extension as
`robolog/_robolog.abi3.so`, and the dist-info (METADATA from
pyproject.toml and the README, WHEEL with the abi3 tag, RECORD with every
file's sha256), as the wheel format (PEP 427) and the core metadata
specification lay them out. Prints the wheel's path.
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import zipfile


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def metadata(project, version, readme):
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {project['name']}",
        f"Version: {version}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
        f"License-Expression: {project['license']}",
        f"Keywords: {','.join(project.get('keywords', []))}",
    ]
    for a in project.get("authors", []):
        lines.append(f"Author: {a['name']}")
    for c in project.get("classifiers", []):
        lines.append(f"Classifier: {c}")
    for name, url in project.get("urls", {}).items():
        lines.append(f"Project-URL: {name}, {url}")
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for r in reqs:
            lines.append(f"Requires-Dist: {r} ; extra == '{extra}'")
    lines.append("Description-Content-Type: text/markdown; charset=UTF-8; variant=GFM")
    return "\n".join(lines) + "\n\n" + readme


def main():
    extension, crate, workspace_toml, out_dir = sys.argv[1:5]
    with open(os.path.join(crate, "pyproject.toml"), "rb") as f:
        pyproject = tomllib.load(f)
    with open(workspace_toml, "rb") as f:
        version = tomllib.load(f)["workspace"]["package"]["version"]
    project = pyproject["project"]
    maturin = pyproject["tool"]["maturin"]
    package, module = maturin["module-name"].split(".")
    with open(os.path.join(crate, project["readme"]), encoding="utf-8") as f:
        readme = f.read()

    dist = project["name"].replace("-", "_")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    tag = f"cp39-abi3-{platform}"
    info = f"{dist}-{version}.dist-info"
    files = []  # (name in the wheel, bytes)

    source = os.path.join(crate, maturin["python-source"], package)
    for root, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith((".pyc", ".so")):
                continue
            path = os.path.join(root, n)
            rel = os.path.relpath(path, os.path.dirname(source)).replace(os.sep, "/")
            with open(path, "rb") as f:
                files.append((rel, f.read()))

    # The debug build's symbols, less its debug information: what the
    # module needs, at a fifth of the size.
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "ext.so")
        shutil.copyfile(extension, stripped)
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-debug", stripped], check=True)
        with open(stripped, "rb") as f:
            files.append((f"{package}/{module}.abi3.so", f.read()))

    files.append((f"{info}/METADATA", metadata(project, version, readme).encode()))
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: robolog-xtask\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {tag}\n"
    )
    files.append((f"{info}/WHEEL", wheel.encode()))
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))

    os.makedirs(out_dir, exist_ok=True)
    final = os.path.join(out_dir, f"{dist}-{version}-{tag}.whl")
    partial = final + ".partial"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in files:
            zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            z.writestr(zi, data)
    os.replace(partial, final)
    print(final)


if __name__ == "__main__":
    main()
