#!/usr/bin/python3
"""Owns the side-by-side of a finished bench run (run.sh) and
`gpuquota simulate` on the same workload (validate.sh): the figures both
give, as markdown tables.

  compare.py --work BENCH_DIR --report REPORT_DIR --sim SIM_DIR
  -> stdout and SIM_DIR/validate.md

The bench's figures: REPORT_DIR/results.json (report.py: analyze.py's
result.json of every round, per system) and BENCH_DIR/rR-SYS.out/alloc.tsv
(each project's GPUs per sample of the measured window); the median over
the rounds, with min-max when there are several.  The simulator's:
SIM_DIR/sim.json (`--json`, the gpuquota.json first, stock second),
SIM_DIR/alloc.dat (`--plot`'s data: each project's GPUs over time) and
SIM_DIR/to_sim.json (to_sim.py: where the bench's time 0 falls).

Windows: the bench measures from its first submit's time 0 to the last
submit plus the tail (window_s); validate.sh replays the same window
(`--until`, the rounds' median), so every figure covers the same time on
both sides (GPU-seconds held are cut to it here again, from the plot's
series).  Time below quota differs in definition: the bench's
quota-guarantee violation (a job of the project would fit in its quota
while another project is over its own) against the simulator's hours
below min(quota, demand) with demand pending."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import to_sim  # noqa: E402

SYSTEMS = ("gpuquota", "stock")


def need(path, what):
	"""path, or exit naming it and what writes it."""
	if not os.path.exists(path):
		sys.exit("compare: missing %s (%s)" % (path, what))
	return path


def med(xs):
	s = sorted(xs)
	n = len(s)
	return None if n == 0 else (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)


def cell(xs, fmt="%.0f"):
	"""The median of xs, with (min-max) when they differ; n/a for none."""
	xs = [x for x in xs if x is not None]
	if not xs:
		return "n/a"
	m = fmt % med(xs)
	return m if min(xs) == max(xs) else "%s (%s-%s)" % (m, fmt % min(xs), fmt % max(xs))


def alloc_gpu_secs(path):
	"""A bench run's alloc.tsv (t from the window's start, a column of GPUs
	per project) -> {project: GPU-seconds}, each sample held until the
	next (the last one for no time, as analyze.py counts)."""
	with open(path) as f:
		head = f.readline().split()[1:]
		rows = [[float(x) for x in l.split()] for l in f if l.strip()]
	out = {p: 0.0 for p in head}
	for r, nxt in zip(rows, rows[1:]):
		for p, g in zip(head, r[1:]):
			out[p] += g * (nxt[0] - r[0])
	return out


def read_dat(path):
	"""`simulate --plot`'s FILE.dat -> one (names, rows) per configuration
	in its order: rows [(t_s, [GPUs per name])], each a step's mean held
	until the next row's time (the last row the series' end)."""
	blocks, names, rows, unit = [], None, None, 3600.0
	with open(path) as f:
		for line in f:
			x = line.split()
			if line.startswith("# ") and len(x) > 2 and x[2] == "total":
				unit = 86400.0 if x[1] == "days" else 3600.0
				names, rows = x[3:], []
				blocks.append((names, rows))
			elif x and not line.startswith("#") and rows is not None:
				rows.append((float(x[0]) * unit, [float(v) for v in x[2:]]))
	return blocks


def series_gpu_secs(names, rows, end):
	"""GPU-seconds per name held over [0, end) of a read_dat block."""
	out = {n: 0.0 for n in names}
	for (t, lv), (t2, _) in zip(rows, rows[1:]):
		d = max(0.0, min(t2, end) - max(t, 0.0))
		for n, g in zip(names, lv):
			out[n] += g * d
	return out


def bench_side(work, report):
	"""{system: {"res": [result per round], "alloc": [{project: GPU-s}]}}"""
	with open(need(os.path.join(report, "results.json"), "report.py, after the bench's rounds")) as f:
		res = json.load(f)
	out = {}
	for s in SYSTEMS:
		runs = res.get(s) or sys.exit("compare: %s has no %s rounds"
					      % (os.path.join(report, "results.json"), s))
		alloc = [alloc_gpu_secs(need(os.path.join(work, "r%d-%s.out" % (r + 1, s), "alloc.tsv"),
					     "analyze.py, run by report.py"))
			 for r in range(len(runs))]
		out[s] = {"res": runs, "alloc": alloc}
	return out


def sim_side(sim, window):
	"""{system: {"cfg": its sim.json object, "alloc": {project: GPU-s in
	the bench's window}}}, projects named as the bench names them."""
	with open(need(os.path.join(sim, "sim.json"), "gpuquota simulate --json")) as f:
		cfgs = json.load(f)
	blocks = read_dat(need(os.path.join(sim, "alloc.dat"), "gpuquota simulate --plot"))
	with open(need(os.path.join(sim, "to_sim.json"), "to_sim.py")) as f:
		first = json.load(f)["first_submit_s"]
	if len(cfgs) != len(SYSTEMS) or len(blocks) != len(SYSTEMS):
		sys.exit("compare: %s: want the gpuquota.json's replay and stock's" % sim)
	out = {}
	for s, cfg, (names, rows) in zip(SYSTEMS, cfgs, blocks):
		held = series_gpu_secs(names, rows, window - first)
		out[s] = {"cfg": cfg, "alloc": {bench_name(n): v for n, v in held.items()}}
	return out


def bench_name(sim_name):
	"""The bench's account of the simulator's name (to_sim.sim_account's inverse)."""
	p = to_sim.sim_account("")
	return sim_name[len(p):] if sim_name.startswith(p) else sim_name


def cluster_table(b, s, cap):
	"""The cluster's figures, one row each: bench window vs simulate."""
	lines = ["| measure | bench gpuquota | simulate gpuquota | bench stock (QOS recipe) "
		 "| simulate stock (FIFO, no reclaim) |", "|---|---|---|---|---|"]
	win = [r["window_s"] for r in b["gpuquota"]["res"]]

	def row(label, bench, sim, fmt="%.0f"):
		cells = []
		for sy in SYSTEMS:
			cells += [cell([bench(r, a) for r, a in zip(b[sy]["res"], b[sy]["alloc"])], fmt),
				  fmt % sim(s[sy]) if sim else "-"]
		lines.append("| %s | %s |" % (label, " | ".join(cells)))

	def proj_sum(x, k):
		return sum(p[k] for p in x["cfg"]["projects"]) * (3600 if k == "gpu_hours_lost" else 1)
	row("GPU-s held in the window", lambda r, a: sum(a.values()),
	    lambda x: sum(x["alloc"].values()))
	row("GPUs allocated, mean over the window (%)", lambda r, a: r["allocated_pct"],
	    lambda x: 100.0 * sum(x["alloc"].values()) / (cap * med(win)), "%.1f")
	row("idle GPU-s while jobs waited", lambda r, a: r["idle_wait_gpu_s"],
	    lambda x: 3600 * x["cfg"]["idle_gpu_hours_while_waiting"])
	row("requeues", lambda r, a: r["requeues"],
	    lambda x: proj_sum(x, "requeues"))
	row("GPU-s lost to requeues", lambda r, a: r["lost_gpu_s"],
	    lambda x: proj_sum(x, "gpu_hours_lost"))
	row("span, s (bench: the window; simulate: its replay)", lambda r, a: r["window_s"],
	    lambda x: x["cfg"]["span_s"])
	return lines


def project_table(b, s, sy, order, quota):
	"""Per project under system sy: GPU-s in the window, time below quota."""
	lines = ["| project | quota | GPU-s bench | GPU-s simulate | simulate / bench "
		 "| bench violation s | simulate below quota s |",
		 "|---|---|---|---|---|---|---|"]
	below = {bench_name(p["project"]): p["below_quota_s"] for p in s[sy]["cfg"]["projects"]}
	for p in order:
		bv = [a.get(p, 0.0) for a in b[sy]["alloc"]]
		sv = s[sy]["alloc"].get(p, 0.0)
		ratio = "%.2f" % (sv / med(bv)) if med(bv) else "n/a"
		viol = [r["violation_s"].get(p) for r in b[sy]["res"]] if quota[p] > 0 else []
		lines.append("| %s | %d | %s | %.0f | %s | %s | %s |" % (
			p, quota[p], cell(bv), sv, ratio, cell(viol) if viol else "-",
			below.get(p, "n/a")))
	return lines


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--work", required=True, help="the bench's work dir")
	ap.add_argument("--report", required=True, help="the bench's report dir")
	ap.add_argument("--sim", required=True, help="validate.sh's dir of the simulator's files")
	a = ap.parse_args()
	wl = os.path.join(a.work, "workload")
	with open(need(os.path.join(wl, "projects.tsv"), "workload.py")) as f:
		rows = [l.split() for l in f if l.strip()]
	order, quota = [r[0] for r in rows], {r[0]: int(r[1]) for r in rows}
	b = bench_side(a.work, a.report)
	window = med([r["window_s"] for r in b["gpuquota"]["res"]])
	s = sim_side(a.sim, window)
	cap = b["gpuquota"]["res"][0]["capacity"]
	out = ["Bench %s: %d round(s), the median with min-max over them; simulate on the "
	       "same workload (%s). GPU-s held are cut to the bench's window (%.0f s from its "
	       "time 0) on both sides." % (a.work, len(b["gpuquota"]["res"]), a.sim, window), ""]
	out += cluster_table(b, s, cap)
	for sy in SYSTEMS:
		out += ["", "Per project, %s:" % sy, ""]
		out += project_table(b, s, sy, order, quota)
	text = "\n".join(out) + "\n"
	sys.stdout.write(text)
	with open(os.path.join(a.sim, "validate.md"), "w") as f:
		f.write(text)


if __name__ == "__main__":
	main()
