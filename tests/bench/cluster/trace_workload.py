#!/usr/bin/python3
"""Owns the benchmark's replay of a public trace: a stretch of the Philly
trace (Microsoft's msr-fiddle/philly-traces, in the CSV of DIR-LAB's
Gen-Parallel-Workloads: u_id, user, gpu_num, cpu_num, node_num, interval,
run_time, wall_time, new_status) mapped onto the bench's cluster, written
as workload.py's files (tests/bench/cluster/run.sh, GQ_BENCH_TRACE).

  trace_workload.py --trace CSV --start S --jobs J --nodes N --gpus G
           --projects P --zero Z --seconds D --load L --out DIR

Writes DIR/projects.tsv ("name quota"), DIR/schedule.tsv (schedule.py's
format), DIR/users.tsv ("user account gpu_seconds") and DIR/about.txt (one
line: the stretch and the mapping, for the report).  The same arguments
give the same files byte for byte.

- Stretch: the J jobs from row S (0: the file's first job), in the file's
  order.  The first is submitted at 0, each next one `interval` seconds
  after the one before.
- Shape: a job of node_num k > 1 asks min(k, N) whole nodes (`-N k
  --gres=gpu:G`); a one-node job min(gpu_num, G) GPUs (at least 1).
- Time: submit times scaled by D / (the stretch's span), so the last job
  is submitted at D.  Run times scaled by a second factor b, rounded to
  whole seconds and clipped to [RUN_MIN, D/2]; b is the smallest factor
  (found by bisection) at which the offered GPU-seconds (each job's GPUs
  times its clipped run time) reach L x the cluster's GPU-seconds over the
  submit window (N x G x D).  When even b = 0 (every job RUN_MIN) offers
  more, or no b reaches it (every job D/2), the multiple reached is stated.
- Projects: users ranked by offered GPU-seconds (ties by user id); the P
  heaviest get projects u<user> with quotas proportional to it, summing
  to N x G (largest remainder, at least 1 each); the others go, in rank
  order, round robin to the Z zero-quota accounts z01...
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402

RUN_MIN = 2	# seconds: a job's shortest run time
BISECT = 100	# bisection steps for the run-time factor


def read_stretch(path, start, jobs):
	"""The J jobs from row `start`: [(user, gpu_num, node_num, submit, run_time)],
	submit in trace seconds from the stretch's first job."""
	out = []
	t = 0
	with open(path, newline="") as f:
		for i, r in enumerate(csv.DictReader(f)):
			if i < start:
				continue
			if i >= start + jobs:
				break
			if out:
				t += int(r["interval"])
			out.append((r["user"], int(r["gpu_num"]), int(r["node_num"]), t, int(r["run_time"])))
	return out


def shape(gpu_num, node_num, nodes, gpus):
	"""(GPUs per node, nodes) a trace job asks on the bench's cluster."""
	if node_num > 1:
		return gpus, min(node_num, nodes)
	return max(1, min(gpu_num, gpus)), 1


def runtime(raw, b, hi):
	return int(min(hi, max(RUN_MIN, round(b * raw))))


def offered(jobs, b, hi):
	"""GPU-seconds the jobs [(GPUs, raw run time)] offer at run-time factor b."""
	return sum(g * runtime(x, b, hi) for g, x in jobs)


def run_factor(jobs, target, hi):
	"""The smallest b (by bisection) with offered(b) >= target; 0 when
	offered(0) does already; the factor that clips every job at hi when
	none reaches it."""
	if offered(jobs, 0.0, hi) >= target:
		return 0.0
	top = float(hi) / max(1, min(x for _, x in jobs))	# every job at hi
	if offered(jobs, top, hi) < target:
		return top
	lo = 0.0
	for _ in range(BISECT):
		mid = (lo + top) / 2
		if offered(jobs, mid, hi) >= target:
			top = mid
		else:
			lo = mid
	return top


