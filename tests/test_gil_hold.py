"""scripts/gil_hold.py: per-thread GIL holding and waiting from `perf script` output of uprobes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts_loader import load_script


def _script() -> ModuleType:
    return load_script("gil_hold")


# thread 1 holds the GIL from 0.000 to 0.010 s; thread 2 asks at 0.002 and gets it at 0.010, holds it
# to 0.012; thread 1 asks again at 0.0115 and gets it at 0.012 (perf script lines, out of order, with
# a header line that is not an event)
PERF_SCRIPT = """\
# a comment perf may print
   1 0.000000: probe_libpython3:take_gil:
   1 0.000001: probe_libpython3:take_gil_ret__return:
   2 0.002000: probe_libpython3:take_gil:
   1 0.010000: probe_libpython3:drop_gil:
   2 0.010000: probe_libpython3:take_gil_ret__return:
   1 0.011500: probe_libpython3:take_gil:
   2 0.012000: probe_libpython3:drop_gil:
   1 0.012000: probe_libpython3:take_gil_ret__return:
   1 0.020000: probe_libpython3:drop_gil:
"""


def test_holding_waiting_and_who_held_it_while_another_waited(tmp_path: Path) -> None:
    gil = _script()
    path = tmp_path / "gil.txt"
    path.write_text(PERF_SCRIPT)
    rows = gil.summarize(gil.read_events(path))
    one, two = rows["thread 1"], rows["thread 2"]
    assert one["held_s"] == pytest.approx(0.009999 + 0.008)
    assert two["held_s"] == pytest.approx(0.002)
    assert two["waited_s"] == pytest.approx(0.008) and two["waits_over_1ms"] == 1
    assert one["waited_s"] == pytest.approx(0.000001 + 0.0005) and one["waits_over_1ms"] == 0
    assert rows["thread 2 waited on 1"]["seconds"] == pytest.approx(0.008)
    assert rows["thread 1 waited on 2"]["seconds"] == pytest.approx(0.0005)


def test_no_events_is_an_error_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert _script().main([str(empty)]) == 1
    assert "no take_gil/drop_gil events" in capsys.readouterr().err
