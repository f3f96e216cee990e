"""tests/teaching/test_helper.py — notebooks/_collsim.py through the command line (as when the
module is not built) gives the seeds' facts, and, where the module is built, the same data."""
import os
import sys

os.environ["COLLSIM_BACKEND"] = "cli"
import _collsim as cli  # noqa: E402

assert cli.BACKEND == "cli"
t = cli.transfers("ring", 4, 1024)
assert len(t) == 24 and (t.bytes == 256).all() and list(t.phase.unique()) == ["reduce-scatter", "allgather"]
x = cli.explain("ring", 4)
assert x["steps"][-1]["state"][0] == ["a3a2a1a0", "b0b3b2b1", "c1c0c3c2", "d2d1d0d3"]
assert cli.svg("ring", 4).count('class="transfer ') == 24
p = cli.predict("ring", 1_200_000_000, preset="baidu-40gpu")
assert 0.35 < p.time_s.iloc[0] < 0.45
print("ok: command-line fallback")

try:
    import collsim  # noqa: F401
except ImportError:
    print("the collsim module is not built: compared nothing more")
    sys.exit(0)
import importlib  # noqa: E402
os.environ["COLLSIM_BACKEND"] = "module"
del sys.modules["_collsim"]
mod = importlib.import_module("_collsim")
assert mod.BACKEND == "module"
assert mod.transfers("two-tree", 6, "6K", segments=2).equals(cli.transfers("two-tree", 6, "6K", segments=2))
assert mod.explain("two-tree", 8, segments=1) == cli.explain("two-tree", 8, segments=1)
assert mod.svg("tree", 6) == cli.svg("tree", 6)
yaml = "name: t\nranks: 8\nranks_per_node: 4\nlinks:\n  inter_node: {alpha_s: 1.0e-6, bandwidth_Bps: 1.0e+10}\ngamma_s_per_byte: 0\n"
for kwargs in [dict(preset="fat-tree-2to1", engine="flow", placement="random", placement_seed=2),
               dict(flat=dict(ranks=16, bandwidth=25e9, alpha=2e-6, gamma=1e-12)), dict(config_yaml=yaml)]:
    a = mod.predict(["ring", "two-tree"], ["4K", "1M"], **kwargs)
    b = cli.predict(["ring", "two-tree"], ["4K", "1M"], **kwargs)
    assert a.equals(b), (kwargs, a, b)
print("ok: the module and the command line give the same data")
