"""Who holds the GIL during a run, and who waits for it: per-thread totals from uprobes.

The quote scan of a cold run is bound by the GIL, not by the cores (docs/benchmarks.md, sixteenth
session): a reading thread that returns from the C normalizer waits for the GIL while the main
thread scans in Python. `py-spy --gil` shows what runs while the GIL is held; this script measures
how long each thread held it and waited for it, and which thread held it while another waited.

It reads `perf script` output of three uprobes on libpython (root and `perf` needed; Linux only):

    L=$(python -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))')/libpython3.11.so.1.0
    perf probe -x $L -a take_gil -a 'take_gil_ret=take_gil%return' -a drop_gil
    perf record -e 'probe_libpython3:*' -o gil.data -- .venv/bin/python <a script that runs gate()>
    perf script -i gil.data -F tid,time,event > gil.txt
    .venv/bin/python scripts/gil_hold.py gil.txt

(A Python built without a shared libpython has the same functions in the executable: probe that.)
The probes slow the run down (every GIL hand-over is an event): compare runs measured the same way.
"""

from __future__ import annotations

import argparse
import bisect
import sys
from collections import Counter
from pathlib import Path


def read_events(path: Path) -> list[tuple[float, int, str]]:
    """``(time, thread id, "take" | "got" | "drop")`` in time order (the file's order at one time)."""
    events = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 3 or not parts[0].isdigit():
            continue
        kind = "got" if "return" in parts[2] else "drop" if "drop_gil" in parts[2] else "take"
        events.append((float(parts[1].rstrip(":")), int(parts[0]), kind))
    # at one timestamp a hand-over reads drop, then take, then got (the GIL is dropped before it is taken)
    events.sort(key=lambda e: (e[0], _ORDER[e[2]]))
    return events


_ORDER = {"drop": 0, "take": 1, "got": 2}


def summarize(events: list[tuple[float, int, str]]) -> dict[str, dict[str, float]]:
    """Per thread: seconds holding the GIL, seconds waiting for it, waits over 1 ms; and per
    (waiter, holder): the seconds the holder held it while the waiter waited."""
    held: Counter[int] = Counter()
    waited: Counter[int] = Counter()
    long_waits: Counter[int] = Counter()
    segments: list[tuple[float, float, int]] = []  # (start, end, holder)
    waits: list[tuple[float, float, int]] = []  # (start, end, waiter)
    asked: dict[int, float] = {}
    owner: tuple[int, float] | None = None
    for t, tid, kind in events:
        if kind == "take":
            asked[tid] = t
        elif kind == "got":
            if tid in asked:
                start = asked.pop(tid)
                waited[tid] += t - start
                long_waits[tid] += t - start > 1e-3
                waits.append((start, t, tid))
            owner = (tid, t)
        elif owner is not None and owner[0] == tid:  # drop by the holder
            held[tid] += t - owner[1]
            segments.append((owner[1], t, tid))
            owner = None
    starts = [s for s, _, _ in segments]
    blame: Counter[tuple[int, int]] = Counter()
    for w0, w1, waiter in waits:
        i = max(0, bisect.bisect_right(starts, w0) - 1)
        while i < len(segments) and segments[i][0] < w1:
            s, e, holder = segments[i]
            overlap = min(e, w1) - max(s, w0)
            if overlap > 0 and holder != waiter:
                blame[(waiter, holder)] += overlap
            i += 1
    out: dict[str, dict[str, float]] = {}
    for tid in sorted(set(held) | set(waited)):
        out[f"thread {tid}"] = {"held_s": held[tid], "waited_s": waited[tid], "waits_over_1ms": long_waits[tid]}
    for (waiter, holder), s in blame.most_common():
        out[f"thread {waiter} waited on {holder}"] = {"seconds": s}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("script_output", type=Path, help="`perf script -F tid,time,event` of the three probes")
    args = parser.parse_args(argv)
    events = read_events(args.script_output)
    if not events:
        print(f"{args.script_output}: no take_gil/drop_gil events (see the probes above)", file=sys.stderr)
        return 1
    for name, row in summarize(events).items():
        print(name + ": " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
