"""Run the compiled cores under AddressSanitizer and UndefinedBehaviorSanitizer.

The C extensions (claimledger/_c*.c) read untrusted text. This script compiles each of them
with ``-fsanitize=address,undefined`` into a private copy of the package, then runs, with the
sanitizer runtime preloaded:

- the differential fuzz of the normalizer (scripts/normalize_differential.py: the C core
  against the pure-Python one, both hyphen readings, every offset array);
- a differential fuzz of the seed search (``_cseeds.first_hits`` against the Aho-Corasick
  path of claimledger/checks/seed_hits.py) on random texts of every string width;
- the skeleton prefilter's fuzz (scripts/fuzz_skeleton.py: the compiled skeleton against the
  pure-Python one and both normalizers);
- long texts (past the size where the C core releases the GIL) normalized and skeletonized (from
  the text and from its UTF-8 bytes) on four threads at once, compared with the pure-Python results;
- the near-miss alignment (``_cnear.partial_alignment`` against rapidfuzz, ``_cnear.nearest``
  against the rapidfuzz path of ``quote_scan.nearest_spans``) on random texts, long and short;
- the GIL-free UTF-8 codec (``_cutf8skel.decode_utf8`` / ``encode_utf8``), the newline count of
  ``_cseeds.count_newlines`` and the strided search ``_cnormalize.strided_search`` against
  their Python definitions on random texts of every width, long enough to run without the GIL;
- any other extension's import (an extension this script does not know is at least loaded).

A memory error or undefined behaviour stops the run with the sanitizer's report (exit status
non-zero); a difference is printed and counted. Needs gcc with libasan/libubsan (Debian:
gcc). Not part of the test suite (a sanitized interpreter run takes minutes).

    .venv/bin/python scripts/sanitize_c.py                  # 200,000 + 90 s of cases
    .venv/bin/python scripts/sanitize_c.py --cases 1000000 --seconds 600
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SEED_FUZZ = r"""
import random, sys, time
from claimledger.checks.seed_hits import compiled, first_hits_py
ext = compiled()
assert ext is not None and ext.__file__.startswith(sys.argv[1]), ext
rng = random.Random(int(sys.argv[3]))
alphabets = ["ab ", "abcdefgh ", "aあい\U0002000b ", "日本語の文字列 ", "x\u00e9\u0100 y"]
t0, n, bad = time.time(), 0, 0
while time.time() - t0 < float(sys.argv[2]):
    al = rng.choice(alphabets)
    text = "".join(rng.choice(al) for _ in range(rng.randint(0, 400)))
    seeds = []
    for _ in range(rng.randint(0, 12)):
        size = rng.randint(8, 24)
        if len(text) >= size and rng.random() < 0.7:
            at = rng.randint(0, len(text) - size)
            seeds.append(text[at : at + size])
        else:
            seeds.append("".join(rng.choice(al) for _ in range(size)))
    cap = rng.choice([0, 1, 3, 200])
    n += 1
    if ext.first_hits(text, list(seeds), cap) != first_hits_py(text, seeds, cap):
        bad += 1
        print("DIFFERENT:", repr(text[:60]), seeds, cap)
    # the prepared table of the verbatim scan (first_starts), windows of 8 to 16 characters
    k = rng.randint(8, 16)
    long = [s for s in seeds if len(s) >= k]
    want = {i: at[0] for i, at in enumerate(first_hits_py(text, long, 1)) if at}
    if ext.first_starts(ext.prepare(long, k), text) != want:
        bad += 1
        print("DIFFERENT (first_starts):", repr(text[:60]), long, k)
    # the strided table: windows at each seed's first `stride` offsets, one text window in `stride` read
    stride = rng.randint(2, 17)
    wide = [s for s in seeds if len(s) >= 8 + stride - 1]
    want = {i: at[0] for i, at in enumerate(first_hits_py(text, wide, 1)) if at}
    if ext.first_starts(ext.prepare(wide, 8, stride), text) != want:
        bad += 1
        print("DIFFERENT (strided first_starts):", repr(text[:60]), wide, stride)
    # a skip mask: the seeds whose byte is set are left out, the others answer the same
    for table, group, answer in ((ext.prepare(long, k), long, None), (ext.prepare(wide, 8, stride), wide, want)):
        full = answer if answer is not None else {i: at[0] for i, at in enumerate(first_hits_py(text, group, 1)) if at}
        skip = bytearray(rng.random() < 0.5 for _ in group)
        if ext.first_starts(table, text, skip) != {i: at for i, at in full.items() if not skip[i]}:
            bad += 1
            print("DIFFERENT (skip mask):", repr(text[:60]), group, list(skip))
