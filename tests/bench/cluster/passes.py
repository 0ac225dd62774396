"""Owns the reading of gpuquota's own pass timings: the plugin's state file
<StateSaveLocation>/gpuquota-metrics.json ("recent_passes": [{"at",
"pass_us", "read_hold_us", "read_cpu_us", "lock_hold_us", "lock_cpu_us", "tries",
"rehold"},
...], the last <= 1024, oldest first; in files of older plugins
"lock_cpu_us" is absent: None; "rehold" (a walk writing holds again after
Slurm's cycle, not a pass) absent: False; "read_hold_us" (the pass's job
read-lock hold, 0 for a pass made whole under the write lock), its
thread's CPU meanwhile "read_cpu_us", and "tries" (its read holds)
absent: None), polled
every few seconds and deduplicated by "at".  Absent file: no passes (the
report prints n/a)."""
import json
import threading


class PassPoller(threading.Thread):
	def __init__(self, path, every=3.0):
		super().__init__(daemon=True)
		self.path = path
		self.every = every
		self.passes = {}	# at -> (pass_us, lock_hold_us, lock_cpu_us, rehold, read_hold_us, tries, read_cpu_us)
		self.seen_file = False
		self.stop = threading.Event()

	def poll(self):
		try:
			with open(self.path) as f:
				d = json.load(f)
		except (OSError, ValueError):
			return
		self.seen_file = True
		for p in d.get("recent_passes") or []:
			try:
				cpu, rd, tries = p.get("lock_cpu_us"), p.get("read_hold_us"), p.get("tries")
				rcpu = p.get("read_cpu_us")
				self.passes[float(p["at"])] = (float(p["pass_us"]), float(p["lock_hold_us"]),
							       None if cpu is None else float(cpu),
							       bool(p.get("rehold", False)),
							       None if rd is None else float(rd),
							       None if tries is None else int(tries),
							       None if rcpu is None else float(rcpu))
			except (KeyError, TypeError, ValueError):
				continue

	def run(self):
		while not self.stop.is_set():
			self.poll()
			self.stop.wait(self.every)
		self.poll()

	def window(self, t0, t1):
		return [(at,) + v for at, v in sorted(self.passes.items()) if t0 <= at <= t1]
