"""Outputs written whole: an interrupted run leaves the folder as it was, or says it is
incomplete; a finished one leaves one run's files, none from an earlier setting."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from cvxpb import files
from cvxpb.app.experiments import stochastic_svm as experiment

LAMBDAS = [0.1, 1.0, 10.0]


def test_an_interrupted_file_keeps_what_it_held(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("old\n")

    def half_then_stop(temporary):
        Path(temporary).write_text("new, hal")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        files.write_atomically(path, half_then_stop)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.csv"]  # no partial file left


@files.written_together("toy")
def _write(values, out, stop_after=None):
    written = []
    for i, value in enumerate(values):
        if stop_after is not None and i == stop_after:
            raise KeyboardInterrupt
        written.append(Path(out) / f"toy_{i}.csv")
        written[-1].write_text(f"{value}\n")
    return written


def test_a_run_interrupted_while_writing_leaves_the_folder_as_it_was(tmp_path):
    _write(["a", "a", "a"], tmp_path)
    (tmp_path / "other.txt").write_text("not ours")
    with pytest.raises(KeyboardInterrupt):
        _write(["b", "b", "b"], tmp_path, stop_after=2)
    contents = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert contents == {
        "toy_0.csv": "a\n",
        "toy_1.csv": "a\n",
        "toy_2.csv": "a\n",
        "other.txt": "not ours",
    }


def test_a_finished_run_leaves_no_file_of_an_earlier_one(tmp_path):
    _write(["a", "a", "a"], tmp_path)
    paths = _write(["b"], tmp_path)
    assert paths == [tmp_path / "toy_0.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy_0.csv"]


def test_a_run_stopped_while_moving_says_so(tmp_path, monkeypatch):
    _write(["a", "a"], tmp_path)
    calls = []
    replace = os.replace

    def stop_at_the_second(source, target):
        calls.append(target)
        if len(calls) == 2:
            raise KeyboardInterrupt
        replace(source, target)

    monkeypatch.setattr(files.os, "replace", stop_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        _write(["b", "b"], tmp_path)
    assert (tmp_path / "toy.incomplete").read_text().startswith("A run of toy")
    assert not any(p.name.startswith(".toy-writing") for p in tmp_path.iterdir())


def test_an_experiment_stopped_in_its_figures_writes_no_table(tmp_path, monkeypatch):
    from cvxpb.app import plots

    run = experiment.run_dataset("haberman", lambdas=LAMBDAS, folds=None, random_state=0)
    experiment.write([run], tmp_path, {"delta": 0.05}, plots=False)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plots, "save_dataset_figure", interrupted)
    with pytest.raises(KeyboardInterrupt):
        experiment.write([run], tmp_path, {"delta": 0.1}, plots=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert json.loads((tmp_path / "stochastic_svm.json").read_text())["settings"]["delta"] == 0.05


@pytest.mark.slow
def test_ctrl_c_on_the_command_leaves_one_runs_files(tmp_path):
    """The fuzz's case: SIGINT as the first CSV appears, in a folder holding a finished
    run at another delta: afterwards every file there describes one delta."""
    grid = tmp_path / "grid.txt"
    grid.write_text("\n".join(map(str, LAMBDAS)))
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "cvxpb", "experiment", "stochastic-svm", "--dataset"]
    argv += ["haberman", "--lambdas", str(grid), "--out", str(out), "--folds", "0"]
    subprocess.run([*argv, "--no-plots"], check=True, capture_output=True)
    started = time.time()
    process = subprocess.Popen([*argv, "--delta", "0.1"], stdout=subprocess.DEVNULL)
    deadline, signalled = time.monotonic() + 300, False
    while process.poll() is None and time.monotonic() < deadline:
        written = [*out.glob(".stochastic_svm-writing-*/*.csv"), *out.glob("*.csv")]
        if any(p.stat().st_mtime >= started for p in written if p.exists()):
            process.send_signal(signal.SIGINT)
            signalled = True
            break
        time.sleep(0.002)
    process.wait(timeout=120)
    assert signalled  # the run was stopped while writing its outputs
    table = pd.read_csv(out / "stochastic_svm.csv")
    settings = json.loads((out / "stochastic_svm.json").read_text())["settings"]
    assert set(table["delta"]) == {settings["delta"]}
    assert not (out / "stochastic_svm.incomplete").exists()
