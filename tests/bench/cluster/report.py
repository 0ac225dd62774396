#!/usr/bin/python3
"""Owns the benchmark's report: analyzes every run (analyze.py), then a
table of stock and gpuquota side by side over the rounds (median and
min-max of each, the gpuquota/stock ratio per round: min/median/max) with
the targets of docs/PERFORMANCE.md marked met or missed; a table of the
controller's cost, gpuquota against plain multifactor; the plot's data.

  report.py --work DIR --rounds N --out OUTDIR --machine TEXT
            [--systems "stock gpuquota multifactor"]
  -> OUTDIR/table.md, results.json, alloc-<system>.tsv (stacked per
     project, round 1), plot.cfg (for plot.gp)
The table's header names the workload: a trace's stretch and mapping
(the workload dir's about.txt, trace_workload.py), else the seeded one."""
import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def med(xs):
	s = sorted(xs)
	n = len(s)
	return None if n == 0 else (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)


def get(r, path):
	for k in path.split("."):
		if r is None:
			return None
		r = r.get(k)
	return r


def fmt(x, unit):
	if x is None:
		return "n/a"
	if unit == "ms":
		return "%.1f ms" % (x / 1000.0)
	if unit == "msf":
		return "%.2f ms" % (x / 1000.0)
	if unit == "s":
		return "%.2f s" % x
	if unit == "s0":
		return "%.0f s" % x
	if unit == "MiB":
		return "%.0f MiB" % x
	if unit == "/s":
		return "%.1f /s" % x
	if unit == "gs":
		return "%.0f" % x
	if unit == "n1":
		return "%.1f" % x
	if unit == "n3":
		return "%.3f" % x
	return "%g" % x


# (label, key, unit, target kind, target value, whose)
ROWS = [
	("main cycle mean (sdiag)", "main_mean_us", "ms", "ratio<=", 1.10),
	("main cycle max (sdiag)", "main_max_us", "ms", None, None),
	("backfill cycle mean (sdiag)", "bf_mean_us", "ms", None, None),
	("gpuquota pass p50", "pass_us.p50", "msf", None, None),
	("gpuquota pass p99", "pass_us.p99", "msf", None, None),
	("gpuquota pass max", "pass_us.max", "msf", None, None),
	("gpuquota re-holds (lock holds that are no pass)", "reholds", "gs", None, None),
	("gpuquota write-lock hold p50", "lock_us.p50", "msf", None, None),
	("gpuquota write-lock hold p99", "lock_us.p99", "msf", "gq<", 10000),
	("gpuquota write-lock hold max", "lock_us.max", "msf", None, None),
	("gpuquota write-lock hold, thread CPU p50", "lock_cpu_us.p50", "msf", None, None),
	("gpuquota write-lock hold, thread CPU p99", "lock_cpu_us.p99", "msf", None, None),
	("gpuquota read-lock hold p50 (readers go on, writers wait)", "read_us.p50", "msf", None, None),
	("gpuquota read-lock hold p99", "read_us.p99", "msf", None, None),
	("gpuquota read-lock hold, thread CPU p50", "read_cpu_us.p50", "msf", None, None),
	("gpuquota read-lock hold, thread CPU p99", "read_cpu_us.p99", "msf", None, None),
	("gpuquota passes made whole (a reclaim between the holds, 3 times)", "whole_passes", "gs", None, None),
	("slurmctld CPU seconds (window)", "cpu_s", "s", "ratio<=", 1.10),
	("slurmctld peak RSS (VmHWM)", "vmhwm_mib", "MiB", None, None),
	("submit throughput, burst (sbatch/s)", "burst_sbatch_per_s", "/s", "ratio>=", 1 / 1.10),
	("submit throughput, storm of held submits after the window (sbatch/s)", "storm_sbatch_per_s", "/s", "ratio>=", 1 / 1.10),
	("sbatch latency p50", "sbatch_s.p50", "s", None, None),
	("squeue latency p50", "squeue_s.p50", "s", None, None),
	("squeue latency p99", "squeue_s.p99", "s", None, None),
	("reclaim latency p50", "reclaim_s.p50", "s", "gq<", 2.0),
	("reclaim latency p99", "reclaim_s.p99", "s", "gq<", 6.0),
	("reclaim probes (censored)", "reclaim_s.n", "n", None, None),
	("idle GPU-s while eligible demand waited", "idle_wait_gpu_s", "gs", "gq<=stock", None),
	("GPUs allocated, mean over the window (%)", "allocated_pct", "n1", None, None),
	("GPU-s lost to requeues (moves included)", "lost_gpu_s", "gs", "ratio<=", 0.5),
	("requeues (victims)", "requeues", "n", None, None),
	("jobs moved (docs/MODEL.md, Moves)", "moves", "n", None, None),
	("  moves, a share of the requeues", "moves_share", "n3", "gq<=", 0.10),
	("  GPU-s lost by checkpointing jobs", "lost_ckpt_gpu_s", "gs", None, None),
	("  requeues of checkpointing jobs", "requeues_ckpt", "n", None, None),
	("quota-guarantee violation, all projects", "violation_total_s", "s0", "gq==0", None),
	("  same, episodes past a 10 s grace", "violation_grace_total_s", "s0", "gq==0", None),
	("  same, jobs that fit one node, past the grace", "violation_one_node_grace_total_s", "s0",
	 "gq==0", None),
	("multi-node in-quota jobs, mean wait", "multinode_wait_s.mean", "s", "ratio<=", 0.5),
	("  multi-node in-quota jobs (censored: never started)", "multinode_wait_s.n", "n", None, None),
	("pending jobs, max in window", "pending_jobs.max", "n", None, None),
]


