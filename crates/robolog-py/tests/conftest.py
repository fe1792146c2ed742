"""Shared set-up of the robolog tests: the corpus and testdata folders, and
a closing line saying how much was compared with the reference readers."""

import pytest

from _corpus import STATS, corpus_dir


def pytest_report_header(config):
    return f"robolog corpus: {corpus_dir() or 'missing (corpus tests skip)'}"


def pytest_terminal_summary(terminalreporter):
    if STATS:
        terminalreporter.section("what the robolog tests compared and read")
        for k in sorted(STATS):
            terminalreporter.write_line(f"{k}: {STATS[k]}")


@pytest.fixture(scope="session")
def corpus():
    d = corpus_dir()
    if d is None:
        pytest.skip("the real-file corpus is missing (set ROBOLOG_CORPUS)")
    return d

