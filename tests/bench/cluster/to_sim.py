#!/usr/bin/python3
"""Owns the bench's workload as `gpuquota simulate`'s input (validate.sh):
the submit schedule as a Philly-shaped trace CSV (src/sim/trace_csv.h)
and the bench's gpuquota.json with its accounts named as the simulator
names them.

  to_sim.py --work WORKLOADDIR --out DIR
  -> DIR/trace.csv, DIR/gpuquota.json, DIR/to_sim.json

- Accounts: the simulator makes a trace's user U account "uU", so the
  CSV's user is the bench's account name A and both files name it "uA"
  (a trace workload's project u3 becomes uu3); a project's name and its
  "accounts" are renamed, departments are not accounts and keep theirs.
- The config: WORKLOADDIR/gpuquota.json (run.sh writes it: the quotas and
  settings the bench's gpuquota round loaded); without one, the quotas
  of projects.tsv and no settings.
- Jobs: each task of an array a job of its own at the array's submit
  time (Slurm starts an array's tasks as separate jobs); a job of k > 1
  nodes node_num k and gpu_num its GPUs over all nodes (the simulator
  gives it k whole nodes, as trace_workload.py's jobs of several nodes
  ask); run_time the job's run time.
- Times: the trace's times are whole seconds, each job `interval` after
  the one before; a submit offset t becomes round(t), the first at the
  simulator's time 0.  to_sim.json {"first_submit_s", "jobs",
  "accounts"} says where the bench's time 0 is on the simulator's
  (first_submit_s before it) and how many jobs and accounts were written.
- Not carried: time limits (the trace has none: the simulator's backfill
  takes a job's run time as its limit; GQ_BENCH_TIME_LIMITS gave the
  bench's jobs run time + 30 s in minutes, else the partition's
  MaxTime=INFINITE), checkpoints (the simulator loses a victim's work
  since its start)."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402

HEADER = "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n"
PREFIX = "u"	# the simulator's account of a trace's user: PREFIX + user


def sim_account(name):
	"""The simulator's name of the bench's account `name`."""
	return PREFIX + name


def trace_rows(entries):
	"""The trace's rows for schedule entries (sorted by t), one per job
	(an array's tasks one each): (u_id, user, gpu_num, node_num, interval,
	run_time).  u_id counts the rows from 0."""
	rows, last = [], None
	for e in entries:
		if "," in e.account:
			raise ValueError("account %r: a comma cannot be in the CSV" % e.account)
		t = int(round(e.t))
		for _ in range(e.tasks):
			rows.append((len(rows), e.account, schedule.job_gpus(e), e.nodes,
				     0 if last is None else t - last, e.runtime))
			last = t
	return rows


def write_trace(path, rows):
	with open(path, "w") as f:
		f.write(HEADER)
		for u_id, user, gpus, nodes, interval, run in rows:
			f.write("%d,%s,%d,0,%d,%d,%d,%d,Pass\n" % (u_id, user, gpus, nodes, interval, run, run))


def sim_config(cfg):
	"""cfg (a gpuquota.json's object) with its projects' names and
	accounts as the simulator names them; a copy."""
	out = json.loads(json.dumps(cfg))
	for p in out.get("projects", []):
		p["name"] = sim_account(p["name"])
		if "accounts" in p:
			p["accounts"] = [sim_account(a) for a in p["accounts"]]
	return out


def bench_config(work):
	"""The bench's gpuquota.json, or one made of projects.tsv as run.sh
	makes it (without its settings)."""
	path = os.path.join(work, "gpuquota.json")
	if os.path.exists(path):
		with open(path) as f:
			return json.load(f)
	with open(os.path.join(work, "projects.tsv")) as f:
		rows = [l.split() for l in f if l.strip()]
	return {"projects": [{"name": n, "gpu_quota": int(q)} for n, q in rows]}


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--work", required=True, help="the bench's workload dir")
	ap.add_argument("--out", required=True)
	a = ap.parse_args()
	entries = schedule.read(os.path.join(a.work, "schedule.tsv"))
	if not entries:
		ap.error("%s: no submits" % os.path.join(a.work, "schedule.tsv"))
	try:
		rows = trace_rows(entries)
	except ValueError as e:
		ap.error(str(e))
	cfg = sim_config(bench_config(a.work))
	os.makedirs(a.out, exist_ok=True)
	write_trace(os.path.join(a.out, "trace.csv"), rows)
	with open(os.path.join(a.out, "gpuquota.json"), "w") as f:
		json.dump(cfg, f, indent=1)
		f.write("\n")
	with open(os.path.join(a.out, "to_sim.json"), "w") as f:
		json.dump({"first_submit_s": int(round(entries[0].t)), "jobs": len(rows),
			   "accounts": len({r[1] for r in rows})}, f)
		f.write("\n")


if __name__ == "__main__":
	main()