# The controller's cost against plain multifactor (same workload, same
# run): (label, key, unit, target ratio or None).  CPU per second of the
# window: a run whose submits lag has a longer window.
COST_ROWS = [
	("main cycle mean (sdiag)", "main_mean_us", "ms", 1.50),
	("backfill cycle mean (sdiag)", "bf_mean_us", "ms", None),
	("main cycle per job it started", "main_per_start_us", "msf", None),
	("main + backfill cycles per job started", "sched_per_start_us", "msf", None),
	("slurmctld CPU per second of window", "cpu_per_s", "n3", 1.10),
	("slurmctld CPU seconds (window)", "cpu_s", "s", None),
	("slurmctld peak RSS (VmHWM)", "vmhwm_mib", "MiB", None),
	("RPCs served (sdiag, all types)", "rpc_count", "n", None),
	("RPC time (sdiag total_time, all types)", "rpc_s", "s", None),
	("sbatch latency p50", "sbatch_s.p50", "s", None),
	("squeue latency p50", "squeue_s.p50", "s", None),
	("submit throughput, storm of held submits (sbatch/s)", "storm_sbatch_per_s", "/s", None),
]


def cells(vals, unit):
	"""The median (min-max) of one system's rounds."""
	v = [x for x in vals if x is not None]
	if not v:
		return "n/a"
	if len(v) == 1:
		return fmt(v[0], unit)
	return "%s (%s-%s)" % (fmt(med(v), unit), fmt(min(v), unit), fmt(max(v), unit))


def cost_table(gq, mf):
	"""Markdown lines: gpuquota against plain multifactor, per round."""
	out = ["| measure | multifactor | gpuquota | ratio min / median / max | target | met |",
	       "|---|---|---|---|---|---|"]
	for label, key, unit, target in COST_ROWS:
		mv = [get(r, key) for r in mf]
		gv = [get(r, key) for r in gq]
		ratios = [g / m for m, g in zip(mv, gv) if m and g is not None]
		rc = "n/a" if not ratios else "%.2f / %.2f / %.2f" % (min(ratios), med(ratios), max(ratios))
		tgt = met = ""
		if target is not None:
			tgt = "ratio <= %.2f" % target
			met = "n/a" if not ratios else ("yes" if med(ratios) <= target else "**no**")
		out.append("| %s | %s | %s | %s | %s | %s |" % (label, cells(mv, unit), cells(gv, unit), rc, tgt, met))
	return out


