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
    assert collsim.predict(placed, "ring", "1M", engine="flow") == cli_json(
        "predict", "--preset", "fat-tree-2to1", "--ranks", 32, "--placement", "random", "--placement-seed", 3,
        "--algo", "ring", "--bytes", "1M", "--engine", "flow")


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
