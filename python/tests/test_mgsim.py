"""The Python module: runs in process, the same answers as the CLI, errors as exceptions, limits,
many threads at once with bit-identical results."""
import collections.abc
import json
import subprocess
import threading
from pathlib import Path

import pytest

import mgsim

ROOT = Path(__file__).resolve().parents[2]
ALL_REDUCE = (ROOT / "examples" / "all_reduce_ring.yaml").read_text()
# 4 KiB from rank 0 to rank 1 (shared with tests/cli/serve_test.py).
PEER_COPY = (ROOT / "tests" / "cli" / "small_copy.yaml").read_text()


@pytest.fixture(scope="module")
def hgx():
    return mgsim.Machine("hgx-h200-8")


def test_a_run_is_the_clis_run(hgx, tmp_path):
    r = hgx.run(ALL_REDUCE, params={"SIZE": "64MiB"}, name="examples/all_reduce_ring.yaml")
    cli = ROOT / "build" / "cli" / "mgsim"
    if not cli.exists():
        pytest.skip("no CLI build next to the module")
    out = subprocess.run([str(cli), "run", "examples/all_reduce_ring.yaml", "--topology",
                          "hgx-h200-8", "-D", "SIZE=64MiB", "--json"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert json.loads(r["json"]) == json.loads(out)
    assert r["time_ps"] == json.loads(out)["runs"][0]["end_ps"]


def test_the_result_carries_times_bound_and_bottleneck(hgx):
    # 4 KiB from rank 0 to rank 1 on the h200 preset: host call 3 us + copy setup 2 us + route
    # 2 x 250 ns + 4096 B at 368.82 GB/s (11106 ps) = 5511106 ps (tests/traces/behaviour_test.cpp).
    r = hgx.run(PEER_COPY)
    assert r["time_ps"] == 5_511_106
    assert r["time_us"] == pytest.approx(5.511106)
    assert r["world"] == 2
    assert [s["stream"] for s in r["streams"]] == ["copy"]
    assert r["bound_us"] > 0 and 0 < r["fraction"] < 0.01
    assert r["bottleneck"] == r["roofline"]["bottleneck"]


def test_a_dict_schedule_and_params(hgx):
    schedule = {"world": 2, "params": {"SIZE": "4KiB"},
                "streams": [{"name": "copy", "if": "rank == 0",
                             "ops": [{"memcpy": {"bytes": "SIZE", "dst": 1}}]}]}
    assert hgx.run(schedule)["time_ps"] == hgx.run(PEER_COPY)["time_ps"]
    bigger = hgx.run(schedule, params={"SIZE": 1 << 20})
    assert bigger["time_ps"] > 5_511_106
    assert bigger["params"]["SIZE"] == 1048576


def test_bad_input_is_a_config_error_with_its_place(hgx):
    with pytest.raises(mgsim.ConfigError, match=r"<schedule>:7:9: error: unknown key 'memcopy'"):
        hgx.run(PEER_COPY.replace("memcpy", "memcopy"))
    with pytest.raises(ValueError):  # a ConfigError is a ValueError
        hgx.run("streams: 3")
    with pytest.raises(TypeError):
        hgx.run(42)


def test_limits_end_a_run_with_a_limit_error(hgx):
    with pytest.raises(mgsim.LimitError, match="passed 10000 events"):
        hgx.run(ALL_REDUCE, params={"SIZE": "1GiB"}, limits={"max_events": 10_000})
    with pytest.raises(mgsim.LimitError, match="passed 1us of simulated time"):
        hgx.run(ALL_REDUCE, params={"SIZE": "1GiB"}, limits={"max_time": "1us"})
    with pytest.raises(mgsim.LimitError, match="executes more than 10 ops"):
        hgx.run(ALL_REDUCE, limits={"max_ops": 10})
    with pytest.raises(mgsim.LimitError, match="more than 0.001 s of wall time"):
        hgx.run(ALL_REDUCE, params={"SIZE": "1GiB"}, limits={"max_wall": 0.001})
    assert issubclass(mgsim.LimitError, mgsim.ConfigError)
    with pytest.raises(mgsim.ConfigError, match="unknown key 'max_evnts'"):
        hgx.run(ALL_REDUCE, limits={"max_evnts": 10})
    # Within its limits a run is unchanged by them.
    assert (hgx.run(PEER_COPY, limits={"max_events": 10**6, "max_memory": "64GiB"})["json"]
            == hgx.run(PEER_COPY)["json"])


def test_a_deadlock_is_an_error_saying_who_waits(hgx):
    deadlock = (ROOT / "tests" / "cli" / "bad" / "deadlock.yaml").read_text()
    with pytest.raises(mgsim.DeadlockError, match="deadlocked"):
        hgx.run(deadlock)


def test_threads_share_a_machine_and_agree_bit_for_bit(hgx):
    sizes = ["1MiB", "4MiB", "16MiB", "64MiB"] * 4
    serial = {s: hgx.run(ALL_REDUCE, params={"SIZE": s})["json"] for s in set(sizes)}
    results = [None] * len(sizes)

    def work(i):
        results[i] = hgx.run(ALL_REDUCE, params={"SIZE": sizes[i]})["json"]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(sizes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[i] == serial[sizes[i]] for i in range(len(sizes)))


def test_a_machine_with_topology_params():
    two_nodes = mgsim.Machine("hgx-h200-ib", topology_params={"nodes": 2})
    assert two_nodes.gpus == 16
    with pytest.raises(mgsim.ConfigError):
        mgsim.Machine("no-such-topology")


def test_hardware_overrides_are_the_sweeps_hw_axes(tmp_path):
    """Machine(hardware_overrides=...) gives the row mgsim sweep gives for the same hw. value."""
    schedule = ROOT / "examples" / "all_reduce_ring.yaml"
    sweep = tmp_path / "s.yaml"
    sweep.write_text(f"schedule: {schedule}\nmachines: [{{topology: hgx-h200-8}}]\n"
                     "grid: {SIZE: [64MiB], hw.nvlink.protocol_efficiency: [0.5]}\n")
    cli = ROOT / "build" / "cli" / "mgsim"
    if not cli.exists():
        pytest.skip("no CLI build next to the module")
    out = subprocess.run([str(cli), "sweep", str(sweep)], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    row = dict(zip(out[0].split(","), out[1].split(",")))
    slow = mgsim.Machine("hgx-h200-8", hardware_overrides={"nvlink.protocol_efficiency": "0.5"})
    r = slow.run(schedule.read_text(), params={"SIZE": "64MiB"})
    assert f"{r['time_us']:.6f}" == row["time_us"]
    assert r["time_us"] > mgsim.Machine("hgx-h200-8").run(
        schedule.read_text(), params={"SIZE": "64MiB"})["time_us"]
    with pytest.raises(mgsim.ConfigError, match="protocol_efficency"):
        mgsim.Machine("hgx-h200-8", hardware_overrides={"nvlink.protocol_efficency": "0.5"})


# `mgsim check` in process: the reward-hack schedules of tests/cli/hacks/ (docs/CHECK.md).
HACKS = ROOT / "tests" / "cli" / "hacks"


def test_run_with_check_reports_violations(hgx):
    text = (HACKS / "flag_reuse.yaml").read_text()
    assert hgx.run(text, check=True)["valid"]
    r = hgx.run(text, params={"RESET": 0}, check=True, name="flag_reuse.yaml")
    assert not r["valid"]
    assert [v["kind"] for v in r["violations"]] == ["stale_wait", "early_read"]
    assert r["violations"][0]["file"] == "flag_reuse.yaml"


def test_evaluate_scores_against_the_problem_and_refuses_hacks(hgx):
    problem = mgsim.Problem(str(HACKS / "ag_gemm.problem.yaml"))
    assert problem.name == "ag_gemm_small"
    assert problem.shapes == [{"M": 2048, "N": 1024, "K": 1024}]
    text = (HACKS / "ag_gemm.yaml").read_text()
    honest = hgx.evaluate(problem, text)
    assert honest["valid"] and honest["violations"] == []
    assert honest["speedup"] == pytest.approx(honest["baseline_us"] / honest["time_us"])
    assert 0 < honest["fraction"] <= 1
    hacked = hgx.evaluate(problem, text, params={"KDIV": 8})
    assert not hacked["valid"]
    assert "missing_flops" in [v["kind"] for v in hacked["violations"]]
    assert hacked["baseline_us"] == honest["baseline_us"]  # measured once, then reused
    with pytest.raises(mgsim.ConfigError, match="param of problem"):
        hgx.evaluate(problem, text, params={"M": 4096})


def test_a_result_is_a_mapping_made_as_it_is_read(hgx):
    r = hgx.run(PEER_COPY)
    assert isinstance(r, collections.abc.Mapping)
    whole = dict(r)
    assert set(r) == set(whole) and len(r) == len(whole)
    assert {"time_ps", "bound_us", "json", "streams", "roofline", "end_ps"} <= set(r)
    assert whole["json"] == r["json"] and json.loads(r["json"])["runs"][0]["end_ps"] == r["time_ps"]
    assert r.get("no such key", 7) == 7 and "no such key" not in r
    with pytest.raises(KeyError):
        r["no such key"]
    assert r["fraction"] == pytest.approx(r["roofline"]["fraction"], abs=1e-6)
    assert dict(r.items())["world"] == 2 and 2 in r.values()