def quotas(weights, capacity):
	"""Integer quotas proportional to weights, summing to capacity, each at
	least 1 (largest remainder; ties to the earlier)."""
	total = sum(weights)
	q = [capacity * w // total for w in weights]
	rest = sorted(range(len(weights)), key=lambda i: (-(capacity * weights[i] % total), i))
	for i in rest[:capacity - sum(q)]:
		q[i] += 1
	for i in range(len(q)):
		while q[i] < 1:
			j = max(range(len(q)), key=lambda k: (q[k], -k))
			q[j] -= 1
			q[i] += 1
	return q


def accounts(usage, projects, zero, capacity):
	"""(projects [(name, quota)], zero-quota names, user -> account) from
	usage {user: GPU-seconds}."""
	ranked = sorted(usage, key=lambda u: (-usage[u], u))
	top = ranked[:projects]
	names = ["u" + u for u in top]
	zeros = ["z%02d" % (i + 1) for i in range(zero)]
	acct = dict(zip(top, names))
	for k, u in enumerate(ranked[projects:]):
		acct[u] = zeros[k % zero]
	return list(zip(names, quotas([usage[u] for u in top], capacity))), zeros, acct


def build(rows, a):
	"""(entries, projects, zeros, account of each user, usage, about figures)."""
	cap, hi = a.nodes * a.gpus, max(RUN_MIN, a.seconds // 2)
	shapes = [shape(g, k, a.nodes, a.gpus) for _, g, k, _, _ in rows]
	jobs = [(g * n, r[4]) for (g, n), r in zip(shapes, rows)]
	b = run_factor(jobs, a.load * cap * a.seconds, hi)
	span = rows[-1][3]
	f = float(a.seconds) / span if span > 0 else 0.0
	usage = {}
	entries = []
	for i, (r, (g, n)) in enumerate(zip(rows, shapes)):
		rt = runtime(r[4], b, hi)
		usage[r[0]] = usage.get(r[0], 0) + g * n * rt
		entries.append([i + 1, f * r[3], r[0], g, rt, 1, "job", n])
	projects, zeros, acct = accounts(usage, a.projects, a.zero, cap)
	for e in entries:
		e[2] = acct[e[2]]
	fig = {"span": span, "f": f, "b": b, "hi": hi, "load": offered(jobs, b, hi) / (cap * a.seconds),
	       "at_min": sum(1 for e in entries if e[4] == RUN_MIN),
	       "at_max": sum(1 for e in entries if e[4] == hi),
	       "multi": sum(1 for _, n in shapes if n > 1)}
	return [schedule.Entry(*e) for e in entries], projects, zeros, acct, usage, fig


def about(a, rows, projects, usage, fig):
	"""One line: the stretch and the mapping."""
	return ("trace %s, jobs %d-%d (%d jobs, %.1f h of the trace, %d users, %d on more than one "
		"node); submit times x%.4g (into %d s), run times x%.4g clipped to %d-%d s (%d at %d s, "
		"%d at %d s): offered %.2fx the cluster's GPU-seconds over the submit window (target "
		"%.2fx); the %d heaviest users by offered GPU-seconds are projects with quotas "
		"proportional to it, the other %d share %d zero-quota account(s); a job of k > 1 "
		"nodes asks min(k, %d) whole nodes, a one-node job min(its GPUs, %d)"
		% (os.path.basename(a.trace), a.start, a.start + len(rows) - 1, len(rows),
		   fig["span"] / 3600.0, len(usage), fig["multi"], fig["f"], a.seconds, fig["b"],
		   RUN_MIN, fig["hi"], fig["at_min"], RUN_MIN, fig["at_max"], fig["hi"], fig["load"],
		   a.load, len(projects), len(usage) - len(projects), a.zero, a.nodes, a.gpus))


def write(a, entries, projects, zeros, acct, usage, text):
	os.makedirs(a.out, exist_ok=True)
	with open(os.path.join(a.out, "projects.tsv"), "w") as f:
		for n, q in projects:
			f.write("%s\t%d\n" % (n, q))
		for n in zeros:
			f.write("%s\t0\n" % n)
	schedule.write(os.path.join(a.out, "schedule.tsv"), entries)
	with open(os.path.join(a.out, "users.tsv"), "w") as f:
		for u in sorted(usage, key=lambda u: (-usage[u], u)):
			f.write("%s\t%s\t%d\n" % (u, acct[u], usage[u]))
	with open(os.path.join(a.out, "about.txt"), "w") as f:
		f.write(text + "\n")


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--trace", required=True)
	for k, d in (("start", 0), ("jobs", 2000), ("nodes", 64), ("gpus", 8), ("projects", 24),
		     ("zero", 3), ("seconds", 420)):
		ap.add_argument("--" + k, type=int, default=d)
	ap.add_argument("--load", type=float, default=1.3)
	ap.add_argument("--out", required=True)
	a = ap.parse_args()
	if a.projects < 1 or a.zero < 1 or a.nodes < 1 or a.gpus < 1 or a.jobs < 1 \
	   or a.seconds < 10 or a.load <= 0:
		ap.error("need --projects/--zero/--nodes/--gpus/--jobs >= 1, --seconds >= 10, --load > 0")
	if a.projects > a.nodes * a.gpus:
		ap.error("cluster of %d GPUs too small for %d projects" % (a.nodes * a.gpus, a.projects))
	rows = read_stretch(a.trace, a.start, a.jobs)
	if len(rows) < a.jobs:
		ap.error("%s has %d jobs from row %d, fewer than --jobs %d"
			 % (a.trace, len(rows), a.start, a.jobs))
	entries, projects, zeros, acct, usage, fig = build(rows, a)
	text = about(a, rows, projects, usage, fig)
	write(a, entries, projects, zeros, acct, usage, text)
	print("trace: " + text, file=sys.stderr)


if __name__ == "__main__":
	main()
