#!/usr/bin/env python3
"""notebooks/make_notebooks.py — writes the teaching notebooks (*.ipynb) from the cell lists
below, without outputs. Edit the cells here and run `make notebooks`, which runs this and then
executes every notebook in place, so that the committed files show their outputs; `make test`
executes them again and checks that the committed ones are executed and match these cells."""
import json
from pathlib import Path

SETUP = """\
%matplotlib inline
# the inline backend draws with Agg (no display needed) and stores each figure in the notebook
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import SVG, display
import _collsim as cs  # the collsim module, or the collsim command line if the module is not built
print("collsim backend:", cs.BACKEND)"""


def md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text.strip("\n")}


def code(text):
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": text.strip("\n")}


RING = [
    md("""
# 1. Ring allreduce

**What this teaches.** Data-parallel training ends every iteration with an *allreduce*: every GPU
needs the sum of everybody's gradients. This notebook follows seed 000 (Gibiansky, *Bringing HPC
Techniques to Deep Learning*) and seed 002 with collsim's own schedules:

1. the ring's two phases, reduce-scatter and allgather, as the state of every GPU after every step (P = 4);
2. the first step's send/receive tables for 5 GPUs;
3. why the ring scales: each GPU sends 2(P-1)N/P bytes, nearly constant, while a single reducer's traffic grows with P;
4. seed 000's estimate: 40 GPUs, 1.2 GB of gradients, about 400 ms at 6 GB/s.

Every number below comes from the schedule that the engines and the checker use; nothing is re-implemented here.
"""),
    code(SETUP),
    md("""
## The states, step by step (P = 4)

The buffer is cut into 4 chunks `a..d`; `a0` is GPU 0's chunk `a`. A reduction appends what it
adds (`a1a0` = a1 + a0). In reduce-scatter step s, GPU r sends chunk (r - s) mod P to GPU r+1,
which adds it to its own; after P-1 steps each GPU owns one fully reduced chunk. The allgather
then passes the reduced chunks around the ring, copying.
"""),
    code("""
x = cs.explain("ring", 4)
names = x["chunks"]
def state_table(state):
    return pd.DataFrame(state, columns=names, index=[f"gpu {r}" for r in range(len(state))])

print("initial state")
display(state_table(x["initial"]))
for step in x["steps"]:
    print(f"after step {step['step']} ({step['phase']})")
    display(state_table(step["state"]))
"""),
    code("""
# After reduce-scatter (step P-2 = 2) each GPU holds exactly one complete chunk; at the end all do.
P = 4
after_rs = x["steps"][P - 2]["state"]
complete = lambda cell: len(cell) == 2 * P  # 4 contributions, 2 characters each ("a3")
print("complete chunks per GPU after reduce-scatter:", [sum(map(complete, row)) for row in after_rs])
print("complete chunks per GPU at the end:          ", [sum(map(complete, row)) for row in x["steps"][-1]["state"]])
assert [sum(map(complete, row)) for row in after_rs] == [1] * P
assert all(complete(cell) for row in x["steps"][-1]["state"] for cell in row)
"""),
    md("""
## Five GPUs, first step of each phase (seed 000's tables)

Seed 000: "the nth GPU starts by sending chunk n and receiving chunk n - 1" in the scatter-reduce,
and "sending the n+1th chunk and receiving the nth chunk" in the allgather. The tables below are
read off the schedule's transfers.
"""),
    code("""
P = 5
x5 = cs.explain("ring", P)
def first_step_table(step):
    rows = {}
    for t in step["transfers"]:
        # "chunk 0 (a)" -> "Chunk 0", as the seed writes it
        rows.setdefault(t["src"], {})["Send"] = t["src_chunk"].split(" (")[0].capitalize()
        rows.setdefault(t["dst"], {})["Receive"] = t["dst_chunk"].split(" (")[0].capitalize()
    return pd.DataFrame.from_dict(rows, orient="index").sort_index().rename_axis("GPU")

scatter = first_step_table(x5["steps"][0])
gather = first_step_table(x5["steps"][P - 1])
print("scatter-reduce, iteration 1"); display(scatter)
print("allgather, iteration 1"); display(gather)
assert list(scatter["Send"]) == [f"Chunk {n}" for n in range(P)]
assert list(scatter["Receive"]) == [f"Chunk {(n - 1) % P}" for n in range(P)]
assert list(gather["Send"]) == [f"Chunk {(n + 1) % P}" for n in range(P)]
assert list(gather["Receive"]) == [f"Chunk {n}" for n in range(P)]
"""),
    md("""
## Bytes on the wire: ring against a single reducer

With N bytes per GPU, every ring GPU sends (P-1) chunks of N/P in each phase: 2(P-1)N/P in all,
less than 2N whatever P. The naive single reducer (`naive`) receives (P-1)N and sends (P-1)N back:
its traffic grows linearly with P. We count the bytes each rank sends in the generated schedules.
"""),
    code("""
N = 1 << 20  # 1 MiB per GPU
rows = []
for P in [2, 4, 8, 16, 32, 64]:
    for algo in ["ring", "naive"]:
        t = cs.transfers(algo, P, N)
        t = t[t.src != t.dst]
        sent = t.groupby("src").bytes.sum().reindex(range(P), fill_value=0)
        received = t.groupby("dst").bytes.sum().reindex(range(P), fill_value=0)
        rows.append({"P": P, "algorithm": algo, "max sent per rank": sent.max(),
                     "max received per rank": received.max(), "2(P-1)N/P": 2 * (P - 1) * N // P})
traffic = pd.DataFrame(rows)
display(traffic)
ring = traffic[traffic.algorithm == "ring"]
assert (ring["max sent per rank"] == ring["2(P-1)N/P"]).all()
naive = traffic[traffic.algorithm == "naive"]
assert (naive["max received per rank"] == (naive.P - 1) * N).all()

fig, ax = plt.subplots(figsize=(6, 3.5))
for algo, g in traffic.groupby("algorithm"):
    ax.plot(g.P, g["max sent per rank"] / N, "o-", label=f"{algo}: busiest rank sends")
ax.axhline(2, color="grey", ls=":", label="2N")
ax.set_xscale("log", base=2); ax.set_xlabel("GPUs P"); ax.set_ylabel("bytes sent / N")
ax.legend(); ax.set_title("Data sent by the busiest rank (N = 1 MiB)")
plt.show()
"""),
    md("""
## Time against P

Seed 000's example: 1.2 GB of gradients and 1 GB/s links. On a flat network (every pair 1 GB/s,
no latency) the analytic engine costs both schedules. The single reducer's time grows linearly
with P — the engine counts both the gathering and the sending back, each (P-1)N / bandwidth on the
root's one port (seed 000 counted one direction: 1.2 s for 2 GPUs, 10.8 s for 10). The ring's time
approaches 2N / bandwidth.
"""),
    code("""
N = 1_200_000_000
rows = []
for P in [2, 4, 5, 8, 10, 16, 20, 40]:
    df = cs.predict(["ring", "naive"], N, flat=dict(ranks=P, bandwidth=1e9))
    rows += df[["algorithm", "ranks", "time_s"]].to_dict("records")
times = pd.DataFrame(rows).pivot(index="ranks", columns="algorithm", values="time_s")
display(times.round(3))
assert times.loc[10, "naive"] > 4 * times.loc[2, "naive"]     # grows with P
assert times["ring"].max() < 2 * N / 1e9 * 1.0001               # below 2N/B whatever P

fig, ax = plt.subplots(figsize=(6, 3.5))
for algo in times.columns:
    ax.plot(times.index, times[algo], "o-", label=algo)
ax.set_xlabel("GPUs P"); ax.set_ylabel("allreduce time (s)"); ax.legend()
ax.set_title("1.2 GB allreduce on 1 GB/s links")
plt.show()
"""),
    md("""
## Seed 000's estimate: 40 GPUs, 1.2 GB, 6 GB/s

Seed 000 trained on 40 GPUs (5 nodes of 8) and estimated "communication would take 400 ms":
2 x 1.2 GB through the 6 GB/s InfiniBand link. The preset `baidu-40gpu` models that cluster
(`configs/baidu-40gpu.yaml`); the ring's time is 2(P-1)/P x 1.2 GB / 6 GB/s plus latencies.
"""),
    code("""
df = cs.predict(["ring", "naive"], 1_200_000_000, preset="baidu-40gpu")
display(df[["algorithm", "ranks", "bytes", "time_s", "closed_form_s", "busbw_GBps"]])
ring_s = float(df[df.algorithm == "ring"].time_s.iloc[0])
print(f"ring allreduce of 1.2 GB on 40 GPUs: {ring_s * 1e3:.0f} ms "
      f"(2(P-1)/P N / 6 GB/s = {2 * 39 / 40 * 1.2e9 / 6e9 * 1e3:.0f} ms; seed 000: about 400 ms)")
assert 0.35 < ring_s < 0.45
"""),
    md("""
## Rail-local rings on a tapered fabric

A cluster's ring is not one loop of P GPUs but C *channels*, each its own ring over part of the
buffer. Take 64 nodes of 8 H100s (NVSwitch inside), each GPU with its own 400 Gb/s NIC, and the
NICs on a rail-optimized two-level fat-tree: NIC i of every node on rail i's leaves, the leaves
joined by spines. collsim runs 8 channels here (one per NIC); channel c crosses every node
boundary once, from the last GPU of its order in one node to the first in the next.

- **Rail-crossing** (`pxn: false`): channel c leaves a node from GPU c-1 through NIC c-1 and enters
  the next at GPU c through NIC c. Rails c-1 and c meet only at the spines, so every node boundary
  of every channel climbs to the spine.
- **Rail-local** (`pxn: true`, NCCL's PXN, the default on such nodes): GPU c-1 hands its data over
  NVLink to GPU c, whose NIC c sends it to NIC c of the next node: the channel stays on rail c, under
  its leaves, and the spines carry nothing.

Tapering the spines 2:1 (16 up-links per leaf instead of 32) halves what the rail-crossing rings
get there; the rail-local ones do not notice. The flow engine's `--detail` gives each run's time
and its critical path (the chain of transfers that set the time), and which links that path
drained across (here: the longest it drained across any one spine link).
"""),
    code("""
def rails(spine_links, pxn):
    return f\"\"\"\\
name: rails
link_classes:
  nvlink4: {{technology: nvlink4, links: 18}}   # H100 SXM: 18 NVLink 4 links
  pcie5: {{technology: pcie5}}
  ib-ndr: {{technology: ib-ndr}}
nodes: {{count: 64, gpus_per_node: 8, switch: nvswitch, gpu_link: nvlink4, nics_per_node: 8,
        nic_link: pcie5, rail_optimized: true, pxn: {str(pxn).lower()}}}
topology: {{kind: xgft, m: [32, 16], w: [1, {spine_links}], link: ib-ndr}}
gamma_s_per_byte: 8.96e-13
runtime: nccl
\"\"\"

rows, paths = [], {}
for pxn in [True, False]:
    for spine_links, fabric in [(32, "non-blocking"), (16, "2:1 taper")]:
        run = cs.predict_detail("ring", 1 << 30, config_yaml=rails(spine_links, pxn))
        ring = "rail-local (PXN)" if pxn else "rail-crossing"
        critical = run["detail"]["critical_links"]
        spine_s = max([l["drain_s"] for l in critical if "l2." in l["name"]], default=0)  # XGFT's spines: l2.s<k>
        rows.append({"ring": ring, "fabric": fabric, "channels": run["channels"], "time ms": run["time_s"] * 1e3,
                     "busbw GB/s": run["busbw_GBps"], "critical path on one spine link (us)": spine_s * 1e6})
        paths[ring, fabric] = critical
table = pd.DataFrame(rows)
display(table.round(3))
t = table.set_index(["ring", "fabric"])["time ms"]
local = t["rail-local (PXN)", "2:1 taper"] / t["rail-local (PXN)", "non-blocking"]
crossing = t["rail-crossing", "2:1 taper"] / t["rail-crossing", "non-blocking"]
print(f"the 2:1 taper costs the rail-local ring {100 * (local - 1):.1f}%, the rail-crossing one {100 * (crossing - 1):.0f}%")
assert local < 1.05 < crossing
"""),
    md("""
Where each ring's time goes on the tapered fabric: the links its critical path drained across the
longest. The rail-crossing path runs leaf -> spine -> leaf (`l1.*` -> `l2.*`); the rail-local one
stays on NVLink (`gpu -> nvswitch`), its NIC and its rail's leaf.
"""),
    code("""
for ring in ["rail-local (PXN)", "rail-crossing"]:
    critical = pd.DataFrame(paths[ring, "2:1 taper"])[["name", "drain_s", "transfers"]].head(6)
    critical["drain us"] = critical.pop("drain_s") * 1e6
    print(ring, "on the 2:1 taper, critical path's longest drains:")
    display(critical.round(1))
"""),
    md("""
## What the plots showed

- The ring's reduce-scatter leaves each GPU owning one fully summed chunk after P-1 steps, and the
  allgather spreads those chunks in P-1 more; the 5-GPU tables are seed 000's, read off the schedule.
- Each ring GPU sends 2(P-1)N/P bytes — never more than 2N — while the single reducer's busiest
  rank handles (P-1)N in each direction, so its time grows linearly with the number of GPUs.
- On seed 000's cluster the engine predicts about 390 ms for 1.2 GB on 40 GPUs, the blog's 400 ms.
- A ring's channels that stay on their rail (PXN) keep their traffic under the leaves, so a 2:1
  spine taper barely moves them (the spines carry only the hops between leaves of one rail);
  channels that change rail at every node cross the spines at every hop and slow down by about
  two fifths.
"""),
]

