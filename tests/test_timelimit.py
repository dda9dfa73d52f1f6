"""The process runner really stops work at the time limit."""

import os
import time

from robustfit._timelimit import run_limited, run_one_limited


def _sleep_then(seconds, value):
    time.sleep(seconds)
    return value


def _pid_then_hang(path):
    with open(path, "w") as fh:
        fh.write(str(os.getpid()))
    while True:  # a busy loop: only killing the process ends it
        pass


def _boom():
    raise ValueError("bad input")


def _die():
    os._exit(7)


def test_results_errors_crashes_and_timeouts(tmp_path):
    pidfile = tmp_path / "pid"
    done = []
    t0 = time.perf_counter()
    out = run_limited([("fast", _sleep_then, (0.0, 42)), ("hang", _pid_then_hang, (pidfile,)),
                       ("err", _boom, ()), ("die", _die, ())], jobs=2, timeout=1.5,
                      on_done=lambda k, o: done.append(k))
    elapsed = time.perf_counter() - t0
    assert out["fast"].status == "ok" and out["fast"].value == 42
    assert out["err"].status == "error" and "ValueError: bad input" in out["err"].error
    assert out["die"].status == "crashed" and "7" in out["die"].error
    assert out["hang"].status == "timeout"
    assert sorted(done) == sorted(out)
    assert elapsed < 6.0
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:  # a zombie would still answer; it must at least not be running
        with open(f"/proc/{pid}/stat") as fh:
            assert fh.read().split()[2] in "ZX"


def test_run_one_limited_without_timeout():
    assert run_one_limited(_sleep_then, (0.01, "x"), None).value == "x"
