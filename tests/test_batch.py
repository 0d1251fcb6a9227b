"""`claimledger batch`: one JSON line per job, the same lines on every engine, faults stay in their job."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from claimledger.batch import JobOptions, run_batch
from claimledger.batch.jobs import discover
from tests.batch_jobs import write_corpus, write_jobs

CLI = [sys.executable, "-m", "claimledger"]

FAULT_METRICS = textwrap.dedent(
    """
    import os, signal, time
    from pathlib import Path
    from claimledger import metric

    @metric("ok")
    def ok(data):
        return 7

    @metric("die")          # the worker process dies in the middle of the job
    def die(data):
        os._exit(3)

    @metric("die_once")     # dies the first time (a worker killed mid-job), then succeeds
    def die_once(data):
        marker = Path(os.environ["BATCH_TEST_MARKER"])
        if not marker.exists():
            marker.write_text("died")
            os.kill(os.getpid(), signal.SIGKILL)
        return 7

    @metric("hang")
    def hang(data):
        time.sleep(120)
        return 7

    @metric("slow")
    def slow(data):
        time.sleep(0.4)
        return 7

    @metric("gated")        # waits until the test lets it finish (the batch is certainly still running)
    def gated(data):
        release = Path(os.environ["BATCH_TEST_RELEASE"])
        deadline = time.monotonic() + 60
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return 7
    """
)


def _metric_job(folder: Path, metric: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ledger = folder / "ledger.yaml"
    ledger.write_text(f'version: 1\nclaims:\n  - id: N1\n    kind: number\n    metric: {metric}\n    value: "7"\n', "utf-8")
    return ledger


def _lines(path: Path) -> list[dict[str, object]]:
    raw = path.read_text("utf-8")
    assert raw == "" or raw.endswith("\n"), "the results file ends with a whole line"
    return [json.loads(line) for line in raw.splitlines()]


def _sorted_lines(path: Path) -> list[str]:
    return sorted(path.read_text("utf-8").splitlines(), key=lambda s: json.loads(s)["job"]["index"])


@pytest.fixture(scope="module")
def fifty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("batch50")
    write_jobs(root, 50, seed=3, malformed=2)
    return root / "jobs"


def test_every_job_is_one_line_with_its_report_and_paths(fifty: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    summary = run_batch([fifty], out, workers=2)
    rows = _lines(out)
    assert len(rows) == 50 == summary.jobs == summary.ran
    assert sorted(r["job"]["index"] for r in rows) == list(range(50))  # type: ignore[index]
    by_ledger = {Path(r["job"]["ledger"]).parent.name: r for r in rows}  # type: ignore[index]
    good = by_ledger["job0000"]
    assert good["schema_version"] and good["findings"] and good["job"]["draft"].endswith("draft.md")  # type: ignore[index]
    for broken in ("job0048", "job0049"):  # a malformed ledger is a line of its own, never PASS
        row = by_ledger[broken]
        assert row["outcome"] == "FAIL"
        (finding,) = row["findings"]  # type: ignore[misc]
        assert finding["reason"] == "job_input_error" and finding["tier"] == "HIGH"
        assert "ledger.yaml:" in finding["message"]
    assert summary.exit_code == 1
    assert summary.outcomes["FAIL"] >= 2 and summary.outcomes["PASS"] >= 1
    assert {f["reason"] for f in summary.failures} == {"job_input_error"}


def test_local_with_one_and_two_workers_and_ray_give_the_same_lines(fifty: Path, tmp_path: Path) -> None:
    one, two, ray = tmp_path / "one.jsonl", tmp_path / "two.jsonl", tmp_path / "ray.jsonl"
    run_batch([fifty], one, workers=1)
    run_batch([fifty], two, workers=2)
    # a real local Ray with 2 CPUs; its session folder lives under a short temp path (unix socket
    # paths are limited to 107 bytes) that the test removes; nothing is left in the home folder
    home_ray = Path.home() / ".ray"
    had_home_ray = home_ray.exists()
    ray_tmp = Path(tempfile.mkdtemp(prefix="clray", dir="/tmp"))
    old = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = str(ray_tmp)
    try:
        summary = run_batch([fifty], ray, engine="ray", workers=2)
    finally:
        if old is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = old
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert summary.engine == "ray" and summary.ran == 50
    assert _sorted_lines(one) == _sorted_lines(two) == _sorted_lines(ray)
    assert len(_sorted_lines(one)) == 50
    assert home_ray.exists() == had_home_ray


def test_resume_skips_finished_jobs_and_reruns_changed_ones(tmp_path: Path) -> None:
    write_jobs(tmp_path, 8, seed=5, malformed=0)
    jobs, out = tmp_path / "jobs", tmp_path / "r.jsonl"
    first = run_batch([jobs], out, workers=2)
    assert first.ran == 8
    again = run_batch([jobs], out, workers=2, resume=True)
    assert (again.ran, again.skipped) == (0, 8)
    assert again.exit_code == first.exit_code and again.outcomes == first.outcomes
    # a changed draft, a changed shared dataset and changed options each re-run what they touch
    draft = jobs / "job0003" / "draft.md"
    draft.write_text(draft.read_text("utf-8") + "\nOne more sentence.\n", "utf-8")
    assert run_batch([jobs], out, workers=2, resume=True).ran == 1
    csv = tmp_path / "corpus" / "daily.csv"
    csv.write_text(csv.read_text("utf-8") + "this,1,1\n", "utf-8")
    assert run_batch([jobs], out, workers=2, resume=True).ran == 8
    assert run_batch([jobs], out, workers=2, resume=True, options=JobOptions(allow=("x",))).ran == 8
    assert len(_lines(out)) == 8 + 1 + 8 + 8


def test_a_torn_last_line_is_cut_before_resuming(tmp_path: Path) -> None:
    write_jobs(tmp_path, 3, seed=2, malformed=0)
    out = tmp_path / "r.jsonl"
    run_batch([tmp_path / "jobs"], out, workers=1)
    raw = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(raw[:2]) + raw[2][:40])  # power lost in the middle of the third line
    summary = run_batch([tmp_path / "jobs"], out, workers=1, resume=True)
    assert (summary.skipped, summary.ran) == (2, 1)
    assert len(_lines(out)) == 3


def test_a_crashing_a_hanging_and_a_killed_job_stay_in_their_own_lines(tmp_path: Path) -> None:
    metrics = tmp_path / "faults.py"
    metrics.write_text(FAULT_METRICS, "utf-8")
    for name in ("ok", "die", "die_once", "hang"):
        _metric_job(tmp_path / "jobs" / name, name)
    marker = tmp_path / "marker"
    env = {**os.environ, "BATCH_TEST_MARKER": str(marker)}
    out = tmp_path / "r.jsonl"
    proc = subprocess.run(
        [*CLI, "batch", str(tmp_path / "jobs"), "-o", str(out), "--metrics", str(metrics),
         "--job-timeout", "8", "--workers", "2", "--summary", str(tmp_path / "s.json")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = {Path(str(r["job"]["ledger"])).parent.name: r for r in _lines(out)}  # type: ignore[index]
    assert set(rows) == {"ok", "die", "die_once", "hang"}
    assert rows["ok"]["outcome"] == "PASS"
    assert marker.read_text() == "died" and rows["die_once"]["outcome"] == "PASS"  # retried once, then fine
    for name, reason in (("die", "job_worker_lost"), ("hang", "job_timeout")):
        (finding,) = rows[name]["findings"]  # type: ignore[misc]
        assert (finding["reason"], finding["tier"], rows[name]["outcome"]) == (reason, "HIGH", "FAIL")
    summary = json.loads((tmp_path / "s.json").read_text("utf-8"))
    assert {f["reason"] for f in summary["failures"]} == {"job_worker_lost", "job_timeout"}
    assert summary["exit_code"] == 1 and summary["outcomes"] == {"FAIL": 2, "PASS": 2}


def test_ctrl_c_leaves_valid_lines_and_resume_finishes_the_rest(tmp_path: Path) -> None:
    metrics = tmp_path / "slow.py"
    metrics.write_text(FAULT_METRICS, "utf-8")
    for i in range(24):  # three jobs finish; the others wait for the release file, made after the Ctrl-C
        _metric_job(tmp_path / "jobs" / f"j{i:02d}", "slow" if i < 3 else "gated")
    out = tmp_path / "r.jsonl"
    release = tmp_path / "release"
    env = {**os.environ, "BATCH_TEST_RELEASE": str(release)}
    args = [*CLI, "batch", str(tmp_path / "jobs"), "-o", str(out), "--metrics", str(metrics), "--workers", "2"]
    # A shell that starts a job in the background (`make test &`, nohup) sets SIGINT to "ignored", and a
    # child inherits that: Python then installs no KeyboardInterrupt handler and Ctrl-C is lost. Give
    # the batch the disposition an interactive terminal gives it.
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text("utf-8").count("\n") < 3):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group, workers included
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "--resume" in err
    done = _lines(out)
    assert 3 <= len(done) < 24
    release.touch()
    finish = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=120, env=env)
    assert finish.returncode == 0, finish.stderr
    rows = _lines(out)
    assert sorted(str(r["job"]["ledger"]) for r in rows) == sorted(str(p) for p in (tmp_path / "jobs").rglob("ledger.yaml"))  # type: ignore[index]
    assert all(r["outcome"] == "PASS" for r in rows)


def test_manifests_name_ledger_and_draft_pairs(tmp_path: Path) -> None:
    write_jobs(tmp_path, 3, seed=4, malformed=0)
    jsonl = tmp_path / "m.jsonl"
    jsonl.write_text('{"ledger": "jobs/job0000/ledger.yaml", "draft": "jobs/job0000/draft.md"}\n'
                     '{"ledger": "jobs/job0001/ledger.yaml"}\n', "utf-8")  # fmt: skip
    text = tmp_path / "m.txt"
    text.write_text("# ledger and draft\njobs/job0002/ledger.yaml\tjobs/job0002/draft.md\n", "utf-8")
    jobs = discover([jsonl, text])
    assert [(Path(j.ledger).parent.name, j.draft and Path(j.draft).name) for j in jobs] == [
        ("job0000", "draft.md"), ("job0001", "draft.md"), ("job0002", "draft.md"),
    ]  # job0001's draft is found beside its ledger
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"draft": "x.md"}\n', "utf-8")
    proc = subprocess.run([*CLI, "batch", str(bad), "-o", str(tmp_path / "o.jsonl")], capture_output=True, text=True)
    assert proc.returncode == 2 and 'bad.jsonl:1: a manifest line needs "ledger"' in proc.stderr


def test_a_missing_job_file_is_that_jobs_finding(tmp_path: Path) -> None:
    write_corpus(tmp_path)
    manifest = tmp_path / "m.txt"
    manifest.write_text("nowhere/ledger.yaml\n", "utf-8")
    out = tmp_path / "o.jsonl"
    summary = run_batch([manifest], out, workers=1)
    (row,) = _lines(out)
    assert row["outcome"] == "FAIL" and row["findings"][0]["reason"] == "job_input_error"  # type: ignore[index]
    assert summary.exit_code == 1


def test_the_ray_engine_without_ray_says_how_to_install_it(tmp_path: Path) -> None:
    ledger = _metric_job(tmp_path / "j", "ok")
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from claimledger.cli import main\n"
        f"sys.argv = ['claimledger', 'batch', {str(ledger)!r}, '-o', {str(tmp_path / 'o.jsonl')!r}, '--engine', 'ray']\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "pip install 'claimledger[ray]'" in proc.stderr and "Traceback" not in proc.stderr


def _judged_job(folder: Path, corpus: Path, claim_id: str, statement: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ledger.yaml").write_text(textwrap.dedent(f"""\
        version: 1
        sources:
          en: {corpus / "report_en.txt"}
        claims:
          - id: {claim_id}
            kind: quote
            source: en
            quote: "reduced errors by 37 percent"
            statement: "{statement}"
        """), "utf-8")  # fmt: skip


def test_the_judge_options_reach_every_job(tmp_path: Path) -> None:
    from tests.judge_fakes import chat_server, verdict

    corpus = write_corpus(tmp_path, filler_kb=1)
    _judged_job(tmp_path / "jobs" / "a", corpus, "A1", "An independent verification step reduced errors by 37 percent.")
    _judged_job(tmp_path / "jobs" / "b", corpus, "B1", "Verification reduced errors by 37 percent in every trial.")
    evidence = "Adding an independent verification step reduced errors by 37 percent in the second trial."
    script = {"A1": [verdict("supported", evidence)], "B1": [verdict("contradicted", evidence, "only the second trial")]}
    out = tmp_path / "r.jsonl"
    with chat_server(script) as server:
        proc = subprocess.run(
            [*CLI, "batch", str(tmp_path / "jobs"), "-o", str(out), "--workers", "2", "--judge", "openai",
             "--judge-model", "m", "--judge-url", server.base_url + "/v1",
             "--judge-cache", str(tmp_path / "judge.sqlite3"), "--cache-dir", str(tmp_path / "cache")],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "OPENAI_API_KEY": "test-key"},
        )  # fmt: skip
        asked = {s.path for s in server.seen}
    assert proc.returncode == 1, proc.stderr
    assert asked == {"/v1/chat/completions"}
    rows = {Path(str(r["job"]["ledger"])).parent.name: r for r in _lines(out)}  # type: ignore[index]
    reasons = {name: {f["reason"] for f in row["findings"]} for name, row in rows.items()}  # type: ignore[attr-defined]
    assert "judge_contradicted" in reasons["b"] and rows["b"]["outcome"] == "FAIL"
    assert "judge_contradicted" not in reasons["a"] and rows["a"]["outcome"] == "PASS"
    assert rows["a"]["reproducibility"]["semantic_check"]["judge"]["model"] == "m"  # type: ignore[index]


def test_judge_settings_without_a_judge_stop_the_batch_before_any_job(tmp_path: Path) -> None:
    write_jobs(tmp_path, 2, seed=1, malformed=0)
    out = tmp_path / "r.jsonl"
    for args, message in ((["--judge", "openai"], "needs --judge-model"),
                          (["--judge-model", "m"], "need --judge")):  # fmt: skip
        proc = subprocess.run([*CLI, "batch", str(tmp_path / "jobs"), "-o", str(out), *args],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
        assert not out.exists()