TREES = [
    md("""
# 2. Trees and the double binary tree

**What this teaches.** A ring needs 2(P-1) steps, so its latency grows linearly with P. Trees need
only about 2 log2 P steps, but a single binary tree wastes half the bandwidth: leaves only send,
and interior ranks carry everything. NCCL's *double binary tree* (two-tree) runs two trees, each
carrying half the data, built so that a rank interior in one tree is a leaf in the other. We draw
both trees, separate the latency and bandwidth terms, find the size where the ring overtakes
two-tree as P grows, and reproduce seed 004's point: a round-robin master costs Θ(P) messages,
a tree reduction Θ(log P).
"""),
    code(SETUP),
    md("""
## The trees (P = 8)

`collsim explain ALGO --svg FILE` draws the schedule as a time-space diagram — a row per rank, a
column per step, a blue arrow per copy and a red one per reduction — and below it the trees, with
interior ranks filled and leaves hollow. First the single binary tree (`tree`):
"""),
    code("""
display(SVG(cs.svg("tree", 8, segments=1)))
"""),
    md("""
And the double binary tree: tree 2 is tree 1 mirrored (r -> P-1-r), so its interior ranks are
exactly tree 1's leaves. Here colour tells the trees apart, in the arrows and the edges alike
(an arrow's head still tells a copy from a reduction).
"""),
    code("""
display(SVG(cs.svg("two-tree", 8, segments=1)))
"""),
    code("""
def roles(P):
    trees = cs.explain("two-tree", P, segments=1)["trees"]
    table = pd.DataFrame({f"tree {i + 1}": ["interior" if r in t["interior"] else "leaf" for r in range(P)]
                          for i, t in enumerate(trees)}, index=pd.Index(range(P), name="rank"))
    return table

table = roles(8)
display(table.T)
for P in [4, 8, 16, 32]:
    both = (roles(P) == "interior").all(axis=1).sum()
    print(f"P = {P:2d}: ranks interior in both trees: {both}")
    assert both == 0
"""),
    md("""
## Latency and bandwidth terms

On a flat network with alpha = 5 us per message and 10 GB/s (the analytic engine: one message at
a time each way per rank), a small message costs about (number of steps) x alpha: 2(P-1) alpha
for the ring. A binary tree of height H = 1 + floor(log2(P-1)) has H levels up and H down, but a
rank with two children receives from them one after the other (and later sends to them one
after the other), so a level costs two alphas: about (4H - 2) alpha, twice the 2 log2 P alpha a
count of levels suggests. The table below checks both against the engine.
A large message costs its bytes over the bandwidth: the ring approaches 2N/B; the trees are
compared at 1 GiB in the next section.
"""),
    code("""
alpha, bw = 5e-6, 10e9
sizes = [2**k for k in range(10, 31, 2)]  # 1K .. 1G
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
small = []
for ax, P in zip(axes, [8, 64]):
    df = cs.predict(["ring", "tree", "two-tree"], sizes, flat=dict(ranks=P, bandwidth=bw, alpha=alpha))
    for algo, g in df.groupby("algorithm"):
        ax.loglog(g.bytes, g.time_s, "o-", ms=3, label=algo)
        small.append({"P": P, "algorithm": algo, "time at 1K (us)": g.time_s.iloc[0] * 1e6})
    ax.loglog(sizes, [2 * s / bw for s in sizes], "k:", label="2N/B")
    ax.set_title(f"P = {P}"); ax.set_xlabel("bytes per rank N"); ax.legend()
axes[0].set_ylabel("allreduce time (s)")
plt.show()
small = pd.DataFrame(small).pivot(index="P", columns="algorithm", values="time at 1K (us)")
small["2(P-1) alpha (us)"] = [2 * (P - 1) * alpha * 1e6 for P in small.index]
small["2 log2 P alpha (us)"] = [2 * np.log2(P) * alpha * 1e6 for P in small.index]
H = {P: 1 + int(np.floor(np.log2(P - 1))) for P in small.index}
small["(4H - 2) alpha (us)"] = [(4 * H[P] - 2) * alpha * 1e6 for P in small.index]
display(small.round(1))
assert small.loc[64, "ring"] > 5 * small.loc[64, "two-tree"]  # latency: linear against logarithmic
# what the text says: the ring pays 2(P-1) alpha, the trees (4H - 2) alpha, not 2 log2 P alpha
for P in small.index:
    assert abs(small.loc[P, "ring"] / small.loc[P, "2(P-1) alpha (us)"] - 1) < 0.05
    for tree in ["tree", "two-tree"]:
        assert abs(small.loc[P, tree] / small.loc[P, "(4H - 2) alpha (us)"] - 1) < 0.05
        assert small.loc[P, tree] > 1.5 * small.loc[P, "2 log2 P alpha (us)"]
"""),
    md("""
## One tree or two, at 1 GiB

A rank interior in a single binary tree sends N to its parent and N to each of its two
children: 3N, so the tree needs at least 3N/B. In the double binary tree each rank is interior
in one tree, where it sends N/2 up and N/2 to each child (3N/2), and a leaf in the other, where
it sends N/2 up: 2N in all, the ring's floor 2N/B. Whether
two-tree gets there depends on how a rank's messages share its link. The analytic engine's one
port sends them one at a time in the schedule's order; the flow engine, on a star switch of
the same 10 GB/s links, lets them share the link at once. The sentence under the table is
printed from the numbers above it.
"""),
    code("""
P, N = 8, 2**30
star = (f"name: star\\nlink_classes:\\n  e: {{bandwidth_Bps: {bw:.6g}, alpha_s: {alpha:.6g}}}\\n"
        f"topology: {{kind: star, endpoints: {P}, link: e}}\\ngamma_s_per_byte: 0\\n")
one_port = cs.predict(["ring", "tree", "two-tree"], N, flat=dict(ranks=P, bandwidth=bw, alpha=alpha))
shared = cs.predict(["ring", "tree", "two-tree"], N, config_yaml=star, engine="flow")
big = pd.DataFrame({"one port (analytic)": one_port.set_index("algorithm").time_s,
                    "shared link (flow, star)": shared.set_index("algorithm").time_s})
big.loc["2N/B"] = 2 * N / bw
big.loc["3N/B"] = 3 * N / bw
display(big.round(4))
a, f = big["one port (analytic)"], big["shared link (flow, star)"]
print(f"With one port, two-tree ({a['two-tree']:.3f} s) is within {abs(a['two-tree'] / a['tree'] - 1):.0%} of the "
      f"single tree ({a['tree']:.3f} s): its ranks' sends take turns, so it stays at {a['two-tree'] / (2 * N / bw):.2f}x 2N/B.")
print(f"On a shared link, two-tree takes {f['two-tree']:.3f} s ({f['two-tree'] / (2 * N / bw):.2f}x 2N/B) and the "
      f"single tree {f['tree']:.3f} s ({f['tree'] / (3 * N / bw):.2f}x 3N/B): two trees are {f['tree'] / f['two-tree']:.2f}x faster.")
assert abs(a["two-tree"] / a["tree"] - 1) < 0.1          # one port: the two trees no faster than one
assert f["two-tree"] < 0.75 * f["tree"]                  # shared link: two-tree is faster ...
assert f["two-tree"] < 1.15 * 2 * N / bw                 # ... near 2N/B
assert 0.95 * 3 * N / bw < f["tree"] < 1.15 * 3 * N / bw  # the single tree near 3N/B
assert f["ring"] < 1.05 * 2 * N / bw and a["ring"] < 1.05 * 2 * N / bw
"""),
    md("""
## Where the ring overtakes two-tree

For each P, the smallest message size from which the ring is at least as fast as two-tree. As P
grows the ring's 2(P-1) alpha grows, so the crossover moves to larger messages.
"""),
    code("""
sizes = [2**k for k in range(10, 31)]  # 1K .. 1G, every power of two
rows = []
for P in [4, 8, 16, 32, 64, 128]:
    df = cs.predict(["ring", "two-tree"], sizes, flat=dict(ranks=P, bandwidth=bw, alpha=alpha))
    t = df.pivot(index="bytes", columns="algorithm", values="time_s")
    ring_wins = t.index[t["ring"] <= t["two-tree"]]
    rows.append({"P": P, "ring wins from": int(ring_wins.min()) if len(ring_wins) else None})
crossover = pd.DataFrame(rows)
display(crossover)
known = crossover.dropna()
assert known["ring wins from"].is_monotonic_increasing

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.loglog(known.P, known["ring wins from"], "o-", base=2)
ax.set_xlabel("ranks P"); ax.set_ylabel("crossover size (bytes)")
ax.set_title("Smallest size where ring beats two-tree (alpha 5 us, 10 GB/s)")
plt.show()
"""),
    md("""
## Seed 004: a round-robin master against a tree reduction

Seed 004 (You et al., EASGD on HPC clusters) replaced the original EASGD's round-robin master —
"at any moment, the master can interact with just a single worker" — by a tree reduction:
P(alpha + |W| beta) becomes log P (alpha + |W| beta). Here: a *reduce* of AlexNet's 249 MB of
weights on seed 004's FDR InfiniBand (alpha 0.7 us, beta 0.2 ns/byte, its Table 2), with the
single-root `naive` algorithm (the master receives from each worker in turn) against the
`binomial` tree.
"""),
    code("""
W = 249_000_000
rows = []
for P in [2, 4, 8, 16, 32, 64, 128]:
    df = cs.predict(["naive", "binomial"], W, collective="reduce",
                    flat=dict(ranks=P, bandwidth=1 / 0.2e-9, alpha=0.7e-6))
    rows += df[["algorithm", "ranks", "time_s"]].to_dict("records")
reduce_times = pd.DataFrame(rows).pivot(index="ranks", columns="algorithm", values="time_s")
unit = W * 0.2e-9 + 0.7e-6
reduce_times["(P-1) (alpha+|W|beta)"] = [(P - 1) * unit for P in reduce_times.index]
reduce_times["ceil(log2 P) (alpha+|W|beta)"] = [np.ceil(np.log2(P)) * unit for P in reduce_times.index]
display(reduce_times.round(4))
assert np.allclose(reduce_times["naive"], reduce_times["(P-1) (alpha+|W|beta)"], rtol=1e-6)
assert np.allclose(reduce_times["binomial"], reduce_times["ceil(log2 P) (alpha+|W|beta)"], rtol=1e-6)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(reduce_times.index, reduce_times["naive"], "o-", label="round-robin master (naive): Θ(P)")
ax.plot(reduce_times.index, reduce_times["binomial"], "o-", label="tree reduction (binomial): Θ(log P)")
ax.set_xscale("log", base=2); ax.set_xlabel("ranks P"); ax.set_ylabel("reduce time (s)"); ax.legend()
ax.set_title("Reduce of 249 MB on FDR InfiniBand")
plt.show()
"""),
    md("""
## What the plots showed

- In the double binary tree every rank is interior in one tree and a leaf in the other, so every
  rank sends and receives about the same amount: the bandwidth a single tree leaves unused.
- Small messages are latency-bound: the ring pays 2(P-1) alpha, the trees about (4H - 2) alpha
  with one port (a rank's two children take turns), still logarithmic in P.
- Large messages are bandwidth-bound: the ring approaches 2N/B; a single tree needs 3N/B; two-tree
  gets near 2N/B where a rank's link carries its messages at once (flow engine), not where they
  take turns on one port (analytic engine), where it is no faster than one tree.
- So the size from which the ring wins grows with P: with more ranks, the trees stay ahead for
  larger messages.
- Seed 004's speed-up: a master that talks to one worker at a time costs (P-1) message times, a
  tree reduction ceil(log2 P) — the engine's times equal those formulas.
"""),
]

