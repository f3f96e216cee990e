"""tests/teaching/test_module.py — smoke test of the collsim Python module: schedules as data,
the checker, explanations, pictures, clusters and every engine, each compared with what the
command line (COLLSIM_BIN) prints as JSON."""
import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import collsim

COLLSIM_BIN = os.environ["COLLSIM_BIN"]


def cli_json(*args):
    return json.loads(subprocess.run([COLLSIM_BIN, *map(str, args), "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)


def test_schedule_as_data():
    s = collsim.schedule("ring", 4, 1024)
    assert len(s) == 24 and s.steps == 6
    columns = s.transfers()
    assert len(columns["src"]) == 24
    assert columns["op"].count("reduce") == 12 and columns["op"].count("copy") == 12
    assert all(b == 256 for b in columns["bytes"])
    assert [p["name"] for p in s.phases] == ["reduce-scatter", "allgather"]
    assert s.check()["valid"] and s.check()["transfers"] == 24
    assert json.loads(s.to_json())["transfers"][0]["op"] == "reduce"


def test_explain_equals_the_command_line():
    assert collsim.schedule("ring", 5).explain() == cli_json("explain", "ring", "--ranks", 5)
    two = collsim.schedule("two-tree", 8, segments=1).explain()
    assert two == cli_json("explain", "two-tree", "--ranks", 8, "--segments", 1)
    assert set(two["trees"][0]["interior"]).isdisjoint(two["trees"][1]["interior"])


def test_svg_is_xml_with_an_arrow_per_transfer():
    s = collsim.schedule("two-tree", 8, segments=1)
    root = ET.fromstring(s.svg().split("?>", 1)[1])
    classes = [e.get("class", "").split() for e in root.iter()]
    assert sum("transfer" in c for c in classes) == len(s)
    assert sum("tree-node" in c for c in classes) == 16


def test_errors_are_value_errors():
    for bad in [lambda: collsim.schedule("no-such-algorithm", 4), lambda: collsim.schedule("ring", 0),
                lambda: collsim.preset("no-such-preset")]:
        try:
            bad()
        except ValueError as e:
            assert str(e)
        else:
            raise AssertionError("expected ValueError")


def test_algorithms_and_presets():
    names = [a["name"] for a in collsim.algorithms()]
    assert "ring" in names and "two-tree" in names
    assert "baidu-40gpu" in collsim.presets()
    assert "flow" in collsim.engines()


def test_predict_equals_the_command_line_for_every_engine():
    cluster = collsim.preset("fat-tree-2to1")
    for engine in collsim.engines():
        mine = collsim.predict(cluster, "ring,two-tree", ["1M", 1 << 30], engine=engine)
        theirs = cli_json("predict", "--preset", "fat-tree-2to1", "--algo", "ring,two-tree", "--bytes", "1M,1G",
                          "--engine", engine)
        assert mine == theirs, engine
    seed000 = collsim.predict(collsim.default_cluster(), "ring", 1_200_000_000)[0]["time_s"]
    assert 0.35 < seed000 < 0.45


def test_flat_and_placed_clusters_equal_the_command_line():
    flat = collsim.flat_cluster(16, 25e9, alpha=3e-6, gamma=5e-12)
    assert collsim.predict(flat, "all", "64K") == cli_json(
        "predict", "--ranks", 16, "--bandwidth", 25e9, "--alpha", 3e-6, "--gamma", 5e-12, "--bytes", "64K")
    placed = collsim.preset("fat-tree-2to1", ranks=32, placement="random", placement_seed=3)
    assert placed.ranks == 32 and "random" in placed.placement
    assert placed.has_topology and not flat.has_topology
    assert collsim.predict(placed, "ring", "1M", engine="flow") == cli_json(
        "predict", "--preset", "fat-tree-2to1", "--ranks", 32, "--placement", "random", "--placement-seed", 3,
        "--algo", "ring", "--bytes", "1M", "--engine", "flow")


def test_predict_has_the_command_lines_defaults():
    # engine auto (flow on a topology), one channel per NIC, Simple, the config's sizes
    mine = collsim.predict(collsim.preset("dgx-h100-superpod-su", ranks=64), "ring,two-tree", ["64M"])
    assert mine == cli_json("predict", "--preset", "dgx-h100-superpod-su", "--ranks", 64, "--algo", "ring,two-tree",
                            "--bytes", "64M")
    assert {r["engine"] for r in mine} == {"flow"} and {r["channels"] for r in mine} == {8}
    assert {r["protocol"] for r in mine} == {"simple"}
    # a flat network: analytic
    flat = collsim.predict(collsim.flat_cluster(8, 10e9), "ring", "1M")
    assert flat[0]["engine"] == "analytic"
    assert flat == cli_json("predict", "--ranks", 8, "--bandwidth", 10e9, "--algo", "ring", "--bytes", "1M")


def test_predict_takes_the_command_lines_options():
    cluster = collsim.preset("dgx-h100")
    mine = collsim.predict(cluster, "ring,nccl", ["8", "1M"], channels=2, protocol="auto", segments=4)
    assert mine == cli_json("predict", "--preset", "dgx-h100", "--algo", "ring,nccl", "--bytes", "8,1M",
                            "--channels", 2, "--protocol", "auto", "--segments", 4)
    assert {r["channels"] for r in mine if r["algorithm"] == "ring"} == {2}
    assert "ll" in {r["protocol"] for r in mine}
    # --algo nccl --protocol X is NCCL_PROTO=X, as the command line's; without it NCCL chooses among all
    ll = collsim.predict(cluster, "nccl", ["1M", "1G"], protocol="ll")
    assert ll == cli_json("predict", "--preset", "dgx-h100", "--algo", "nccl", "--bytes", "1M,1G", "--protocol", "ll")
    assert {r["protocol"] for r in ll} == {"ll"}
    free = collsim.predict(cluster, "nccl", ["1M", "1G"])
    assert free == cli_json("predict", "--preset", "dgx-h100", "--algo", "nccl", "--bytes", "1M,1G")
    assert len({r["protocol"] for r in free}) == 2
    # the cluster's own NCCL_PROTO (runtime.proto: Simple on gcp-a3mega-tcpxo) bounds 'nccl' when
    # none is given; a given one overrides it, as on the command line
    tcpxo = collsim.preset("gcp-a3mega-tcpxo")
    bounded = collsim.predict(tcpxo, "nccl", ["8", "1M"])
    assert bounded == cli_json("predict", "--preset", "gcp-a3mega-tcpxo", "--algo", "nccl", "--bytes", "8,1M")
    assert {r["protocol"] for r in bounded} == {"simple"}
    assert {r["protocol"] for r in collsim.predict(tcpxo, "nccl", "8", protocol="ll")} == {"ll"}
    placed = collsim.predict(collsim.preset("fat-tree-2to1"), "hierarchical-ring", "1M", ranks=32,
                             placement="round-robin")
    assert placed == cli_json("predict", "--preset", "fat-tree-2to1", "--ranks", 32, "--placement", "round-robin",
                              "--algo", "hierarchical-ring", "--bytes", "1M")
    assert placed[0]["placement"].startswith("round-robin") and placed[0]["ranks"] == 32
    # a preset with an explicit placement list, re-placed on fewer ranks, as the command line does
    explicit = collsim.predict(collsim.preset("dgx1-v100-16"), "ring", "1M", ranks=8)
    assert explicit == cli_json("predict", "--preset", "dgx1-v100-16", "--ranks", 8, "--algo", "ring", "--bytes", "1M")
    assert collsim.preset("dgx1-v100-16", ranks=8).ranks == 8
    stream = collsim.predict(collsim.preset("fat-tree-2to1"), "ring", "1M", stream="always", channels=1)
    assert stream[0]["streamed"] and stream[0]["time_s"] == collsim.predict(
        collsim.preset("fat-tree-2to1"), "ring", "1M", stream="never", channels=1)[0]["time_s"]
    analytic = collsim.predict(cluster, "ring", "1M", engine="analytic", ports="unlimited")
    assert analytic == cli_json("predict", "--preset", "dgx-h100", "--algo", "ring", "--bytes", "1M",
                                "--engine", "analytic", "--ports", "unlimited")
    threaded = collsim.predict(cluster, "ring", "8", gpus_per_thread=8)
    assert threaded == cli_json("predict", "--preset", "dgx-h100", "--algo", "ring", "--bytes", "8",
                                "--gpus-per-thread", 8)
    assert threaded[0]["time_s"] > collsim.predict(cluster, "ring", "8")[0]["time_s"]
    # runs side by side (jobs=0, the default: one per core) give the records of runs one after another
    several = dict(algorithms="ring,two-tree,nccl", sizes="1K,1M,64M,1G")
    assert collsim.predict(cluster, jobs=1, **several) == collsim.predict(cluster, jobs=3, **several)
    for bad in [dict(engine="no-such"), dict(protocol="ll64"), dict(ports="two"), dict(stream="sometimes"),
                dict(placement="diagonal"), dict(gpus_per_thread=9)]:
        try:
            collsim.predict(cluster, "ring", "1M", **bad)
        except ValueError as e:
            assert str(e), bad
        else:
            raise AssertionError(f"expected ValueError for {bad}")


def test_trace_is_a_chrome_trace():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        collsim.predict(collsim.preset("fat-tree-2to1"), "ring", "1M", engine="flow", trace=path)
        events = json.load(open(path))
        events = events["traceEvents"] if isinstance(events, dict) else events
        assert any(e.get("ph") == "X" for e in events)


if __name__ == "__main__":
    tests = [f for name, f in sorted(globals().items()) if name.startswith("test_")]
    for t in tests:
        t()
        print("ok:", t.__name__)
    print(f"{len(tests)} passed")
