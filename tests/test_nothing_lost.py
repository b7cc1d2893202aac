"""Experiments check what they can before any work, and an interruption keeps what finished."""

import sys

import pytest

from cvxpb.app.cli import main
from cvxpb.app.experiments import stochastic_svm as experiment

LAMBDAS = "1e-3\n1e-2\n0.1\n1.0"


@pytest.fixture
def argv(tmp_path):
    grid = tmp_path / "grid.txt"
    grid.write_text(LAMBDAS)
    base = ["experiment", "stochastic-svm", "--lambdas", str(grid), "--folds", "0"]
    return [*base, "--no-plots"]


@pytest.fixture
def no_training(monkeypatch):
    """Fails the test if any SVM is trained."""

    def refuse(*args, **kwargs):
        raise AssertionError("work started before the input was checked")

    monkeypatch.setattr(experiment, "run_dataset", refuse)


def test_an_unwritable_out_is_refused_before_any_work(tmp_path, argv, capsys, no_training):
    blocker = tmp_path / "afile"
    blocker.write_text("")
    code = main([*argv, "--dataset", "haberman", "--out", str(blocker / "x")])
    assert code == 2 and "--out" in capsys.readouterr().err


def test_a_method_that_misses_some_bound_is_refused_before_any_work(argv, capsys, no_training):
    code = main([*argv, "--dataset", "haberman", "--method", "cvx"])
    err = capsys.readouterr().err
    assert code == 2 and "--method cvx" in err and "kl-chi2" in err


def test_without_matplotlib_plots_are_skipped_with_a_note(tmp_path, monkeypatch, capsys):
    from cvxpb.app.experiments import prepare_output

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    assert prepare_output(tmp_path, plots=True) is False
    assert "plots skipped" in capsys.readouterr().err


def test_an_interrupted_run_keeps_finished_datasets_and_resumes(
    tmp_path, argv, monkeypatch, capsys
):
    out = tmp_path / "out"
    real, calls = experiment.run_dataset, []

    def interrupted_on_the_second(name, **options):
        calls.append(name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(name, **options)

    monkeypatch.setattr(experiment, "run_dataset", interrupted_on_the_second)
    args = [*argv, "--dataset", "haberman,bupa", "--out", str(out)]
    assert main(args) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    assert len(list((out / ".finished" / "stochastic_svm").iterdir())) == 1  # haberman
    calls.clear()
    monkeypatch.setattr(
        experiment, "run_dataset", lambda name, **o: calls.append(name) or real(name, **o)
    )
    assert main([*args, "--resume"]) == 0
    assert calls == ["bupa"]  # haberman came from disk
    assert (out / "stochastic_svm.csv").read_text().count("haberman") >= 1


def test_resume_recomputes_a_dataset_made_with_other_settings(tmp_path, argv, monkeypatch):
    out = tmp_path / "out"
    assert main([*argv, "--dataset", "haberman", "--out", str(out)]) == 0
    real, calls = experiment.run_dataset, []
    monkeypatch.setattr(
        experiment, "run_dataset", lambda name, **o: calls.append(name) or real(name, **o)
    )
    assert (
        main([*argv, "--dataset", "haberman", "--out", str(out), "--delta", "0.1", "--resume"]) == 0
    )
    assert calls == ["haberman"]


def test_kept_tasks_are_saved_as_they_finish_and_taken_back(tmp_path):
    from joblib import delayed

    from cvxpb.parallel import run_kept

    calls = []

    def square(x):
        calls.append(x)
        return x * x

    tasks = [delayed(square)(x) for x in range(5)]
    keys = [["square", x] for x in range(5)]
    assert run_kept(tasks, keys, tmp_path) == [0, 1, 4, 9, 16]
    calls.clear()
    assert run_kept(tasks, keys, tmp_path, resume=True) == [0, 1, 4, 9, 16]
    assert calls == []  # all five came from disk
    other = [["cube", x] for x in range(5)]  # other settings: computed again
    assert run_kept(tasks, other, tmp_path, resume=True) == [0, 1, 4, 9, 16]
    assert sorted(calls) == [0, 1, 2, 3, 4]


def test_an_interrupted_slt_gp_run_resumes_where_it_stopped(tmp_path, monkeypatch, capsys):
    from cvxpb.app.experiments import slt_gp

    real, calls, per_repeat = slt_gp.one_fit, [], len(slt_gp.METHODS)

    def interrupted_in_the_third_repeat(*args, **kwargs):
        calls.append((args[1], args[2]))
        if len(calls) == 2 * per_repeat + 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(slt_gp, "one_fit", interrupted_in_the_third_repeat)
    out = tmp_path / "out"
    argv = ["experiment", "slt-gp", "--setting", "clean_soft_label", "--repeats", "4"]
    argv += ["--sizes", "20", "--out", str(out), "--no-plots"]
    assert main(argv) == 130
    assert "--resume" in capsys.readouterr().err
    finished = list((out / ".finished" / "slt_gp").iterdir())
    assert len(finished) == 2 * per_repeat  # two repeats' fits
    calls.clear()
    assert main([*argv, "--resume"]) == 0
    assert sorted({k for k, _ in calls}) == [2, 3]  # the first two repeats came from disk
    assert len(calls) == 2 * per_repeat


def test_a_resumed_minimax_run_gives_the_rows_of_an_uninterrupted_one(tmp_path, monkeypatch):
    from cvxpb.app.experiments import minimax

    options = {"runs": 3, "methods": ("SVM", "Majority"), "random_state": 4, "progress": False}
    whole = minimax.run_experiment(["haberman"], **options)
    real, calls = minimax.one_run, []

    def interrupted_on_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(minimax, "one_run", interrupted_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        minimax.run_experiment(["haberman"], keep=tmp_path, **options)
    monkeypatch.setattr(minimax, "one_run", real)
    resumed = minimax.run_experiment(["haberman"], keep=tmp_path, resume=True, **options)
    assert resumed.drop(columns="seconds").equals(whole.drop(columns="seconds"))