FABRIC_COMMON = """\
link_classes:
  net:
    bandwidth_Bps: 25.0e+9   # every link 25 GB/s (an HDR 200G port), so endpoints are equal
    latency_s: 1.0e-7
    alpha_s: 2.0e-6
gamma_s_per_byte: 1.0e-12
"""

WHAT_IF = [
    md("""
# 3. What if the cluster were different?

**What this teaches.** The same allreduce schedule runs very differently on different networks.
With the flow engine (transfers are flows sharing every link max-min fairly) we compare 64 ranks
on four fabrics whose links all run at 25 GB/s: a full fat-tree, a 2:1 tapered fat-tree, a
dragonfly and a 3-D torus; then where the ranks are placed, how many ranks share a node, which
algorithm wins for each (P, N), and seed 004's advice to pack many small layers into one message.
"""),
    code(SETUP),
    md("""
## Four fabrics, equal endpoint bandwidth

Each cluster is a few lines of YAML (`configs/README.md` documents the fields); every link runs
at 25 GB/s, so only the shape of the network differs.
"""),
    code(f'''
COMMON = """{FABRIC_COMMON}"""
FABRICS = {{
    "fat-tree": "topology: {{kind: xgft, m: [8, 8], w: [1, 8], link: net}}",
    "fat-tree 2:1": "topology: {{kind: xgft, m: [8, 8], w: [1, 4], link: net}}",
    "dragonfly": "topology: {{kind: dragonfly, p: 4, a: 4, h: 2, g: 4, terminal_link: net, local_link: net, global_link: net}}",
    "torus 4x4x4": "topology: {{kind: torus, dims: [4, 4, 4], link: net}}",
}}
def yaml_of(name):
    return f"name: {{name}}\\n" + COMMON + FABRICS[name] + "\\n"

rows = []
for name in FABRICS:
    df = cs.predict(["ring", "two-tree", "rabenseifner"], ["1M", "256M"], config_yaml=yaml_of(name), engine="flow")
    df["fabric"] = name
    rows.append(df)
fabrics = pd.concat(rows)
table = fabrics.pivot_table(index=["bytes", "algorithm"], columns="fabric", values="time_s") * 1e3
display(table.round(3).rename_axis(columns="time (ms)"))
big = fabrics[fabrics.bytes == 256 * 2**20].pivot(index="algorithm", columns="fabric", values="time_s")
# Rabenseifner's long-distance exchanges cross the tapered spine and the dragonfly's few global links.
assert big.loc["rabenseifner", "fat-tree 2:1"] > 1.5 * big.loc["rabenseifner", "fat-tree"]
assert big.loc["rabenseifner", "dragonfly"] > 2 * big.loc["rabenseifner", "fat-tree"]

ax = big.T.plot.bar(figsize=(7, 3.5), rot=0)
ax.set_ylabel("time (s)"); ax.set_title("Allreduce of 256 MiB on 64 ranks, flow engine")
plt.show()
'''),
    md("""
## Placement: linear against random

On the 2:1 tapered fat-tree preset (16 nodes x 4 GPUs), ranks placed in order keep ring
neighbours inside a node; a random placement sends most ring hops across the tapered spine.
"""),
    code("""
rows = []
for placement, seed in [("linear", 1), ("round-robin", 1), ("random", 1), ("random", 2), ("random", 3)]:
    df = cs.predict(["ring", "hierarchical-ring", "two-tree"], "256M", preset="fat-tree-2to1",
                    placement=placement, placement_seed=seed, engine="flow")
    rows.append(df)
placements = pd.concat(rows)
table = placements.pivot(index="placement", columns="algorithm", values="time_s") * 1e3
display(table.round(2).rename_axis(columns="time (ms)"))
assert table.loc["linear", "ring"] < table.filter(like="random", axis=0)["ring"].min()
ax = table.plot.bar(figsize=(8, 3.5), rot=15)
ax.set_ylabel("time (ms)"); ax.set_title("256 MiB allreduce, 64 ranks on fat-tree-2to1: where the ranks sit")
plt.show()
"""),
    md("""
## Ranks per node

A flat model with two link classes: 300 GB/s inside a node (NVLink), 25 GB/s between nodes. With
more GPUs per node, the hierarchical ring moves most bytes over the fast links, while the flat
ring is as slow as its slowest hop.
"""),
    code("""
rows = []
for g in [1, 2, 4, 8, 16]:
    flat_two_classes = f'''
name: {g} ranks per node
ranks: 64
ranks_per_node: {g}
links:
  inter_node: {{alpha_s: 2.0e-6, bandwidth_Bps: 25.0e+9}}
  intra_node: {{alpha_s: 1.0e-6, bandwidth_Bps: 300.0e+9}}
gamma_s_per_byte: 1.0e-12
'''
    df = cs.predict(["ring", "hierarchical-ring"], "256M", config_yaml=flat_two_classes)
    df["ranks per node"] = g
    rows.append(df)
per_node = pd.concat(rows).pivot(index="ranks per node", columns="algorithm", values="time_s") * 1e3
display(per_node.round(2).rename_axis(columns="time (ms)"))
ax = per_node.plot(marker="o", figsize=(6, 3.5), logx=True)
ax.set_ylabel("time (ms)"); ax.set_title("256 MiB allreduce on 64 ranks")
plt.show()
"""),
    md("""
## Which algorithm wins? (`--algo auto`)

For each number of ranks P and message size N, the fastest algorithm on a flat network with
alpha = 2 us, 25 GB/s and gamma = 1e-12 s/byte.
"""),
    code("""
Ps = [2, 4, 8, 16, 32, 64, 128]
sizes = [4**k for k in range(5, 16)]  # 1K .. 1G
winners = {}
for P in Ps:
    df = cs.predict("auto", sizes, flat=dict(ranks=P, bandwidth=25e9, alpha=2e-6, gamma=1e-12))
    winners[P] = dict(zip(df.bytes, df.algorithm))
grid = pd.DataFrame(winners).T.reindex(columns=sizes)
names = sorted(set(grid.values.ravel()))
codes = grid.apply(lambda col: col.map(names.index))
fig, ax = plt.subplots(figsize=(9, 3.8))
cmap = plt.get_cmap("tab10", len(names))
ax.imshow(codes.values, cmap=cmap, vmin=-0.5, vmax=len(names) - 0.5, aspect="auto")
ax.set_xticks(range(len(sizes)), [f"{s >> 30}G" if s >= 2**30 else f"{s >> 20}M" if s >= 2**20 else f"{s >> 10}K" for s in sizes])
ax.set_yticks(range(len(Ps)), Ps)
ax.set_xlabel("bytes per rank N"); ax.set_ylabel("ranks P")
handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i)) for i in range(len(names))]
ax.legend(handles, names, bbox_to_anchor=(1.01, 1), loc="upper left")
ax.set_title("Fastest allreduce algorithm (alpha 2 us, 25 GB/s)")
plt.show()
display(grid)
assert grid.loc[128, sizes[0]] != "ring"  # many ranks, tiny message: latency decides
"""),
    md("""
## Seed 004: pack many small layers into one message

Seed 004 packs all of a network's layers into one contiguous buffer and communicates once:
"for transferring the same volume of data, sending one big message is better than multiple small
messages", because each message pays alpha. Here, 100 layers of 10 KB each on seed 004's 10 GbE
cluster (alpha 7.2 us, beta 0.9 ns/byte): one allreduce per layer against one allreduce of 1 MB.
"""),
    code("""
layers, layer_bytes = 100, 10_000
rows = []
for P in [4, 16, 64]:
    flat = dict(ranks=P, bandwidth=1 / 0.9e-9, alpha=7.2e-6)
    per_layer = cs.predict("auto", layer_bytes, flat=flat)
    packed = cs.predict("auto", layers * layer_bytes, flat=flat)
    rows.append({"P": P, "one message per layer (ms)": layers * per_layer.time_s.iloc[0] * 1e3,
                 "packed (ms)": packed.time_s.iloc[0] * 1e3,
                 "best algorithm (layer / packed)": f"{per_layer.algorithm.iloc[0]} / {packed.algorithm.iloc[0]}"})
packing = pd.DataFrame(rows).set_index("P")
display(packing.round(3))
assert (packing["packed (ms)"] < packing["one message per layer (ms)"]).all()
ax = packing[["one message per layer (ms)", "packed (ms)"]].plot.bar(figsize=(6, 3.5), rot=0)
ax.set_ylabel("time (ms)"); ax.set_title("100 layers of 10 KB on 10 GbE")
plt.show()
"""),
    md("""
## A design space in one call: `cs.sweep`

One prediction answers one question; a design decision asks a grid of them. A sweep file names a
base cluster, the config fields that change (here how many DGX H100 nodes a SuperPOD scalable
unit holds and how its spines are tapered) and the request; `cs.sweep` (the module's
`collsim.sweep`, the same library as `collsim sweep FILE -o DIR`) prices every point on all
cores and returns the results table. `configs/sweeps/README.md` documents the format.
"""),
    code("""
import tempfile
from pathlib import Path
folder = Path(tempfile.mkdtemp())
(folder / "taper.yaml").write_text(
    "name: taper\\n"
    "base: {preset: dgx-h100-superpod-su}\\n"
    "axes:\\n"
    "  - {path: nodes.count, name: nodes, values: [2, 4, 8, 16]}\\n"
    "  - {path: topology.taper, name: taper, values: [[1, 1], [1, 0.25]], labels: ['1:1', '4:1']}\\n"
    "request:\\n"
    "  algorithms: [ring, two-tree, nccl]\\n"
    "  sizes: 64K,1G\\n")
table = cs.sweep(folder / "taper.yaml", folder / "out")
assert (table.status == "ok").all() and len(table) == 4 * 2 * 2 * 3
big = table[table.bytes == 2**30]
curves = big.pivot_table(index="ranks", columns=["algorithm", "taper"], values="busbw_GBps")
display(curves.round(1))
ax = curves.plot(marker="o", logx=True, figsize=(7, 3.5))
ax.set_xlabel("GPUs"); ax.set_ylabel("busbw (GB/s)"); ax.set_title("1 GiB allreduce on a SuperPOD SU, analytic engine")
plt.show()
display(big[big.algorithm == "nccl"][["nodes", "taper", "runs", "protocol", "time_s"]])
"""),
    md("""
On this rail-optimized unit a 4:1 spine costs the allreduce nothing: the rings and NCCL's choice
(NVLS-tree on 2 nodes, its ring with LL128 from 4; CollNet, through the fabric's SHARP switches,
is off as NCCL's default leaves it) stay under the leaves, while the flat two-tree's
bus bandwidth falls as nodes are added. (The analytic engine gives each rank one port, so the
ring's 8 channels take turns; `engine: flow` in the sweep file runs them side by side.)
"""),
    md("""
## What the plots showed

- With equal link speeds the shape of the network still matters, and it matters per algorithm:
  the ring talks only to its neighbours, which mostly share a switch, so it takes about the same
  time everywhere; Rabenseifner's exchanges between distant ranks cross the tapered spine (about
  twice slower) and the dragonfly's few global links (several times slower).
- Placing ranks in order keeps ring neighbours on one node; a random placement sends the traffic
  over the tapered spine and costs time.
- More GPUs per node help the hierarchical ring, which keeps most bytes on the fast links.
- Small messages favour few steps (recursive doubling, trees), large ones bandwidth-optimal
  schedules (ring, Rabenseifner): the winner depends on both P and N.
- Packing 100 small layers into one message saves 99 message latencies: seed 004's advice.
- A sweep prices a whole design space in one call (`cs.sweep`), its table ready to pivot and plot.
"""),
]