def workload_text(wl):
	"""What the runs replayed: trace_workload.py's about.txt, else the seeded workload."""
	try:
		with open(os.path.join(wl, "about.txt")) as f:
			return f.read().strip()
	except OSError:
		return "the seeded synthetic one (workload.py)"


def plot_workload(wl):
	"""The plot title's note of a trace's stretch ("trace F, jobs A-B"), or ""."""
	if not os.path.exists(os.path.join(wl, "about.txt")):
		return ""
	return ", " + workload_text(wl).split(" (")[0].replace('"', "")


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--work", required=True)
	ap.add_argument("--rounds", type=int, required=True)
	ap.add_argument("--out", required=True)
	ap.add_argument("--machine", default="")
	ap.add_argument("--systems", default="stock gpuquota")
	a = ap.parse_args()
	wl = os.path.join(a.work, "workload")
	res = {s: [] for s in a.systems.split()}
	for r in range(1, a.rounds + 1):
		for s in res:
			run = os.path.join(a.work, "r%d-%s.out" % (r, s))
			subprocess.run([sys.executable, os.path.join(HERE, "analyze.py"),
					"--work", wl, "--run", run], check=True)
			with open(os.path.join(run, "result.json")) as f:
				x = json.load(f)
			x["cpu_per_s"] = x["cpu_s"] / x["window_s"] if x.get("window_s") else None
			res[s].append(x)
	os.makedirs(a.out, exist_ok=True)
	with open(os.path.join(a.out, "results.json"), "w") as f:
		json.dump(res, f, indent=1)
	lines = header(a, wl, next(iter(res.values()))[0])
	if "stock" in res and "gpuquota" in res:
		lines += stock_table(a, wl, res["stock"], res["gpuquota"])
	if "multifactor" in res and "gpuquota" in res:
		lines += ["", "Controller cost against plain multifactor (priority/multifactor, "
			  "preempt/none, no quotas; same workload, same run; ratio = gpuquota / "
			  "multifactor of the same round):", ""]
		lines += cost_table(res["gpuquota"], res["multifactor"])
	with open(os.path.join(a.out, "table.md"), "w") as f:
		f.write("\n".join(lines) + "\n")
	plot_data(a, wl, res)


def header(a, wl, first):
	"""Markdown lines: when, where, the workload (first: a run's result)."""
	when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
	with open(os.path.join(wl, "projects.tsv")) as f:
		projects = [l.split() for l in f if l.strip()]
	with open(os.path.join(wl, "schedule.tsv")) as f:
		nsub = sum(1 for _ in f)
	return ["Run %s on %s; %d accounts (%d zero-quota), %d GPUs, %d submits, "
		"window %.0f s; %d round(s), the median shown with min-max over rounds."
		% (when, a.machine, len(projects), sum(1 for p in projects if p[1] == "0"),
		   first["capacity"], nsub, first["window_s"], a.rounds),
		"", "Workload: %s." % workload_text(wl), ""]