print(f"seed search: {n:,} cases, {bad} differences")
sys.exit(1 if bad else 0)
"""


NEAR_FUZZ = r"""
import random, sys, time
from rapidfuzz import fuzz
import claimledger._cnear as ext
from claimledger.checks import quote_scan
from claimledger.load.index import IndexedSource
from claimledger.model.source import Source
from claimledger.normalize import normalize
assert ext.__file__.startswith(sys.argv[1]), ext
rng = random.Random(int(sys.argv[3]))
alphabets = ["ab", "abcd ", "the cat sat on a mat ", "あいうえおかきく", "ab日本\U0001f600", "é\u2014x"]
deadline, n, bad = time.monotonic() + float(sys.argv[2]), 0, 0
while time.monotonic() < deadline:
    alphabet = rng.choice(alphabets)
    q = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 5, 63, 64, 65, 130, 200])))
    s = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3 * len(q) + 8)))
    want = fuzz.partial_ratio_alignment(q, s)
    n += 1
    if ext.partial_alignment(q, s) != (want.score, want.dest_start, want.dest_end):
        bad += 1
        print("DIFFERENT (partial_alignment):", repr(q), repr(s))
    # the whole search: long texts (seeded) and short ones (whole text), against the rapidfuzz path
    size = rng.choice([300, 60_000])
    text = "".join(rng.choice(alphabet) for _ in range(size))
    quotes = []
    for _ in range(20):
        at = rng.randrange(0, size - 200)
        chars = list(text[at : at + rng.randint(1, 200)])
        for _ in range(rng.randint(0, 4)):
            chars[rng.randrange(len(chars))] = rng.choice(alphabet)
        quotes.append("".join(chars))
    ix = IndexedSource(Source("s", "s.txt", "text/plain", text, "0" * 64), normalize(text), None)
    got = quote_scan.nearest_spans(quotes, ix)
    quote_scan._NEAREST = None
    if got != quote_scan.nearest_spans(quotes, ix):
        bad += 1
        print("DIFFERENT (nearest):", repr(text[:60]), quotes[:2])
    quote_scan._NEAREST = ext.nearest
print(f"near-miss search: {n:,} cases, {bad} differences")
sys.exit(1 if bad else 0)
"""


THREADS = r"""
import random, sys
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, sys.argv[1] + "/scripts")
from fuzz_normalize import case
from claimledger import _normalize_core, skeleton
from claimledger.normalize import normalize_c, normalize_py
ext = _normalize_core.load_extension()
assert ext is not None and ext.__file__.startswith(sys.argv[1]), ext
rng = random.Random(int(sys.argv[2]))
texts = []
for _ in range(48):
    parts, size = [], rng.randint(5_000, 60_000)
    while sum(map(len, parts)) < size:
        parts.append(case(rng))
    texts.append("".join(parts))
def one(t):
    a, b = normalize_c(t, ext=ext), normalize_py(t)
    same = (a.text, list(a.norm_start), list(a.orig_start), list(a.orig_end), bytes(a.linear)) == (
        b.text, list(b.norm_start), list(b.orig_start), list(b.orig_end), bytes(b.linear))
    data = t.encode("utf-8", "surrogatepass")  # the skeleton of its bytes too (claimledger/_cutf8skel.c)
    return same and skeleton.of_raw(t, ext=ext) == skeleton.of_raw_py(t) and (
        utf8 is None or utf8.skeleton_utf8(data) == skeleton.of_utf8_py(data))
utf8 = skeleton.utf8_core()
assert utf8 is None or utf8.__file__.startswith(sys.argv[1]), utf8
with ThreadPoolExecutor(4) as pool:
    results = list(pool.map(one, texts * 3))
bad = results.count(False)
print(f"threads: {len(results)} long texts ({sum(map(len, texts)) * 3:,} characters) on 4 threads, {bad} differences")
sys.exit(1 if bad else 0)
"""


CODEC_FUZZ = r"""
import random, sys, time
import claimledger._cutf8skel as u, claimledger._cseeds as c, claimledger._cnormalize as n
from claimledger.skeleton import _Strided
for m in (u, c, n):
    assert m.__file__.startswith(sys.argv[1]), m