VALIDATION = [
    md("""
# 4. Predictions against measurements

**What this teaches.** A model is only as good as its agreement with the machine. `collsim
validate` runs schedules on real MPI ranks and GPUs and writes `validate/results/<platform>/results.csv`
(columns algorithm, ranks, bytes, predicted_s, measured_median_s, error_pct). This notebook plots
whatever results exist: predicted against measured time, and the error per size.
"""),
    code(SETUP),
    code("""
root = cs.ROOT  # the repository _collsim.py sits in (or COLLSIM_ROOT), from whatever folder this runs
files = sorted(root.glob("validate/results/*/results.csv"))
frames = []
for f in files:
    df = pd.read_csv(f)
    df["platform"] = f.parent.name
    frames.append(df)
results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
if results.empty:
    print("No measured results yet: validate/results/*/results.csv does not exist "
          f"under {root}. Run `collsim validate` on a machine to produce some.")
else:
    print(f"{len(results)} measurements from {len(files)} platform(s): {', '.join(sorted(results.platform.unique()))}")
"""),
    code("""
if not results.empty:
    summary = results.assign(abs_error=results.error_pct.abs()).groupby(["platform", "algorithm"]).abs_error
    display(pd.DataFrame({"median |error| %": summary.median(), "p90 |error| %": summary.quantile(0.9),
                          "runs": summary.size()}).round(1))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for (platform, algo), g in results.groupby(["platform", "algorithm"]):
        axes[0].loglog(g.measured_median_s, g.predicted_s, "o", label=f"{platform}: {algo}")
        axes[1].semilogx(g.bytes, g.error_pct, "o-", label=f"{platform}: {algo}")
    lo = min(results.measured_median_s.min(), results.predicted_s.min())
    hi = max(results.measured_median_s.max(), results.predicted_s.max())
    axes[0].plot([lo, hi], [lo, hi], "k:", label="predicted = measured")
    axes[0].set_xlabel("measured median (s)"); axes[0].set_ylabel("predicted (s)"); axes[0].legend(fontsize=7)
    axes[1].axhline(0, color="grey"); axes[1].set_xlabel("bytes"); axes[1].set_ylabel("error (%)")
    axes[1].set_title("(predicted - measured) / measured")
    plt.show()
"""),
    md("""
## What the plots showed

If results exist: points on the dotted diagonal are predictions that match the measurement; the
error plot shows at which sizes the model drifts (small messages are usually latency-dominated,
where a calibrated alpha matters most). If none exist yet, the notebook says so and shows nothing.
"""),
]

NOTEBOOKS = {
    "01-ring-allreduce.ipynb": RING,
    "02-trees-and-two-tree.ipynb": TREES,
    "03-what-if-clusters.ipynb": WHAT_IF,
    "04-validation.ipynb": VALIDATION,
}


def notebook(cells):
    for c in cells:  # nbformat stores source as a list of lines
        c["source"] = c["source"].splitlines(keepends=True)
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for name, cells in NOTEBOOKS.items():
        for i, c in enumerate(cells):
            c["id"] = f"{name[:2]}-{i:02d}"
        (here / name).write_text(json.dumps(notebook(cells), indent=1) + "\n")
        print("wrote", here / name)
