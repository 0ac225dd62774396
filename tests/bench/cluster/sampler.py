"""Owns the benchmark's view of the cluster over time: about once a second,
one `squeue -r` of every pending and running job (id, name, account, QOS,
state, start time, node list, priority, reason), appended to a samples
file whose first line ("F") names the columns, each call's latency kept
(the squeue latency of the report).  Also keeps the latest snapshot for
the stock system's submit routing."""
import os
import subprocess
import threading
import time

FMT = "%i|%j|%a|%q|%T|%S|%N|%Q|%r"
COLUMNS = ("id", "name", "acct", "qos", "state", "start", "node", "prio", "reason")


class Sampler(threading.Thread):
	def __init__(self, path, every=1.0):
		super().__init__(daemon=True)
		self.path = path
		self.every = every
		self.latency = []	# seconds per squeue call
		self.lock = threading.Lock()
		self.snap_t = 0.0
		self.snap = []		# [(jobid, name, account, qos, state)]
		self.stop = threading.Event()
		self.env = dict(os.environ, SLURM_TIME_FORMAT="%s")

	def sample(self, out):
		t0 = time.time()
		r = subprocess.run(["squeue", "-h", "-r", "-t", "PD,R,CG,CF,S", "-o", FMT],
				   capture_output=True, text=True, env=self.env)
		t1 = time.time()
		if r.returncode != 0:
			out.write("E\t%.3f\t%s\n" % (t0, r.stderr.strip().replace("\n", " ")))
			return
		self.latency.append(t1 - t0)
		rows = []
		for line in r.stdout.splitlines():
			f = line.split("|", len(COLUMNS) - 1)
			if len(f) == len(COLUMNS):
				rows.append(f)
		out.write("S\t%.3f\t%.3f\t%d\n" % (t0, t1, len(rows)))
		for f in rows:
			out.write("\t".join(x.replace("\t", " ") for x in f) + "\n")
		with self.lock:
			self.snap_t = t0
			self.snap = [(f[0], f[1], f[2], f[3], f[4]) for f in rows]

	def run(self):
		with open(self.path, "w") as out:
			out.write("F\t" + "\t".join(COLUMNS) + "\n")
			while not self.stop.is_set():
				t = time.time()
				self.sample(out)
				self.stop.wait(max(0.0, self.every - (time.time() - t)))
			self.sample(out)