rng = random.Random(int(sys.argv[3]))
alphabets = ["ab \n", "ab\u00e9\n", "a\u3042\u65e5\n", "a\U0001f600\n", "\ufeffx\n"]
t0, k, bad = time.time(), 0, 0
while time.time() - t0 < float(sys.argv[2]):
    al = rng.choice(alphabets)
    text = "".join(rng.choice(al) for _ in range(rng.choice([0, 5, 300, 70_000])))
    data = text.encode()
    if rng.random() < 0.2 and data:  # a corrupted copy
        i = rng.randrange(len(data))
        data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]
    for sig in (True, False):
        try:
            want = data.decode("utf-8-sig" if sig else "utf-8")
        except UnicodeDecodeError:
            want = None
        bad += u.decode_utf8(data, sig) != want
    bad += u.encode_utf8(text) != text.encode()
    bounds = sorted(rng.randrange(len(text) + 1) for _ in range(6))
    bad += c.count_newlines(text, bounds) != [text.count("\n", bounds[i], bounds[i + 1]) for i in range(0, 6, 2)]
    needles = [text[a : a + 40] if len(text) > 80 and rng.random() < 0.5 else "".join(rng.choice(al) for _ in range(40))
               for a in [rng.randrange(max(1, len(text) - 40)) for _ in range(3)]]
    long = sorted(set(needles))
    tables = _Strided.of(long)
    bad += n.strided_search(text, 16, 16, tables.hashes, tables.groups, long) != any(x in text for x in long)
    bad += n.strided_search(text, 16, 16, tables.hashes, tables.groups, long, n.strided_prepare(tables.hashes)) != any(
        x in text for x in long)
    k += 1
print(f"codec, newline count, strided search: {k} cases, {bad} differences")
sys.exit(1 if bad else 0)
"""


def runtime(name: str) -> str:
    out = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout
    path = out.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        raise SystemExit(f"gcc has no {name} here (install gcc with its sanitizer runtimes)")
    return path


def build(work: Path) -> list[str]:
    pkg = work / "claimledger"
    shutil.copytree(ROOT / "claimledger", pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    built = []
    for src in sorted((ROOT / "claimledger").glob("_c*.c")):
        target = pkg / f"{src.stem}{suffix}"
        subprocess.run(["gcc", "-shared", "-fPIC", "-g", "-O1", "-fno-omit-frame-pointer",
                        "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", f"-I{include}",
                        str(src), "-o", str(target)], check=True)  # fmt: skip
        built.append(src.stem)
    (work / "scripts").mkdir()  # the fuzz scripts put their parent's parent first on sys.path: the copy
    for name in ("normalize_differential.py", "fuzz_skeleton.py", "fuzz_normalize.py"):
        shutil.copy(ROOT / "scripts" / name, work / "scripts")
    (work / "tests").mkdir()
    for name in ("__init__.py", "normalize_cases.py"):
        shutil.copy(ROOT / "tests" / name, work / "tests")
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200_000, help="normalizer differential cases")
    parser.add_argument("--seconds", type=float, default=90.0, help="seconds of seed-search cases")
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="claimledger-sanitize-") as tmp:
        work = Path(tmp)
        built = build(work)
        print("sanitized builds:", ", ".join(built), flush=True)
        env = {**os.environ, "PYTHONPATH": str(work), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
               "UBSAN_OPTIONS": "print_stacktrace=1", "CLAIMLEDGER_PURE_PYTHON": "",
               "LD_PRELOAD": f"{runtime('libasan.so')}:{runtime('libubsan.so')}"}  # fmt: skip
        status = 0
        for stem in built:
            probe = f"import claimledger.{stem} as m, sys; assert m.__file__.startswith(sys.argv[1]), m.__file__"
            status |= subprocess.run([sys.executable, "-c", probe, str(work)], env=env, cwd=work).returncode
        if "_cnormalize" in built:
            status |= subprocess.run([sys.executable, str(work / "scripts" / "normalize_differential.py"),
                                      "--cases", str(args.cases), "--seed", str(args.seed)], env=env, cwd=work).returncode  # fmt: skip
        if "_cnormalize" in built:
            status |= subprocess.run([sys.executable, str(work / "scripts" / "fuzz_skeleton.py"), "--cases",
                                      str(args.cases // 4), "--seed", str(args.seed)], env=env, cwd=work).returncode  # fmt: skip
            status |= subprocess.run([sys.executable, "-c", THREADS, str(work), str(args.seed)], env=env,
                                     cwd=work).returncode  # fmt: skip
        if "_cseeds" in built:
            status |= subprocess.run([sys.executable, "-c", SEED_FUZZ, str(work), str(args.seconds), str(args.seed)],
                                     env=env, cwd=work).returncode  # fmt: skip
        if "_cnear" in built:
            status |= subprocess.run([sys.executable, "-c", NEAR_FUZZ, str(work), str(args.seconds / 3), str(args.seed)],
                                     env=env, cwd=work).returncode  # fmt: skip
        if {"_cutf8skel", "_cseeds", "_cnormalize"} <= set(built):
            status |= subprocess.run([sys.executable, "-c", CODEC_FUZZ, str(work), str(args.seconds / 3), str(args.seed)],
                                     env=env, cwd=work).returncode  # fmt: skip
    print("OK: no sanitizer report, no difference" if status == 0 else f"FAILED (status {status})")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