def stock_table(a, wl, st, gq):
	"""Markdown lines: stock against gpuquota (ratio = gpuquota / stock of
	the same round), per project."""
	with open(os.path.join(wl, "projects.tsv")) as f:
		projects = [l.split() for l in f if l.strip()]
	lines = ["Stock against gpuquota (ratio = gpuquota / stock of the same round):", ""]
	lines.append("| measure | stock | gpuquota | ratio min / median / max | target | met |")
	lines.append("|---|---|---|---|---|---|")
	for label, key, unit, kind, val in ROWS:
		sv = [get(r, key) for r in st]
		gv = [get(r, key) for r in gq]

		def cell(v):
			return cells(v, unit)
		if key.startswith("reclaim_s.n"):
			cell_s = "%s (%d)" % (cell(sv), sum(r["reclaim_censored"] for r in st))
			cell_g = "%s (%d)" % (cell(gv), sum(r["reclaim_censored"] for r in gq))
		elif key.startswith("multinode_wait_s.n"):
			cell_s = "%s (%d)" % (cell(sv), sum(get(r, "multinode_wait_s.censored") or 0 for r in st))
			cell_g = "%s (%d)" % (cell(gv), sum(get(r, "multinode_wait_s.censored") or 0 for r in gq))
		else:
			cell_s, cell_g = cell(sv), cell(gv)
		if key.startswith(("pass_us", "lock_us", "lock_cpu_us", "reholds", "read_us", "read_cpu_us", "whole_passes")):
			cell_s = "-"
		ratios = [g / s for s, g in zip(sv, gv) if s and g is not None]
		rc = "n/a" if not ratios else "%.2f / %.2f / %.2f" % (min(ratios), med(ratios), max(ratios))
		if key.startswith(("pass_us", "lock_us", "lock_cpu_us", "reholds", "read_us", "read_cpu_us", "whole_passes")):
			rc = "-"
		gm = med([x for x in gv if x is not None])
		sm = med([x for x in sv if x is not None])
		tgt, met = "", ""
		if kind == "ratio<=":
			tgt = "ratio <= %.2f" % val
			met = "n/a" if not ratios else ("yes" if med(ratios) <= val else "**no**")
		elif kind == "ratio>=":
			tgt = "ratio >= %.2f" % val
			met = "n/a" if not ratios else ("yes" if med(ratios) >= val else "**no**")
		elif kind == "gq<":
			tgt = "< %s" % fmt(val, unit)
			met = "n/a" if gm is None else ("yes" if gm < val else "**no**")
		elif kind == "gq<=":
			tgt = "<= %s" % fmt(val, unit)
			met = "n/a" if gm is None else ("yes" if gm <= val else "**no**")
		elif kind == "gq<=stock":
			tgt = "<= stock"
			met = "n/a" if gm is None or sm is None else ("yes" if gm <= sm else "**no**")
		elif kind == "gq==0":
			tgt = "0"
			met = "n/a" if gm is None else ("yes" if max(x for x in gv if x is not None) == 0 else "**no**")
		lines.append("| %s | %s | %s | %s | %s | %s |" % (label, cell_s, cell_g, rc, tgt, met))
	lines.append("")
	lines.append("Per project (round 1): quota, quota-guarantee violation seconds "
		     "(all / past the grace), stock vs gpuquota:")
	lines.append("")
	lines.append("| project | quota | stock | gpuquota |")
	lines.append("|---|---|---|---|")
	for name, q in projects:
		if q == "0":
			continue
		lines.append("| %s | %s | %.0f / %.0f | %.0f / %.0f |" % (
			name, q, st[0]["violation_s"][name], st[0]["violation_grace_s"][name],
			gq[0]["violation_s"][name], gq[0]["violation_grace_s"][name]))
	lines.append("")
	lines.append("Stock routing: %d submits to q-<account>, %d to scavenger (round 1). "
		     "Submit lag p99 (late against the schedule): stock %s, gpuquota %s."
		     % (st[0]["stock_routing"]["q"], st[0]["stock_routing"]["scavenger"],
			fmt(st[0]["submit_lag_s"]["p99"], "s"), fmt(gq[0]["submit_lag_s"]["p99"], "s")))
	return lines


def plot_data(a, wl, res):
	"""Round 1, cumulative allocation per project (stacked areas)."""
	when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
	with open(os.path.join(wl, "projects.tsv")) as f:
		projects = [l.split() for l in f if l.strip()]
	for s in res:
		src = os.path.join(a.work, "r1-%s.out" % s, "alloc.tsv")
		with open(src) as f, open(os.path.join(a.out, "alloc-%s.tsv" % s), "w") as o:
			head = f.readline().split()
			o.write("\t".join(head) + "\n")
			for line in f:
				x = line.split()
				c, out = 0, [x[0]]
				for v in x[1:]:
					c += int(v)
					out.append(str(c))
				o.write("\t".join(out) + "\n")
	with open(os.path.join(a.out, "plot.cfg"), "w") as f:
		f.write("N = %d\nCAP = %d\nSYSTEMS = \"%s\"\nTITLE = \"%s\"\n" % (
			len(projects), next(iter(res.values()))[0]["capacity"], " ".join(res),
			"GPUs allocated per project (stacked), round 1, %s%s" % (when, plot_workload(wl))))


if __name__ == "__main__":
	main()
